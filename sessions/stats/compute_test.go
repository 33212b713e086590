package stats

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

type vals = map[string]float64

func ok(j string, v vals, samples ...vals) Verdict {
	return Verdict{Judge: j, Status: judge.StatusOK, Values: v, Samples: samples}
}

func lab(who string, v vals, prov string) Label {
	return Label{Annotator: who, Values: v, Provenance: prov}
}

var (
	correct = judge.Dimension{Name: "correct", Scale: judge.Binary}
	quality = judge.Dimension{Name: "quality", Scale: judge.Likert}
)

// fixture is a small session worked out by hand in the comments of
// TestComputeByHand.
func fixture() Input {
	cat := func(c string) map[string]string { return map[string]string{"category": c} }
	return Input{
		Judges: []JudgeSpec{
			{Key: "match", Dimensions: []judge.Dimension{correct}},
			{Key: "llm", Dimensions: []judge.Dimension{correct, quality}},
		},
		Units: []Unit{
			{ItemID: "u1", Segments: cat("A"),
				Verdicts: []Verdict{ok("match", vals{"correct": 1}), ok("llm", vals{"correct": 0, "quality": 5}), ok("llm", vals{"correct": 1, "quality": 5})},
				Labels:   []Label{lab("alice", vals{"correct": 1, "quality": 5}, "random")}},
			{ItemID: "u2", Segments: cat("A"),
				Verdicts: []Verdict{ok("match", vals{"correct": 0}), ok("llm", vals{"correct": 1, "quality": 3}, vals{"correct": 1}, vals{"correct": 0}, vals{"correct": 1})},
				Labels:   []Label{lab("alice", vals{"correct": 0, "quality": 2}, "filter:disagreements")}},
			{ItemID: "u3", Segments: cat("B"),
				Verdicts: []Verdict{{Judge: "match", Status: judge.StatusParseError}, ok("llm", vals{"correct": 1, "quality": 4})},
				Labels:   []Label{lab("alice", vals{"correct": 1, "quality": 4}, "order"), lab("bob", vals{"correct": 1, "quality": 5}, "order")}},
			{ItemID: "u4", Segments: cat("B"),
				Verdicts: []Verdict{{Judge: "match", Status: judge.StatusAPIError}, ok("llm", vals{"correct": 0, "quality": 1})},
				Labels:   []Label{lab("alice", vals{"correct": 0}, "random"), lab("bob", vals{"correct": 1}, "random")}},
			{ItemID: "u5", Segments: cat("B"),
				Verdicts: []Verdict{ok("match", vals{"correct": 1}), ok("llm", vals{"quality": 2})}},
			{ItemID: "u6",
				Verdicts: []Verdict{ok("match", vals{"correct": 1})},
				Labels:   []Label{lab("bob", vals{"correct": 1}, "filter:disagreements")}},
			{ItemID: "u7", Segments: cat("A"),
				Verdicts: []Verdict{ok("match", vals{"correct": 0}), ok("llm", vals{"correct": 0, "quality": 7})},
				Labels:   []Label{lab("alice", vals{"correct": 0, "quality": 1}, "")}},
			{ItemID: "u8", Verdicts: []Verdict{ok("ghost", vals{"correct": 1})}},
			// A rubric criterion: no judge here rates criteria, so it is in
			// nobody's dataset.
			{ItemID: "u1", Criterion: 1, Verdicts: []Verdict{ok("match", vals{"correct": 1})}},
		},
	}
}

