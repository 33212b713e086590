#!/usr/bin/env python3
"""Independent reference values for the pairwise tests (pairwise_data_test.go).

Pure Python with exact fractions, written from the published definitions and
not from the Go code. It reads the LLMBar and PandaLM files of the shared data
directory (never copied into the project):

    python3 testdata/pairwise_reference.py [DATA_DIR]

DATA_DIR defaults to ../../../../shared/data from this file (../../../shared/data
from the package, as the Go tests read it).

Conventions, the same as Gavel's:
- pairwise values are categories A, tie, B (PandaLM writes 1, 0, 2; LLMBar 1, 2);
- a judge's value is compared with the annotators' majority (two or three of
  three agree); a unit where all three differ has no majority and is left out
  (PandaLM's test set has none);
- PandaLM's gpt-3.5-turbo answers "garbage" 25 times: a parse error, left out;
- chance terms count every category of the scale, used or not (Gwet's AC1
  depends on it: q = 3 with a tie, 2 without);
- per-class precision and recall take the humans as truth; the macro averages
  are over the classes that occur on either side (scikit-learn's default
  labels), a class the judge never predicts having precision 0 in the average
  as with scikit-learn's zero_division=0.
"""
from fractions import Fraction as F
from collections import Counter
import json, os, sys


def show(name, v):
    print(f"{name:44s} {float(v)!r}")


def cohen_kappa(pairs, cats):
    n = len(pairs)
    po = F(sum(1 for a, b in pairs if a == b), n)
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    pe = sum(F(ca[k], n) * F(cb[k], n) for k in cats)
    return (po - pe) / (1 - pe)


def gwet_ac1(pairs, cats):
    n = len(pairs)
    po = F(sum(1 for a, b in pairs if a == b), n)
    q = len(cats)
    pe = F(0)
    for k in cats:
        pi = F(sum(1 for a, b in pairs if a == k) + sum(1 for a, b in pairs if b == k), 2 * n)
        pe += pi * (1 - pi)
    pe /= q - 1
    return (po - pe) / (1 - pe)


def alpha_nominal(units):
    """Krippendorff (2011): units are lists of values, any number per unit."""
    o = Counter()
    for u in units:
        m = len(u)
        if m < 2:
            continue
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[(u[i], u[j])] += F(1, m - 1)
    vals = sorted({v for u in units for v in u})
    nc = {c: sum(o[(c, k)] for k in vals) for c in vals}
    n = sum(nc.values())
    do = sum(o[(c, k)] for c in vals for k in vals if c != k)
    de = sum(nc[c] * nc[k] for c in vals for k in vals if c != k)
    return 1 - (n - 1) * do / de


def fleiss_kappa(units, cats):
    """Fleiss (1971), every unit with the same number of ratings."""
    N = len(units)
    m = len(units[0])
    assert all(len(u) == m for u in units)
    P = [F(sum(c * (c - 1) for c in Counter(u).values()), m * (m - 1)) for u in units]
    pbar = sum(P) / N
    p = {k: F(sum(Counter(u)[k] for u in units), N * m) for k in cats}
    pe = sum(v * v for v in p.values())
    return (pbar - pe) / (1 - pe)


def per_class(pairs, cats):
    """pairs are (human, judge). Returns {cat: (precision, recall, f1, support)}
    and the macro precision, recall and F1."""
    out = {}
    present = [k for k in cats if any(h == k or j == k for h, j in pairs)]
    for k in cats:
        tp = sum(1 for h, j in pairs if h == k and j == k)
        fp = sum(1 for h, j in pairs if h != k and j == k)
        fn = sum(1 for h, j in pairs if h == k and j != k)
        p = F(tp, tp + fp) if tp + fp else None
        r = F(tp, tp + fn) if tp + fn else None
        f = F(2 * tp, 2 * tp + fp + fn) if 2 * tp + fp + fn else None
        out[k] = (p, r, f, tp + fn)
    mp = sum(out[k][0] or 0 for k in present) / len(present)
    mr = sum(out[k][1] or 0 for k in present) / len(present)
    mf = sum(out[k][2] or 0 for k in present) / len(present)
    return out, mp, mr, mf


def majority(votes):
    (v, c), = Counter(votes).most_common(1)
    return v if c * 2 > len(votes) else None


