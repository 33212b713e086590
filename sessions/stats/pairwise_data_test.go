package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// The published files of LLMBar and PandaLM, read from the shared data
// directory beside the project (never copied into it: see its README).
// Every expected value was computed by testdata/pairwise_reference.py
// (exact fractions, written from the definitions, independent of this
// package) or is the file's own published figure.

// sharedDataDir is the shared data directory, from this package.
var sharedDataDir = "../../../shared/data"

// sharedData reads a file of the shared data directory. Without the
// directory the test is skipped, except under CI=true, where a missing
// file is a failure: CI must run these tests.
func sharedData(t *testing.T, name string, v any) {
	t.Helper()
	path := filepath.Join(sharedDataDir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v (CI=true: the shared data must be there)", path, err)
		}
		t.Skipf("the shared data is missing: %v (under CI=true this fails)", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// readPref reads a value as written in the files (1, 2, 0, "Tie") on the
// scale; ok is false for anything the scale does not hold.
func readPref(scale judge.Scale, raw any) (float64, bool) {
	return scale.Read(fmt.Sprint(raw))
}

func within(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

// LLMBar (Natural set, ChatGPT with the Vanilla prompt): 100 pairs with a
// gold label and the judge's winner with the responses in each order,
// already in the original order's terms. Its statistics.json publishes
// correct_False 80/100, correct_True 83/100, correct_both 67/100, equal
// 71/100 and kappa_agreement 0.4286840031520883; the audit reproduces
// them, on a scale with a tie and without.
func TestSwapAuditLLMBar(t *testing.T) {
	var items []struct {
		Label   any `json:"label"`
		Results []map[string]struct {
			Winner any `json:"winner"`
		} `json:"results"`
	}
	sharedData(t, "llmbar__Natural__ChatGPT__Vanilla__result.json", &items)
	if len(items) != 100 {
		t.Fatalf("%d items, want 100", len(items))
	}
	tests := []struct {
		scale judge.Scale
		ac1   float64
		// The two orders' disagreements counted as ties: a tie where the
		// scale has one, left out where it has not.
		tieN               int
		tieAgreement, tieK float64
	}{
		{judge.Pairwise, 0.7336529497935811, 100, 0.67, 0.47735191637630664},
		{judge.PairwiseNoTie, 0.6014348345954563, 71, 67.0 / 71, math.NaN()},
	}
	for _, tc := range tests {
		dim := judge.Dimension{Name: "preference", Scale: tc.scale}
		in := Input{Judges: []JudgeSpec{{Key: "chatgpt · vanilla", Dimensions: []judge.Dimension{dim}}}}
		for i, it := range items {
			gold, okG := readPref(tc.scale, it.Label)
			orig, okO := readPref(tc.scale, it.Results[0]["swap = False"].Winner)
			swap, okS := readPref(tc.scale, it.Results[0]["swap = True"].Winner)
			if !okG || !okO || !okS {
				t.Fatalf("item %d: unreadable %v %v %v", i, it.Label, it.Results[0]["swap = False"].Winner, it.Results[0]["swap = True"].Winner)
			}
			in.Units = append(in.Units, Unit{ItemID: fmt.Sprint(i),
				Verdicts: []Verdict{
					{Judge: "chatgpt · vanilla", Status: judge.StatusOK, Values: vals{"preference": orig}},
					{Judge: "chatgpt · vanilla", Status: judge.StatusOK, Values: vals{"preference": swap}, Swapped: true},
				},
				Labels: []Label{{Annotator: "gold", Values: vals{"preference": gold}, Provenance: "order"}}})
		}
		d := Compute(in, Options{Seed: 1, Resamples: -1}).Judges[0].Dimensions[0]
		a := d.Swap
		if a == nil {
			t.Fatalf("%s: no swap audit", tc.scale)
		}
		h := a.VsHumans
		name := string(tc.scale) + ": "
		if a.Pairs != 100 || h.N != 100 || h.RightOriginal != 80 || h.RightSwapped != 83 || h.RightBoth != 67 || a.Consistent != 71 {
			t.Errorf("%spairs %d, with gold %d, right %d / %d / both %d, equal %d; want 100, 100, 80 / 83 / 67, 71",
				name, a.Pairs, h.N, h.RightOriginal, h.RightSwapped, h.RightBoth, a.Consistent)
		}
		within(t, name+"original", h.Original.Value, 0.80)
		within(t, name+"swapped", h.Swapped.Value, 0.83)
		within(t, name+"both", h.Both.Value, 0.67)
		within(t, name+"positional agreement", a.PositionalAgreement.Value, 0.71)
		within(t, name+"kappa between orders", a.KappaBetweenOrders.Value, 0.4286840031520883)
		if a.Position.First != 25 || a.Position.Second != 4 || a.Position.Other != 0 {
			t.Errorf("%sposition %+v, want 25 first, 4 second", name, a.Position)
		}
		if d.Rejudges.Units != 0 {
			t.Errorf("%sthe swapped order counted as a re-judge: %+v", name, d.Rejudges)
		}
		v := d.Overall.VsHumans
		if v.N != 100 || d.Overall.Judging.Judged != 100 {
			t.Errorf("%sn %d, judged %d", name, v.N, d.Overall.Judging.Judged)
		}
		within(t, name+"agreement", v.PercentAgreement.Value, 0.80)
		within(t, name+"AC1", v.GwetAC1.Value, tc.ac1)
		within(t, name+"kappa", v.CohenKappa.Value, 0.6025437201907791)
		within(t, name+"judge share of B", v.JudgeMean.Value, 0.48)
		within(t, name+"gold share of B", v.ReferenceMean.Value, 0.58)
		if v.Ordinal != nil || v.Binary != nil || v.Classes == nil {
			t.Errorf("%sordinal %v, binary %v, classes %v", name, v.Ordinal, v.Binary, v.Classes)
		}

		tie := Compute(in, Options{Seed: 1, Resamples: -1, SwapDisagreeAsTie: true}).Judges[0].Dimensions[0].Overall.VsHumans
		if tie.N != tc.tieN {
			t.Errorf("%sas ties: n %d, want %d", name, tie.N, tc.tieN)
		}
		within(t, name+"as ties: agreement", tie.PercentAgreement.Value, tc.tieAgreement)
		if !math.IsNaN(tc.tieK) {
			within(t, name+"as ties: kappa", tie.CohenKappa.Value, tc.tieK)
		}
	}
}

// PandaLM's human-labelled test set (999 pairs, three annotators writing
// 0 for a tie, 1 and 2) and the verdicts of gpt-3.5-turbo ("1", "2",
// "Tie", and 25 "garbage": parse errors) and PandaLM-7B (0, 1, 2), in
// three files joined by idx. The judges are compared with the
// annotators' majority (two or three of three agree; no pair of this set
// lacks one). PandaLM's README publishes Cohen's kappa between the
// annotators as 0.85 (1–2), 0.88 (1–3) and 0.86 (2–3): the exact values
// round to them.
func TestPandaLM(t *testing.T) {
	var test []map[string]any
	var gpt []struct {
		Idx    any `json:"idx"`
		Result any `json:"gpt_result"`
	}
	var panda []struct {
		Idx    any `json:"idx"`
		Result any `json:"pandalm_result"`
	}
	sharedData(t, "pandalm__testset-v1.json", &test)
	sharedData(t, "pandalm__gpt-3.5-turbo-testset-v1.json", &gpt)
	sharedData(t, "pandalm__pandalm-7b-testset-v1.json", &panda)

	scale := judge.Pairwise
	dim := []judge.Dimension{{Name: "preference", Scale: scale}}
	in := Input{Judges: []JudgeSpec{{Key: "gpt-3.5-turbo", Dimensions: dim}, {Key: "pandalm-7b", Dimensions: dim}}}
	at := map[string]int{}
	for i, it := range test {
		id := fmt.Sprint(it["idx"])
		at[id] = i
		u := Unit{ItemID: id}
		for _, a := range []string{"annotator1", "annotator2", "annotator3"} {
			v, ok := readPref(scale, it[a])
			if !ok {
				t.Fatalf("idx %s: %s wrote %v", id, a, it[a])
			}
			u.Labels = append(u.Labels, Label{Annotator: a, Values: vals{"preference": v}, Provenance: "order"})
		}
		in.Units = append(in.Units, u)
	}
	join := func(key, idx string, raw any) {
		i, found := at[idx]
		if !found {
			t.Fatalf("%s: idx %s is not in the test set", key, idx)
		}
		v := Verdict{Judge: key, Status: judge.StatusParseError}
		if x, ok := readPref(scale, raw); ok {
			v = Verdict{Judge: key, Status: judge.StatusOK, Values: vals{"preference": x}}
		}
		in.Units[i].Verdicts = append(in.Units[i].Verdicts, v)
	}
	for _, g := range gpt {
		join("gpt-3.5-turbo", fmt.Sprint(g.Idx), g.Result)
	}
	for _, p := range panda {
		join("pandalm-7b", fmt.Sprint(p.Idx), p.Result)
	}
	r := Compute(in, Options{Seed: 1, Resamples: -1})

	h := r.Humans[0]
	if h.Labelled != 999 || h.Pairable != 999 || h.MajorityTies != 0 || len(h.Pairs) != 3 {
		t.Fatalf("humans: labelled %d, pairable %d, ties %d, %d pairs", h.Labelled, h.Pairable, h.MajorityTies, len(h.Pairs))
	}
	within(t, "annotators' Fleiss kappa", h.FleissKappa.Value, 0.8641753649975489)
	within(t, "annotators' alpha (nominal)", h.AlphaNominal.Value, 0.8642206851960816)
	if h.AlphaOrdinal.Defined() || h.AlphaInterval.Defined() {
		t.Errorf("ordinal alpha on a pairwise scale: %v, %v", h.AlphaOrdinal.Estimate(), h.AlphaInterval.Estimate())
	}
	for i, want := range []struct {
		a, b      string
		kappa     float64
		published string
	}{
		{"annotator1", "annotator2", 0.8520226785167024, "0.85"},
		{"annotator1", "annotator3", 0.8789438112500384, "0.88"},
		{"annotator2", "annotator3", 0.8616614540762907, "0.86"},
	} {
		p := h.Pairs[i]
		if p.A != want.a || p.B != want.b || p.N != 999 {
			t.Errorf("pair %d: %s–%s n %d", i, p.A, p.B, p.N)
		}
		within(t, p.A+"–"+p.B+" kappa", p.CohenKappa.Value, want.kappa)
		if got := FormatNumber(p.CohenKappa.Value, 2); got != want.published {
			t.Errorf("%s–%s kappa rounds to %s, PandaLM publishes %s", p.A, p.B, got, want.published)
		}
	}

	type class struct {
		precision, recall, f1 float64
		support, predicted    int
	}
	tests := []struct {
		judge                        string
		parseErrors, n               int
		agreement, kappa, ac1, alpha float64
		judgeB, humanB               float64
		a, tie, b                    class
		macroP, macroR, macroF1      float64
	}{
		{"gpt-3.5-turbo", 25, 974, 0.715605749486653, 0.49286471530289244, 0.60515035277692, 0.4919427770429907,
			0.5082135523613963, 0.5256673511293635,
			class{0.7217391304347827, 0.7980769230769231, 0.7579908675799086, 416, 460},
			class{0.13157894736842105, 0.05434782608695652, 0.07692307692307693, 92, 38},
			class{0.7563025210084033, 0.7725321888412017, 0.7643312101910829, 466, 476},
			0.536540199603869, 0.5416523126683604, 0.5330817182313561},
		{"pandalm-7b", 0, 999, 0.6676676676676677, 0.43535492482022226, 0.529109271174114, 0.43556690279635324,
			0.513013013013013, 0.525025025025025,
			class{0.6882217090069284, 0.7061611374407583, 0.6970760233918128, 422, 433},
			class{0.29906542056074764, 0.3047619047619048, 0.3018867924528302, 105, 107},
			class{0.7342047930283224, 0.7139830508474576, 0.723952738990333, 472, 459},
			0.5738306408653329, 0.5749686976833736, 0.574305184944992},
	}
	for i, tc := range tests {
		jr := r.Judges[i]
		f := jr.Dimensions[0].Overall
		a := f.VsHumans
		if jr.Judge != tc.judge || f.Judging.ParseErrors != tc.parseErrors || a.N != tc.n || f.HumanTies != 0 {
			t.Errorf("%s: parse errors %d, n %d, human ties %d; want %d, %d, 0", jr.Judge, f.Judging.ParseErrors, a.N, f.HumanTies, tc.parseErrors, tc.n)
		}
		within(t, tc.judge+" agreement", a.PercentAgreement.Value, tc.agreement)
		within(t, tc.judge+" kappa", a.CohenKappa.Value, tc.kappa)
		within(t, tc.judge+" AC1", a.GwetAC1.Value, tc.ac1)
		within(t, tc.judge+" alpha", a.AlphaNominal.Value, tc.alpha)
		within(t, tc.judge+" share of B", a.JudgeMean.Value, tc.judgeB)
		within(t, tc.judge+" humans' share of B", a.ReferenceMean.Value, tc.humanB)
		if a.Classes == nil || a.Ordinal != nil {
			t.Fatalf("%s: classes %v, ordinal %v", tc.judge, a.Classes, a.Ordinal)
		}
		for k, want := range []class{tc.a, tc.tie, tc.b} {
			got := a.Classes.PerClass[k]
			name := tc.judge + " " + got.Category
			if got.Support != want.support || got.Predicted != want.predicted {
				t.Errorf("%s: support %d, predicted %d; want %d, %d", name, got.Support, got.Predicted, want.support, want.predicted)
			}
			within(t, name+" precision", got.Precision.Value, want.precision)
			within(t, name+" recall", got.Recall.Value, want.recall)
			within(t, name+" F1", got.F1.Value, want.f1)
		}
		within(t, tc.judge+" macro precision", a.Classes.MacroPrecision.Value, tc.macroP)
		within(t, tc.judge+" macro recall", a.Classes.MacroRecall.Value, tc.macroR)
		within(t, tc.judge+" macro F1", a.Classes.MacroF1.Value, tc.macroF1)
	}
}