func TestComputeByHand(t *testing.T) {
	r := Compute(fixture(), Options{Seed: 1, Resamples: 200})
	if r.Units != 9 || len(r.Judges) != 2 || r.Resamples != 200 {
		t.Fatalf("units %d, judges %d, resamples %d", r.Units, len(r.Judges), r.Resamples)
	}

	// match / correct: 8 whole items; judged u1–u7; ok u1 u2 u5 u6 u7.
	m := r.Judges[0].Dimensions[0].Overall
	wantInt(t, "match units", m.Units, 8)
	wantInt(t, "match judged", m.Judging.Judged, 7)
	wantInt(t, "match ok", m.Judging.OK, 5)
	wantInt(t, "match parse errors", m.Judging.ParseErrors, 1)
	wantInt(t, "match api errors", m.Judging.APIErrors, 1)
	wantNum(t, "match parse error rate", m.Judging.ParseErrorRate, 1.0/7)
	// Labelled u1 u2 u3 u4 u6 u7; u4's two annotators tie.
	wantInt(t, "labelled", m.Labelled, 6)
	wantNum(t, "coverage", m.Coverage, 0.75)
	wantInt(t, "ties", m.HumanTies, 1)
	// Pairs u1 (1,1) u2 (0,0) u6 (1,1) u7 (0,0): u3 is a parse error.
	wantInt(t, "match n", m.VsHumans.N, 4)
	wantNum(t, "match percent", m.VsHumans.PercentAgreement.Estimate(), 1)
	wantNum(t, "match kappa", m.VsHumans.CohenKappa.Estimate(), 1)
	// Only labels reached at random are fair, and of those only u1 pairs
	// (YES, YES): with no human NO there is no specificity, so
	// Rogan–Gladen is undefined. The observed rate is 3 YES of 5.
	if m.Corrected.PassRate.Defined() {
		t.Errorf("match corrected = %v, want undefined", m.Corrected.PassRate)
	}
	wantNum(t, "match observed", m.Corrected.ObservedPassRate.Estimate(), 0.6)
	// Selection: at random u1 u4, in order u3, filtered u2 u6, unknown u7.
	s := m.Selection
	if s.Unbiased != 2 || s.Order != 1 || s.Filtered != 2 || s.Unknown != 1 || s.Fair != 1 || s.Census || !strings.Contains(s.Warning, "dataset order") {
		t.Errorf("selection %+v", s)
	}
	wantNum(t, "filtered share", s.FilteredShare, 2.0/6)
	wantProv := map[string]int{"random": 3, "filter:disagreements": 2, "order": 2, "unknown": 1}
	for k, v := range wantProv {
		if s.ByProvenance[k] != v {
			t.Errorf("by provenance %v, want %v", s.ByProvenance, wantProv)
		}
	}
	if s.UnbiasedPart == nil || s.UnbiasedPart.VsHumans.N != 1 { // u1 only
		t.Errorf("unbiased part %+v", s.UnbiasedPart)
	}

	// Segments: "" (u6 u8), A (u1 u2 u7), B (u3 u4 u5).
	segs := r.Judges[0].Dimensions[0].Segments
	if len(segs) != 3 || segs[0].Value != "" || segs[1].Value != "A" || segs[2].Value != "B" {
		t.Fatalf("segments %+v", segs)
	}
	wantInt(t, "segment A n", segs[1].Figures.VsHumans.N, 3)
	wantInt(t, "segment B judged", segs[2].Figures.Judging.Judged, 3)
	wantInt(t, "segment B n", segs[2].Figures.VsHumans.N, 0)

	// llm / correct: ok u1 u2 u3 u4 u7, no value on u5. Pairs u1 (1,1),
	// u2 (judge 1, human 0), u3 (1,1), u7 (0,0). po = 3/4; marginals
	// human 2/2, judge 1/3, so pe = (2·1 + 2·3)/16 = 1/2 and kappa = 1/2.
	lc := r.Judges[1].Dimensions[0]
	wantInt(t, "llm no value", lc.Overall.Judging.NoValue, 1)
	a := lc.Overall.VsHumans
	wantInt(t, "llm n", a.N, 4)
	wantNum(t, "llm kappa", a.CohenKappa.Estimate(), 0.5)
	wantNum(t, "llm bias", a.ScoreBias.Estimate(), 0.25)
	b := a.Binary
	if b.TruePositives != 2 || b.FalsePositives != 1 || b.FalseNegatives != 0 || b.TrueNegatives != 1 {
		t.Errorf("binary counts %+v", b)
	}
	wantNum(t, "precision", b.Precision.Estimate(), 2.0/3)
	wantNum(t, "false pass rate", b.FalsePassRate.Estimate(), 0.5)
	wantNum(t, "false fail rate", b.FalseFailRate.Estimate(), 0)
	if b.Recall.Value != 1 || b.Specificity.Value != 0.5 || a.Ordinal != nil {
		t.Errorf("recall %v specificity %v ordinal %v", b.Recall, b.Specificity, a.Ordinal)
	}
	// u1 was judged 0 then 1; u2's samples were 1, 0, 1.
	if lc.Rejudges.Units != 1 || lc.Rejudges.Flipped != 1 || lc.Samples.Units != 1 || lc.Samples.Flipped != 1 {
		t.Errorf("flips: rejudges %+v samples %+v", lc.Rejudges, lc.Samples)
	}

	// llm / quality: pairs u1 (5,5) and u2 (judge 3, human 2); u3's
	// annotators tie (4, 5), u7's judge value 7 is off the scale.
	q := r.Judges[1].Dimensions[1]
	wantInt(t, "quality no value", q.Overall.Judging.NoValue, 1)
	wantInt(t, "quality ties", q.Overall.HumanTies, 1)
	wantInt(t, "quality n", q.Overall.VsHumans.N, 2)
	o := q.Overall.VsHumans.Ordinal
	wantNum(t, "quality mae", o.MeanAbsoluteError.Estimate(), 0.5)
	wantNum(t, "quality msd", o.MeanSignedDifference.Estimate(), 0.5)
	wantNum(t, "quality within one", o.WithinOne.Estimate(), 1)
	if q.Rejudges.Units != 1 || q.Rejudges.Flipped != 0 || q.Overall.Corrected != nil {
		t.Errorf("quality rejudges %+v corrected %v", q.Rejudges, q.Overall.Corrected)
	}

	// match against llm on correct: both ok on u1 (1,1), u2 (0,1), u7 (0,0).
	if len(r.JudgePairs) != 1 {
		t.Fatalf("judge pairs %+v", r.JudgePairs)
	}
	p := r.JudgePairs[0]
	if p.Judge != "match" || p.Reference != "llm" || p.Dimension != "correct" || p.Agreement.N != 3 {
		t.Errorf("pair %+v", p)
	}
	wantNum(t, "pair percent", p.Agreement.PercentAgreement.Estimate(), 2.0/3)

	// Humans: correct labelled on 6 units, two annotators on u3 and u4.
	h := r.Humans[0]
	if h.Dimension != "correct" || strings.Join(h.Annotators, ",") != "alice,bob" || h.Labelled != 6 || h.Pairable != 2 || h.MajorityTies != 1 {
		t.Errorf("humans %+v", h)
	}
	if len(h.Pairs) != 1 || h.Pairs[0].A != "alice" || h.Pairs[0].B != "bob" || h.Pairs[0].N != 2 || h.Pairs[0].PercentAgreement.Value != 0.5 {
		t.Errorf("annotator pairs %+v", h.Pairs)
	}
	if len(r.Humans) != 2 || r.Humans[1].Dimension != "quality" || r.Humans[1].Pairable != 1 {
		t.Errorf("humans %+v", r.Humans)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "not in the report") {
		t.Errorf("notes %q", r.Notes)
	}
}