def llmbar(data):
    d = json.load(open(os.path.join(data, "llmbar__Natural__ChatGPT__Vanilla__result.json")))
    ab = {1: "A", 2: "B", "1": "A", "2": "B"}
    gold = [ab[x["label"]] for x in d]
    orig = [ab[x["results"][0]["swap = False"]["winner"]] for x in d]
    swap = [ab[x["results"][0]["swap = True"]["winner"]] for x in d]
    print("# LLMBar Natural, ChatGPT, Vanilla")
    show("right original", sum(g == o for g, o in zip(gold, orig)))
    show("right swapped", sum(g == s for g, s in zip(gold, swap)))
    show("right both", sum(g == o == s for g, o, s in zip(gold, orig, swap)))
    show("positional agreement", sum(o == s for o, s in zip(orig, swap)))
    show("kappa between orders", cohen_kappa(list(zip(orig, swap)), ["A", "B"]))
    show("prefer first (orig A, swapped B)", sum(o == "A" and s == "B" for o, s in zip(orig, swap)))
    show("prefer second (orig B, swapped A)", sum(o == "B" and s == "A" for o, s in zip(orig, swap)))
    pairs = list(zip(gold, orig))
    show("AC1 gold vs original, 2 categories", gwet_ac1(pairs, ["A", "B"]))
    show("AC1 gold vs original, 3 categories", gwet_ac1(pairs, ["A", "tie", "B"]))
    show("kappa gold vs original", cohen_kappa(pairs, ["A", "B"]))
    show("share of B, judge original", F(sum(o == "B" for o in orig), len(orig)))
    show("share of B, gold", F(sum(g == "B" for g in gold), len(gold)))
    # The two orders' disagreements counted as a tie (gavel's
    # SwapDisagreeAsTie): agreement of that verdict with gold.
    tied = [o if o == s else "tie" for o, s in zip(orig, swap)]
    show("as-tie agreement with gold", F(sum(g == t for g, t in zip(gold, tied)), len(gold)))
    show("as-tie kappa with gold", cohen_kappa(list(zip(gold, tied)), ["A", "tie", "B"]))


def pandalm(data):
    t = json.load(open(os.path.join(data, "pandalm__testset-v1.json")))
    gpt = {str(x["idx"]): x["gpt_result"] for x in json.load(open(os.path.join(data, "pandalm__gpt-3.5-turbo-testset-v1.json")))}
    pl = {str(x["idx"]): x["pandalm_result"] for x in json.load(open(os.path.join(data, "pandalm__pandalm-7b-testset-v1.json")))}
    code = {0: "tie", 1: "A", 2: "B", "0": "tie", "1": "A", "2": "B", "Tie": "tie"}
    cats = ["A", "tie", "B"]
    ann = ["annotator1", "annotator2", "annotator3"]
    units = [[code[x[a]] for a in ann] for x in t]
    print("# PandaLM test set v1: annotators")
    show("units", len(units))
    show("fleiss kappa", fleiss_kappa(units, cats))
    show("alpha nominal", alpha_nominal(units))
    for i in range(3):
        for j in range(i + 1, 3):
            show(f"cohen kappa {ann[i]}-{ann[j]}", cohen_kappa([(u[i], u[j]) for u in units], cats))
    maj = {str(x["idx"]): majority(u) for x, u in zip(t, units)}
    show("units without a majority", sum(v is None for v in maj.values()))
    print("majority counts", Counter(maj.values()))
    for name, res in (("gpt-3.5-turbo", gpt), ("pandalm-7b", pl)):
        pairs = [(maj[k], code[v]) for k, v in res.items() if v in code and maj[k] is not None]
        print(f"# {name} vs the annotators' majority")
        show("parse errors", sum(1 for v in res.values() if v not in code))
        show("n", len(pairs))
        show("percent agreement", F(sum(h == j for h, j in pairs), len(pairs)))
        show("cohen kappa", cohen_kappa(pairs, cats))
        show("gwet ac1", gwet_ac1(pairs, cats))
        show("alpha nominal", alpha_nominal([[h, j] for h, j in pairs]))
        bval = {"A": 0, "tie": F(1, 2), "B": 1}
        show("judge share of B", sum(bval[j] for _, j in pairs) / len(pairs))
        show("human share of B", sum(bval[h] for h, _ in pairs) / len(pairs))
        pc, mp, mr, mf = per_class(pairs, cats)
        for k in cats:
            p, r, f, s = pc[k]
            show(f"{k} precision", p)
            show(f"{k} recall", r)
            show(f"{k} f1", f)
            show(f"{k} support", s)
        show("macro precision", mp)
        show("macro recall", mr)
        show("macro f1", mf)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "..", "shared", "data")
    llmbar(data)
    pandalm(data)
