#!/usr/bin/env python3
"""Independent reference values for the stats package tests.

Pure Python with exact fractions (no numpy/scipy/sklearn), written from the
published definitions rather than from the Go code, so that the Go tests have
an independent check to 1e-9. Run: python3 testdata/reference.py
"""
from fractions import Fraction as F
from decimal import Decimal, getcontext
import itertools, math

getcontext().prec = 50


def show(name, v):
    print(f"{name:40s} {float(v)!r}")


# ---------------------------------------------------------------- alpha
def alpha(units, metric):
    """Krippendorff (2011) 'Computing Krippendorff's Alpha-Reliability', sect. C/E.
    units: list of lists of values (missing already dropped)."""
    values = sorted({v for u in units for v in u})
    o = {(c, k): F(0) for c in values for k in values}
    for u in units:
        m = len(u)
        if m < 2:
            continue
        for i, j in itertools.permutations(range(m), 2):
            o[(u[i], u[j])] += F(1, m - 1)
    n_c = {c: sum(o[(c, k)] for k in values) for c in values}
    n = sum(n_c.values())

    def d2(c, k):
        if metric == "nominal":
            return F(0) if c == k else F(1)
        if metric == "interval":
            return F(c - k) ** 2 if not isinstance(c, F) else (c - k) ** 2
        if metric == "ordinal":
            lo, hi = min(c, k), max(c, k)
            s = sum(n_c[g] for g in values if lo <= g <= hi)
            return (s - (n_c[c] + n_c[k]) / 2) ** 2
        if metric == "ratio":  # ((c - k) / (c + k))^2
            return (F(c - k) / (c + k)) ** 2 if c + k else F(0)
    do = sum(o[(c, k)] * d2(c, k) for c in values for k in values)
    de = sum(n_c[c] * n_c[k] * d2(c, k) for c in values for k in values)
    return 1 - (n - 1) * do / de


# Krippendorff 2011, p. 3 (section E, "nominal data, any number of observers,
# missing values"): observers A-D (rows) x units 1-12 (columns); None = missing.
K = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
kunits = [[r[u] for r in K if r[u] is not None] for u in range(12)]
for m in ("nominal", "ordinal", "interval"):
    show(f"alpha krippendorff2011 {m}", alpha(kunits, m))
    print("   exact:", alpha(kunits, m))


# ---------------------------------------------------------------- Fleiss
def fleiss(counts):
    """Fleiss (1971); for unequal raters per unit, Gwet (2014) / irrCAC
    fleiss.kappa.raw: pa over units with >=2 ratings, pi_k = mean_i r_ik/r_i
    over units with >=1 rating."""
    q = len(counts[0])
    rated = [r for r in counts if sum(r) >= 1]
    two = [r for r in rated if sum(r) >= 2]
    pa = sum(F(sum(x * (x - 1) for x in r), sum(r) * (sum(r) - 1)) for r in two) / len(two)
    pi = [sum(F(r[k], sum(r)) for r in rated) / len(rated) for k in range(q)]
    pe = sum(p * p for p in pi)
    return (pa - pe) / (1 - pe)