func TestFilteredWarning(t *testing.T) {
	in := fixture()
	for i := range in.Units {
		for j := range in.Units[i].Labels {
			in.Units[i].Labels[j].Provenance = "filter:disagreements"
		}
	}
	in.Units[0].Labels[0].Provenance = "random"
	s := Compute(in, Options{Resamples: -1}).Judges[0].Dimensions[0].Overall.Selection
	if s.Warning == "" || !strings.Contains(s.Warning, "83%") || s.UnbiasedPart == nil {
		t.Errorf("selection %+v", s)
	}
}

func TestAllUnparseable(t *testing.T) {
	in := fixture()
	for i := range in.Units {
		for j := range in.Units[i].Verdicts {
			in.Units[i].Verdicts[j] = Verdict{Judge: in.Units[i].Verdicts[j].Judge, Status: judge.StatusParseError}
		}
	}
	r := Compute(in, Options{})
	f := r.Judges[0].Dimensions[0].Overall
	wantNum(t, "parse error rate", f.Judging.ParseErrorRate, 1)
	if f.VsHumans.N != 0 || f.VsHumans.CohenKappa.Defined() || f.VsHumans.CohenKappa.Reason != reasonNoPairs {
		t.Errorf("vs humans %+v", f.VsHumans)
	}
	if f.Corrected.PassRate.Defined() || f.Corrected.PassRate.Reason == "" {
		t.Errorf("corrected %+v", f.Corrected)
	}
	checkJSON(t, r)
}

func TestEmptyInput(t *testing.T) {
	r := Compute(Input{}, Options{})
	b := checkJSON(t, r)
	want := `{"schema_version":2,"seed":0,"resamples":1000,"units":0,"parse_errors":"exclude","truncated":"exclude","guidelines":{"filter":"all"},"judge_table":[],"judges":[],"judge_pairs":[],"humans":[],"operating_points":[],"reliability":[],"notes":[]}`
	if string(b) != want {
		t.Errorf("empty report\n%s\nwant\n%s", b, want)
	}
}

func TestDeterministicJSON(t *testing.T) {
	a := checkJSON(t, Compute(fixture(), Options{Seed: 9, Resamples: 300}))
	b := checkJSON(t, Compute(fixture(), Options{Seed: 9, Resamples: 300}))
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same seed differ")
	}
	var back Report
	if err := json.Unmarshal(a, &back); err != nil {
		t.Fatal(err)
	}
	c, _ := json.Marshal(back)
	if !bytes.Equal(a, c) {
		t.Errorf("JSON does not round-trip:\n%s\n%s", a, c)
	}
}

// TestSeedsAreLocal checks that a figure's interval does not depend on what
// else is in the report.
func TestSeedsAreLocal(t *testing.T) {
	full := Compute(fixture(), Options{Seed: 3})
	in := fixture()
	in.Judges = in.Judges[1:]
	alone := Compute(in, Options{Seed: 3})
	if full.Judges[1].Dimensions[0].Overall.VsHumans.ScoreBias != alone.Judges[0].Dimensions[0].Overall.VsHumans.ScoreBias {
		t.Error("removing a judge moved another judge's interval")
	}
}

// checkJSON marshals r and fails on an error or a NaN.
func checkJSON(t *testing.T, r Report) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Inf")) || !json.Valid(b) {
		t.Fatalf("bad JSON: %s", b)
	}
	return b
}

func wantInt(t *testing.T, name string, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %d, want %d", name, got, want)
	}
}

func wantNum(t *testing.T, name string, got Estimate, want float64) {
	t.Helper()
	if !got.Defined() || math.Abs(got.Value-want) > 1e-12 {
		t.Errorf("%s = %v (%s), want %v", name, got.Value, got.Reason, want)
	}
}
