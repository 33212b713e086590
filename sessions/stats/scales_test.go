package stats

import (
	"math"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// Each block of an Agreement belongs to the scales whose kind gives it a
// meaning: ordinal figures to ordinal scales only, the binary classifier
// figures to binary ones, per-class figures to nominal and pairwise ones,
// means and score bias wherever a mean means something.
func TestAgreementBlocksFollowTheScale(t *testing.T) {
	tests := []struct {
		scale                           judge.Scale
		ordinal, binary, classes, means bool
	}{
		{judge.Binary, false, true, false, true},
		{judge.Ternary, true, false, false, true},
		{judge.Likert, true, false, false, true},
		{"ordinal:1-10", true, false, false, true},
		{"ordinal:0-10", true, false, false, true},
		{"ordinal:1-4:poor,fair,good,excellent", true, false, false, true},
		{"nominal:CORRECT,INCORRECT,NOT_ATTEMPTED", false, false, true, false},
		{judge.Pairwise, false, false, true, true},
		{judge.PairwiseNoTie, false, false, true, true},
	}
	for _, tc := range tests {
		c := NewConfusion(tc.scale.Values())
		for i := range c.Categories {
			for j := range c.Categories {
				c.Counts[i][j] = 1 + (i+2*j)%3
			}
		}
		a := AgreementOf(c, tc.scale, 1, 50)
		if (a.Ordinal != nil) != tc.ordinal || (a.Binary != nil) != tc.binary || (a.Classes != nil) != tc.classes {
			t.Errorf("%s: ordinal %v, binary %v, classes %v; want %v, %v, %v", tc.scale,
				a.Ordinal != nil, a.Binary != nil, a.Classes != nil, tc.ordinal, tc.binary, tc.classes)
		}
		for name, e := range map[string]Estimate{"judge mean": a.JudgeMean, "reference mean": a.ReferenceMean, "score bias": a.ScoreBias.Estimate()} {
			if e.Defined() != tc.means {
				t.Errorf("%s: %s defined %v, want %v", tc.scale, name, e.Defined(), tc.means)
			}
			if !tc.means && e.Reason != reasonNoMean {
				t.Errorf("%s: %s reason %q, want %q", tc.scale, name, e.Reason, reasonNoMean)
			}
		}
		if tc.classes {
			names := tc.scale.Names()
			if len(a.Confusion.Names) != len(names) || len(a.Classes.PerClass) != len(names) {
				t.Fatalf("%s: confusion names %q, %d classes; want %q", tc.scale, a.Confusion.Names, len(a.Classes.PerClass), names)
			}
			for k, n := range names {
				if a.Confusion.Names[k] != n || a.Classes.PerClass[k].Category != n {
					t.Errorf("%s: category %d named %q / %q, want %q", tc.scale, k, a.Confusion.Names[k], a.Classes.PerClass[k].Category, n)
				}
			}
		} else if a.Confusion.Names != nil {
			t.Errorf("%s: confusion names %q on a numeric scale", tc.scale, a.Confusion.Names)
		}
	}
}

// The chance terms count every category of the scale. LLMBar's gold
// label against ChatGPT's original-order verdict (Natural set, Vanilla
// prompt) agrees on 80 of 100 pairs: rows gold A (42) and B (58), columns
// the judge. Gwet's AC1 is 0.6014 when the scale is A or B and 0.7337
// when it also allows a tie (q = 3); kappa and alpha do not depend on an
// unused category. Values from testdata/pairwise_reference.py.
func TestChanceCountsTheScaleCategories(t *testing.T) {
	tests := []struct {
		scale judge.Scale
		ac1   float64
	}{
		{judge.PairwiseNoTie, 0.6014348345954563},
		{judge.Pairwise, 0.7336529497935811},
	}
	for _, tc := range tests {
		c := NewConfusion(tc.scale.Values())
		a, b := 0, len(c.Categories)-1
		c.Counts[a][a], c.Counts[a][b] = 37, 5
		c.Counts[b][a], c.Counts[b][b] = 15, 43
		ag := AgreementOf(c, tc.scale, 1, -1)
		near(t, string(tc.scale)+" AC1", ag.GwetAC1.Estimate(), tc.ac1)
		near(t, string(tc.scale)+" kappa", ag.CohenKappa.Estimate(), 0.6025437201907791)
		near(t, string(tc.scale)+" judge share of B", ag.JudgeMean, 0.48)
		near(t, string(tc.scale)+" gold share of B", ag.ReferenceMean, 0.58)
	}
}

// Columns of 1/2 and 0/1/2 read as pairwise (A, B; tie, A, B) never give
// ordinal figures, in the judge's table, between judges or between
// annotators; a raw 2 is off the pairwise scale and counts as no value.
func TestPairwiseNeverOrdinal(t *testing.T) {
	for _, scale := range []judge.Scale{judge.Pairwise, judge.PairwiseNoTie} {
		for _, column := range [][]string{{"1", "2"}, {"0", "1", "2"}} {
			dim := judge.Dimension{Name: "pref", Scale: scale}
			in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{dim}}, {Key: "k", Dimensions: []judge.Dimension{dim}}}}
			for i := range 12 {
				read := func(k int) float64 {
					v, ok := scale.Read(column[k%len(column)])
					if !ok {
						return 2 // as a raw column would hold it: off the scale
					}
					return v
				}
				in.Units = append(in.Units, Unit{ItemID: string(rune('a' + i)),
					Verdicts: []Verdict{ok("j", vals{"pref": read(i)}), ok("k", vals{"pref": read(i / 2)})},
					Labels:   []Label{lab("ann", vals{"pref": read(i + i/3)}, "order"), lab("bob", vals{"pref": read(i / 3)}, "order")}})
			}
			r := Compute(in, Options{Resamples: -1})
			what := string(scale) + " " + column[0] + "/" + column[1]
			for _, jr := range r.Judges {
				if a := jr.Dimensions[0].Overall.VsHumans; a.Ordinal != nil || a.Binary != nil || a.Classes == nil {
					t.Errorf("%s: %s vs humans ordinal %v binary %v classes %v", what, jr.Judge, a.Ordinal, a.Binary, a.Classes)
				}
			}
			if a := r.JudgePairs[0].Agreement; a.Ordinal != nil || a.Classes == nil {
				t.Errorf("%s: judge pair ordinal %v classes %v", what, a.Ordinal, a.Classes)
			}
			h := r.Humans[0]
			if h.AlphaOrdinal.Defined() || h.AlphaInterval.Defined() {
				t.Errorf("%s: annotators' alpha ordinal %v interval %v", what, h.AlphaOrdinal.Estimate(), h.AlphaInterval.Estimate())
			}
			wantNoValue := 0
			if _, ok := scale.Read("0"); !ok && len(column) == 3 {
				wantNoValue = 4 // "0" is a tie, off pairwise:notie
			}
			if got := r.Judges[0].Dimensions[0].Overall.Judging.NoValue; got != wantNoValue {
				t.Errorf("%s: %d verdicts without a value, want %d", what, got, wantNoValue)
			}
		}
	}
}