wiki = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
show("fleiss wikipedia", fleiss(wiki))
kcounts = [[u.count(c) for c in range(1, 6)] for u in kunits]
show("fleiss krippendorff2011 (irrCAC raw4raters)", fleiss(kcounts))
six = [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
       [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
       [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]
show("fleiss irrCAC distrib.6raters", fleiss(six))
sixu = [[c for c in range(5) for _ in range(r[c])] for r in six]
show("alpha irrCAC distrib.6raters", alpha(sixu, "nominal"))


# ---------------------------------------------------------------- AC1
def ac1_multi(counts, q):
    """Gwet (2008), BJMSP 61:29-48, eq. for many raters; Gwet (2014) with missing."""
    rated = [r for r in counts if sum(r) >= 1]
    two = [r for r in rated if sum(r) >= 2]
    pa = sum(F(sum(x * (x - 1) for x in r), sum(r) * (sum(r) - 1)) for r in two) / len(two)
    pi = [sum(F(r[k], sum(r)) for r in rated) / len(rated) for k in range(q)]
    pe = sum(p * (1 - p) for p in pi) / (q - 1)
    return (pa - pe) / (1 - pe)


show("ac1 krippendorff2011 (irrCAC raw4raters)", ac1_multi(kcounts, 5))
show("ac1 irrCAC distrib.6raters", ac1_multi(six, 5))


# ---------------------------------------------------------------- 2 raters
def two_rater(t):
    """t[i][j]: rater A category i, rater B category j."""
    q = len(t)
    n = sum(map(sum, t))
    pa = F(sum(t[i][i] for i in range(q)), n)
    ra = [F(sum(t[i]), n) for i in range(q)]
    cb = [F(sum(t[i][j] for i in range(q)), n) for j in range(q)]
    pe_k = sum(ra[i] * cb[i] for i in range(q))
    kappa = (pa - pe_k) / (1 - pe_k)
    pi = [(ra[k] + cb[k]) / 2 for k in range(q)]
    pe_g = sum(p * (1 - p) for p in pi) / (q - 1)
    ac1 = (pa - pe_g) / (1 - pe_g)
    return pa, kappa, ac1


abstr = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
pa, kap, ac1 = two_rater(abstr)
show("irrCAC cont3x3abstractors pa", pa)
show("irrCAC cont3x3abstractors kappa", kap)
show("irrCAC cont3x3abstractors ac1", ac1)
units = [[i] * 1 for i in range(0)]
au = []
for i in range(3):
    for j in range(3):
        au += [[i, j]] * abstr[i][j]
show("irrCAC cont3x3abstractors alpha", alpha(au, "nominal"))
pa, kap, ac1 = two_rater([[20, 5], [10, 15]])
show("wikipedia cohen 50 proposals kappa", kap)


def weighted_kappa(a, b, cats, power):
    """sklearn.metrics.cohen_kappa_score(a, b, labels=cats, weights=...):
    kappa = 1 - sum(w*O)/sum(w*E), w_ij = |i-j| (linear) or (i-j)^2 (quadratic),
    E = outer(row marginals, col marginals)/n."""
    q = len(cats)
    idx = {c: i for i, c in enumerate(cats)}
    O = [[0] * q for _ in range(q)]
    for x, y in zip(a, b):
        O[idx[x]][idx[y]] += 1
    n = len(a)
    r = [sum(O[i]) for i in range(q)]
    c = [sum(O[i][j] for i in range(q)) for j in range(q)]
    w = lambda i, j: 0 if i == j else abs(i - j) ** power
    num = sum(w(i, j) * O[i][j] for i in range(q) for j in range(q))
    den = sum(w(i, j) * F(r[i] * c[j], n) for i in range(q) for j in range(q))
    return 1 - num / den


# A fixed Likert example (judge, human) used by the Go tests.
LJ = [1, 2, 3, 4, 5, 3, 2, 4, 5, 5, 1, 3, 4, 2, 3, 4, 5, 1, 4, 2]
LH = [1, 3, 3, 4, 4, 2, 2, 5, 5, 3, 2, 3, 4, 1, 3, 5, 3, 1, 4, 4]
show("likert kappa", weighted_kappa(LJ, LH, [1, 2, 3, 4, 5], 0))
show("likert linear kappa", weighted_kappa(LJ, LH, [1, 2, 3, 4, 5], 1))
show("likert quadratic kappa", weighted_kappa(LJ, LH, [1, 2, 3, 4, 5], 2))
show("likert mae", F(sum(abs(x - y) for x, y in zip(LJ, LH)), len(LJ)))
show("likert msd", F(sum(x - y for x, y in zip(LJ, LH)), len(LJ)))
show("likert within one", F(sum(abs(x - y) <= 1 for x, y in zip(LJ, LH)), len(LJ)))
lt = [[0] * 5 for _ in range(5)]
for x, y in zip(LJ, LH):
    lt[x - 1][y - 1] += 1
show("likert ac1", two_rater(lt)[2])
show("likert cohen (two_rater)", two_rater(lt)[1])
lu = [[x, y] for x, y in zip(LJ, LH)]
for m in ("nominal", "ordinal", "interval"):
    show(f"likert alpha {m}", alpha(lu, m))


# ---------------------------------------------------------------- ranks
def avg_ranks(x):
    s = sorted(range(len(x)), key=lambda i: x[i])
    r = [F(0)] * len(x)
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and x[s[j + 1]] == x[s[i]]:
            j += 1
        for k in range(i, j + 1):
            r[s[k]] = F(i + j + 2, 2)
        i = j + 1
    return r


def pearson_sq(x, y):
    """returns r^2 and sign, exactly."""
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy, sxx * syy


def spearman(x, y):
    num, den2 = pearson_sq(avg_ranks(x), avg_ranks(y))
    return Decimal(num.numerator) / Decimal(num.denominator) / (
        Decimal(den2.numerator) / Decimal(den2.denominator)).sqrt()


def kendall_b(x, y):
    """Kendall (1945) tau-b = (C - D) / sqrt((n0 - n1)(n0 - n2))."""
    c = d = tx = ty = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            sx = (x[i] > x[j]) - (x[i] < x[j])
            sy = (y[i] > y[j]) - (y[i] < y[j])
            if sx * sy > 0:
                c += 1
            elif sx * sy < 0:
                d += 1
            if sx == 0:
                tx += 1
            if sy == 0:
                ty += 1
    n0 = n * (n - 1) // 2
    return Decimal(c - d) / (Decimal(n0 - tx) * Decimal(n0 - ty)).sqrt()


show("scipy spearmanr doc example", spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]))
show("scipy kendalltau doc example", kendall_b([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]))
show("likert spearman", spearman(LJ, LH))
show("likert kendall", kendall_b(LJ, LH))


