package stats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// binaryUnits makes n units judged by each judge in verdicts (its value
// on unit i is verdicts[judge](i)) and labelled by alice with human(i),
// reached by prov(i).
func binaryUnits(n int, verdicts map[string]func(int) float64, human func(int) float64, prov func(int) string) Input {
	var in Input
	for _, k := range sortedKeys(verdicts) {
		in.Judges = append(in.Judges, JudgeSpec{Key: k, Dimensions: []judge.Dimension{correct}})
	}
	for i := range n {
		u := Unit{ItemID: fmt.Sprint(i)}
		for _, k := range sortedKeys(verdicts) {
			u.Verdicts = append(u.Verdicts, ok(k, vals{"correct": verdicts[k](i)}))
		}
		if p := prov(i); p != "-" {
			u.Labels = []Label{lab("alice", vals{"correct": human(i)}, p)}
		}
		in.Units = append(in.Units, u)
	}
	return in
}

func TestJudgeTableRanksByKappaThenN(t *testing.T) {
	human := func(i int) float64 { return float64(i % 2) }
	in := binaryUnits(100, map[string]func(int) float64{
		"perfect": human,
		"often":   func(i int) float64 { return map[bool]float64{true: 1 - human(i), false: human(i)}[i%10 == 0] },
		"never":   func(i int) float64 { return 1 - human(i) },
		"always":  func(int) float64 { return 1 }, // kappa 0
	}, human, func(int) string { return "random" })
	r := Compute(in, Options{Seed: 1, Resamples: 50})
	var got []string
	for _, row := range r.JudgeTable {
		got = append(got, fmt.Sprintf("%d %s", row.Rank, row.Judge))
	}
	want := []string{"1 perfect", "2 often", "3 always", "4 never"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("table order %v, want %v", got, want)
	}
	for _, row := range r.JudgeTable {
		if row.N != 100 || !row.CohenKappa.Defined() || !row.FalsePassRate.Defined() {
			t.Errorf("row %+v", row)
		}
	}
}

func TestJudgeTableUndefinedKappaLast(t *testing.T) {
	human := func(int) float64 { return 1 } // one class: kappa undefined
	in := binaryUnits(40, map[string]func(int) float64{
		"a": func(int) float64 { return 1 },
		"b": func(i int) float64 { return float64(i % 2) },
	}, human, func(int) string { return "random" })
	// A third judge with a defined kappa on other units would rank first;
	// here both are undefined or 0: "b" has kappa 0 (defined), "a" none.
	r := Compute(in, Options{Seed: 1, Resamples: -1})
	if r.JudgeTable[0].Judge != "b" || r.JudgeTable[1].Judge != "a" || r.JudgeTable[1].CohenKappa.Defined() {
		t.Errorf("table %+v", r.JudgeTable)
	}
}

func TestCensusUsesEveryLabel(t *testing.T) {
	// Every judged unit is labelled, though the labels were imported: the
	// labelled units are the population, so Rogan–Gladen is given and
	// equals the humans' pass rate exactly.
	human := func(i int) float64 { return float64(min(i%3, 1)) }
	judgeV := func(i int) float64 {
		if i%7 == 0 {
			return 1 - human(i)
		}
		return human(i)
	}
	in := binaryUnits(300, map[string]func(int) float64{"j": judgeV}, human, func(int) string { return "imported" })
	f := Compute(in, Options{Seed: 1, Resamples: 200}).Judges[0].Dimensions[0].Overall
	if !f.Selection.Census || f.Selection.Fair != 300 || f.Selection.Warning != "" {
		t.Fatalf("selection %+v", f.Selection)
	}
	wantNum(t, "corrected", f.Corrected.PassRate.Estimate(), 200.0/300)
	if f.Benchmark == nil || f.Benchmark.Labelled != 300 || f.Benchmark.Judged != 300 {
		t.Errorf("benchmark %+v", f.Benchmark)
	}
}

func TestImportedPartialLabelsGiveNoCorrection(t *testing.T) {
	// Half the units carry imported labels: how they were chosen is not
	// known, so neither Rogan–Gladen nor PPI is given, and both say why.
	human := func(i int) float64 { return float64(i % 2) }
	prov := func(i int) string {
		if i < 50 {
			return "imported"
		}
		return "-"
	}
	in := binaryUnits(100, map[string]func(int) float64{"j": human}, human, prov)
	f := Compute(in, Options{Seed: 1, Resamples: 50}).Judges[0].Dimensions[0].Overall
	if f.Selection.Census || f.Selection.Fair != 0 {
		t.Fatalf("selection %+v", f.Selection)
	}
	if f.Corrected.PassRate.Defined() || !strings.Contains(f.Corrected.PassRate.Reason, "imported") {
		t.Errorf("corrected %+v", f.Corrected.PassRate)
	}
	if f.Benchmark.PPI.Defined() || !strings.Contains(f.Benchmark.PPI.Reason, "imported") {
		t.Errorf("benchmark %+v", f.Benchmark.PPI)
	}
}