// Per-class figures, worked by hand: a SimpleQA-style grader on four
// categories, one of which (UNSURE) neither side used and is left out of
// the macro averages, and one (NOT_ATTEMPTED) the judge never chose, whose
// precision is undefined and counts as 0 in the macro, as scikit-learn's
// precision_recall_fscore_support(average="macro", zero_division=0) does.
//
//	human \ judge   CORRECT INCORRECT NOT_ATTEMPTED UNSURE
//	CORRECT              5        1         0          0
//	INCORRECT            2        3         0          0
//	NOT_ATTEMPTED        1        0         0          0
func TestClassesByHand(t *testing.T) {
	scale := judge.Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED,UNSURE")
	c := NewConfusion(scale.Values())
	c.Counts[0][0], c.Counts[0][1] = 5, 1
	c.Counts[1][0], c.Counts[1][1] = 2, 3
	c.Counts[2][0] = 1
	a := AgreementOf(c, scale, 1, -1)
	cl := a.Classes
	tests := []struct {
		name               string
		support, predicted int
		precision, recall  float64
		f1                 float64
	}{
		{"CORRECT", 6, 8, 5.0 / 8, 5.0 / 6, 10.0 / 14},
		{"INCORRECT", 5, 4, 3.0 / 4, 3.0 / 5, 6.0 / 9},
		{"NOT_ATTEMPTED", 1, 0, math.NaN(), 0, 0},
		{"UNSURE", 0, 0, math.NaN(), math.NaN(), math.NaN()},
	}
	for k, tc := range tests {
		f := cl.PerClass[k]
		if f.Category != tc.name || f.Support != tc.support || f.Predicted != tc.predicted {
			t.Errorf("class %d: %q support %d predicted %d, want %q %d %d", k, f.Category, f.Support, f.Predicted, tc.name, tc.support, tc.predicted)
		}
		for what, pair := range map[string][2]float64{
			"precision": {f.Precision.Value, tc.precision}, "recall": {f.Recall.Value, tc.recall}, "f1": {f.F1.Value, tc.f1},
		} {
			got, want := pair[0], pair[1]
			if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Abs(got-want) > 1e-12 {
				t.Errorf("%s %s = %v, want %v", tc.name, what, got, want)
			}
		}
	}
	if cl.PerClass[2].Precision.Reason == "" || cl.PerClass[3].F1.Reason == "" {
		t.Error("an undefined per-class figure has no reason")
	}
	wantInt(t, "macro classes", cl.MacroClasses, 3)
	near(t, "macro precision", cl.MacroPrecision, 11.0/24)
	near(t, "macro recall", cl.MacroRecall, 43.0/90)
	near(t, "macro F1", cl.MacroF1, 29.0/63)
	if a.ScoreBias.Defined() || a.JudgeMean.Defined() {
		t.Errorf("a nominal scale has a mean: %v, %v", a.JudgeMean, a.ScoreBias)
	}
}

// With no pair to compare, every figure is undefined with the reason the
// caller gives, except a nominal scale's mean, which has none anyway.
func TestNominalNoPairsKeepsItsReason(t *testing.T) {
	dim := judge.Dimension{Name: "grade", Scale: "nominal:CORRECT,INCORRECT"}
	in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{dim}}},
		Units: []Unit{{ItemID: "a", Verdicts: []Verdict{ok("j", vals{"grade": 0})}}}}
	a := Compute(in, Options{}).Judges[0].Dimensions[0].Overall.VsHumans
	if a.JudgeMean.Reason != reasonNoMean || a.ScoreBias.Reason != reasonNoMean {
		t.Errorf("mean reason %q, bias reason %q", a.JudgeMean.Reason, a.ScoreBias.Reason)
	}
	if a.Classes == nil || a.Classes.MacroF1.Reason != reasonNoPairs || a.Classes.PerClass[0].Precision.Reason != reasonNoPairs {
		t.Errorf("classes %+v", a.Classes)
	}
}