# ---------------------------------------------------------------- Wilson
def wilson(k, n):
    """Wilson (1927); Newcombe (1998) Stat Med 17:857-872, method 3."""
    z = Decimal("1.959963984540054")
    p = Decimal(k) / Decimal(n)
    n = Decimal(n)
    centre = p + z * z / (2 * n)
    half = z * ((p * (1 - p) + z * z / (4 * n)) / n).sqrt()
    den = 1 + z * z / n
    return (centre - half) / den, (centre + half) / den


for k, n in ((81, 263), (15, 148), (0, 20), (1, 29)):
    lo, hi = wilson(k, n)
    print(f"wilson {k}/{n}".ljust(40), float(lo), float(hi))


# ---------------------------------------------------------------- Rogan-Gladen
def rogan_gladen(p, sens, spec):
    """Rogan & Gladen (1978) Am J Epidemiol 107(1):71-76."""
    return min(1, max(0, (p + spec - 1) / (sens + spec - 1)))


show("rogan-gladen 0.72 0.9 0.8", rogan_gladen(F(72, 100), F(9, 10), F(8, 10)))


# Krippendorff 2011's example at the ratio level (published 0.797).
a = alpha(kunits, "ratio")
show("alpha krippendorff2011 ratio", a)
print("   exact:", a)


# ---------------------------------------------------------------- multi-rater (irrCAC)
def irrcac(counts, cats, weights, coeff):
    """irrCAC R/agree.coeff3.raw.r (pa.coeff.raw, fleiss.kappa.raw,
    gwet.ac1.raw) with categ.labels = cats: rows with no rating excluded;
    pa over rows with >= 2 ratings of sum_k x_k (x*_k - 1) / (r (r - 1)),
    x*_k = sum_l w_kl x_l; pi_k = mean over the rows of x_k / r."""
    q = len(cats)
    if weights == "quadratic":
        lo, hi = min(cats), max(cats)
        W = [[1 - F(cats[k] - cats[l]) ** 2 / F(hi - lo) ** 2 for l in range(q)] for k in range(q)]
    else:
        W = [[F(int(k == l)) for l in range(q)] for k in range(q)]
    rows = [r for r in counts if sum(r) >= 1]
    two = [r for r in rows if sum(r) >= 2]

    def agree(r):
        s = sum(r)
        return sum(F(r[k]) * (sum(W[k][l] * r[l] for l in range(q)) - 1) for k in range(q)) / (s * (s - 1))
    pa = sum(agree(r) for r in two) / len(two)
    pi = [sum(F(r[k], sum(r)) for r in rows) / len(rows) for k in range(q)]
    if coeff == "pa":
        return pa
    if coeff == "gwet":
        pe = sum(map(sum, W)) * sum(p * (1 - p) for p in pi) / (q * (q - 1))
    else:  # fleiss
        pe = sum(W[k][l] * pi[k] * pi[l] for k in range(q) for l in range(q))
    return (pa - pe) / (1 - pe)


for coeff in ("pa", "fleiss", "gwet"):
    for w in ("unweighted", "quadratic"):
        show(f"irrCAC cac.raw4raters {coeff} {w}", irrcac(kcounts, [1, 2, 3, 4, 5], w, coeff))
show("irrCAC distrib.6raters gwet quadratic", irrcac(six, [1, 2, 3, 4, 5], "quadratic", "gwet"))
show("fleiss raw4raters, unit 12 left out", irrcac(kcounts[:11], [1, 2, 3, 4, 5], "unweighted", "fleiss"))
k6 = [r + [0] for r in kcounts]
show("gwet raw4raters, categories 1-6", irrcac(k6, [1, 2, 3, 4, 5, 6], "unweighted", "gwet"))
show("gwet2 raw4raters, categories 1-6", irrcac(k6, [1, 2, 3, 4, 5, 6], "quadratic", "gwet"))