func TestOrderLabelsAreReportedApart(t *testing.T) {
	// The first 40 units were labelled in dataset order, the next 40 at
	// random: only the random ones feed the correction and the unbiased
	// part, and a warning says so.
	human := func(i int) float64 { return float64(i % 2) }
	prov := func(i int) string {
		switch {
		case i < 40:
			return "order"
		case i < 80:
			return "random"
		}
		return "-"
	}
	in := binaryUnits(200, map[string]func(int) float64{"j": human}, human, prov)
	f := Compute(in, Options{Seed: 1, Resamples: 50}).Judges[0].Dimensions[0].Overall
	s := f.Selection
	if s.Order != 40 || s.Unbiased != 40 || s.Fair != 40 || s.UnbiasedPart == nil || s.UnbiasedPart.VsHumans.N != 40 {
		t.Fatalf("selection %+v", s)
	}
	if !strings.Contains(s.Warning, "40 items were labelled in dataset order") {
		t.Errorf("warning %q", s.Warning)
	}
	if f.VsHumans.N != 80 || !f.Corrected.PassRate.Defined() {
		t.Errorf("vs humans n %d, corrected %+v", f.VsHumans.N, f.Corrected.PassRate)
	}
}

func TestParseErrorsFail(t *testing.T) {
	// Four units: the judge says YES, YES, parse error, parse error; the
	// human says YES on all. Excluded, the judge agrees on 2 of 2 and its
	// pass rate is 1; failed, the errors count as NO: 2 of 4, rate 0.5.
	var in Input
	in.Judges = []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{correct}}}
	for i := range 4 {
		v := ok("j", vals{"correct": 1})
		if i >= 2 {
			v = Verdict{Judge: "j", Status: judge.StatusParseError}
		}
		in.Units = append(in.Units, Unit{ItemID: fmt.Sprint(i), Verdicts: []Verdict{v},
			Labels: []Label{lab("alice", vals{"correct": 1}, "random")}})
	}
	for _, tc := range []struct {
		fail     bool
		mode     string
		n        int
		agree    float64
		observed float64
	}{
		{false, "exclude", 2, 1, 1},
		{true, "fail", 4, 0.5, 0.5},
	} {
		r := Compute(in, Options{Seed: 1, Resamples: -1, ParseErrorsFail: tc.fail})
		f := r.Judges[0].Dimensions[0].Overall
		if r.ParseErrors != tc.mode || f.VsHumans.N != tc.n || f.Judging.ParseErrors != 2 {
			t.Errorf("%s: mode %q, n %d, parse errors %d", tc.mode, r.ParseErrors, f.VsHumans.N, f.Judging.ParseErrors)
		}
		wantNum(t, tc.mode+" agreement", f.VsHumans.PercentAgreement.Estimate(), tc.agree)
		wantNum(t, tc.mode+" observed", f.Corrected.ObservedPassRate.Estimate(), tc.observed)
	}
}

func TestLabelsNeeded(t *testing.T) {
	for _, tc := range []struct {
		n        int
		iv       Interval
		for2     float64
		for5     float64
		undefine bool
	}{
		// Half-width 0.04 on 100 labels: ±0.02 needs 4× the labels (300
		// more), ±0.05 is reached.
		{100, Interval{Value: 0.5, Low: 0.46, High: 0.54}, 300, 0, false},
		// Half-width 0.1: ±0.05 needs 4× (300 more), ±0.02 25× (2,400 more).
		{100, Interval{Value: 0.5, Low: 0.4, High: 0.6}, 2400, 300, false},
		{0, Interval{Value: 0.5, Low: 0.4, High: 0.6}, 0, 0, true},
		{100, undefinedInterval("no items"), 0, 0, true},
	} {
		got := moreLabels("x", tc.n, tc.iv)
		if tc.undefine {
			if got.For2.Defined() || got.For5.Defined() {
				t.Errorf("%+v: got %+v, want undefined", tc, got)
			}
			continue
		}
		if got.For2.Value != tc.for2 || got.For5.Value != tc.for5 {
			t.Errorf("%+v: for ±2 %v, for ±5 %v, want %v and %v", tc.iv, got.For2.Value, got.For5.Value, tc.for2, tc.for5)
		}
	}
}

func TestLabelOnlyDimensions(t *testing.T) {
	// No judge, two annotators: the inter-annotator figures are there.
	in := Input{Dimensions: []judge.Dimension{correct}}
	for i := range 10 {
		in.Units = append(in.Units, Unit{ItemID: fmt.Sprint(i), Labels: []Label{
			lab("alice", vals{"correct": float64(i % 2)}, "random"),
			lab("bob", vals{"correct": float64(i % 2)}, "random"),
		}})
	}
	r := Compute(in, Options{Seed: 1, Resamples: 50})
	if len(r.Judges) != 0 || len(r.JudgeTable) != 0 || len(r.Humans) != 1 {
		t.Fatalf("judges %d, table %d, humans %d", len(r.Judges), len(r.JudgeTable), len(r.Humans))
	}
	h := r.Humans[0]
	if h.Pairable != 10 || len(h.Pairs) != 1 || h.Pairs[0].CohenKappa.Value != 1 {
		t.Errorf("humans %+v", h)
	}
}

func TestLabelsNeededDegenerate(t *testing.T) {
	got := moreLabels("benchmark", 20, Interval{Value: 1, Low: 1, High: 1})
	if got.For2.Defined() || got.For5.Defined() || !strings.Contains(got.For2.Reason, "same") {
		t.Errorf("degenerate interval: %+v", got)
	}
}
