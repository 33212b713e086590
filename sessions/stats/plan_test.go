package stats

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// planCase describes a plan fixture: one binary judge "j" on dimension
// "ok", items i0…; verdicts[i] is item i's plan verdict (NaN: none),
// probs[i] its inclusion probability, selected the planned items, labels
// the labels on each item.
type planCase struct {
	design   string
	verdicts []float64
	probs    []float64
	strata   []string
	selected []int
	labels   map[int][]Label
	cant     []int
}

func planLabel(v float64) []Label {
	return []Label{{Annotator: "ann", Values: map[string]float64{"ok": v}, Provenance: "plan:1"}}
}

func (pc planCase) input() Input {
	in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "ok", Scale: judge.Binary}}}}}
	pl := &PlanInput{ID: 1, Design: pc.design, Seed: 9, Judge: "j", Dimension: "ok", Target: len(pc.selected)}
	sel := map[int]bool{}
	for _, i := range pc.selected {
		sel[i] = true
	}
	for i, f := range pc.verdicts {
		id := "i" + strconv.Itoa(i)
		u := Unit{ItemID: id, Labels: pc.labels[i]}
		pu := PlanUnit{Unit: i, ItemID: id, Probability: pc.probs[i], Selected: sel[i]}
		if !math.IsNaN(f) {
			v := f
			pu.Verdict = &v
			u.Verdicts = []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"ok": f}}}
		}
		if pc.strata != nil {
			pu.Stratum = pc.strata[i]
		}
		in.Units = append(in.Units, u)
		pl.Units = append(pl.Units, pu)
	}
	if len(pc.cant) > 0 {
		in.Labelling = &LabellingInput{}
		for _, i := range pc.cant {
			in.Labelling.CantJudge = append(in.Labelling.CantJudge, CantJudgeMark{ItemID: "i" + strconv.Itoa(i), Annotator: "ann", Reason: ReasonAmbiguous})
		}
	}
	in.Plan = pl
	return in
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func planNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

// checkInterval checks an interval's value and that its half-width is
// t_{0.975, df}·se (before clamping to [lo, hi]).
func checkInterval(t *testing.T, what string, iv Interval, value, se, df, lo, hi float64) {
	t.Helper()
	planNear(t, what+" value", iv.Value, value)
	h := studentQuantile(0.975, df) * se
	planNear(t, what+" low", iv.Low, max(value-h, lo))
	planNear(t, what+" high", iv.High, min(value+h, hi))
}

// TestPlanUniformByHand: a uniform plan is simple random sampling; every
// figure is checked against the textbook SRSWOR formulas (Cochran 1977,
// eq. 2.19: Var(ȳ) = (1 − n/N) s²/n), worked by hand.
func TestPlanUniformByHand(t *testing.T) {
	pc := planCase{
		design:   "uniform",
		verdicts: []float64{1, 1, 0, 1, 1, 0, 1, 1, 0, 1},
		probs:    repeat(0.4, 10),
		selected: []int{0, 1, 2, 3},
		labels:   map[int][]Label{0: planLabel(1), 1: planLabel(0), 2: planLabel(0), 3: planLabel(1)},
	}
	r := planReport(planPtr(pc.input()))
	if r.Items != 10 || r.Selected != 4 || r.Labelled != 4 || r.Nonresponse != 0 || r.Pending != 0 || r.Verdicts != 10 {
		t.Fatalf("counts %+v", r)
	}
	if r.Measure != MeasurePassRate || r.Scale != judge.Binary || r.Assumption != "" {
		t.Errorf("measure %q scale %q assumption %q", r.Measure, r.Scale, r.Assumption)
	}
	// y = 1 0 0 1: mean 0.5, s² = 1/3; (1 − 0.4)·(1/3)/4 = 0.05. df: the
	// four terms are equal, 3·(4u)²/(4u²) = 12, capped at m − 1 = 3.
	checkInterval(t, "HT", r.HumanMean, 0.5, math.Sqrt(0.05), 3, 0, 1)
	checkInterval(t, "Hájek", r.HumanMeanHajek, 0.5, math.Sqrt(0.05), 3, 0, 1)
	// Residuals y − f = 0 −1 0 0: mean −0.25, s² = 0.25; the verdicts sum
	// to 7: (7 + (−1)/0.4)/10 = 0.45; Var = 0.6·0.25/4 = 0.0375.
	checkInterval(t, "score", r.Score, 0.45, math.Sqrt(0.0375), 3, 0, 1)
	// Agreement 1 0 1 1: 0.75, s² = 0.25.
	checkInterval(t, "agreement", r.Agreement, 0.75, math.Sqrt(0.0375), 3, 0, 1)
	planNear(t, "judge score", r.JudgeScore.Value, 0.7)
	planNear(t, "design effect", r.DesignEffect.Value, 1)
	planNear(t, "uniform equivalent", r.UniformEquivalent.Value, 4)
	if r.DesignEffectNote != "" {
		t.Errorf("a uniform plan has a design effect note: %q", r.DesignEffectNote)
	}
}

func planPtr[T any](v T) *T { return &v }

// TestPlanActiveByHand: unequal probabilities with one item taken with
// certainty; the Hájek–Rosén variance worked by hand (the certainty item
// adds nothing and is not counted in m, so m = 2 and df = 1).
func TestPlanActiveByHand(t *testing.T) {
	pc := planCase{
		design:   "active",
		verdicts: []float64{1, 1, 1, 0, 0},
		probs:    []float64{1, 0.6, 0.4, 0.5, 0.5},
		selected: []int{0, 1, 2},
		labels:   map[int][]Label{0: planLabel(1), 1: planLabel(0), 2: planLabel(1)},
	}
	r := planReport(planPtr(pc.input()))
	// HT: (1/1 + 0/0.6 + 1/0.4)/5 = 0.7. z/p over the two uncertain items:
	// 0 and 2.5, A = (0.4·0 + 0.6·2.5)/1 = 1.5; u = 2·0.4·1.5² + 2·0.6·1² = 3.
	checkInterval(t, "HT", r.HumanMean, 0.7, math.Sqrt(3)/5, 1, 0, 1)
	checkInterval(t, "Hájek", r.HumanMeanHajek, 0.6774193548387096, 0.2595372698126101, 1, 0, 1)
	// Score: (3 + (0−1)/0.6)/5 = 0.2667; residual/p −1.667 and 0,
	// A = −0.667, u = 0.8·1 + 1.2·0.444 = 1.333.
	checkInterval(t, "score", r.Score, 0.26666666666666666, math.Sqrt(4.0/3)/5, 1, 0, 1)
	checkInterval(t, "agreement", r.Agreement, 0.7, math.Sqrt(3)/5, 1, 0, 1)
	// SRS variance of the same estimator at m = 3: S² from the weighted
	// residuals, (1 − 3/5)·S²/3.
	planNear(t, "design effect", r.DesignEffect.Value, 1.2203174603174602)
	if !strings.Contains(r.DesignEffectNote, "did not help") {
		t.Errorf("design effect above 1 without the sentence: %q", r.DesignEffectNote)
	}
}

// TestPlanStratifiedByHand: the variance is the sum of each stratum's
// SRSWOR variance (Cochran 1977, eq. 5.6), and nonresponse is reweighted
// within the stratum.
func TestPlanStratifiedByHand(t *testing.T) {
	strata := []string{"a", "a", "a", "a", "a", "a", "b", "b", "b", "b"}
	pc := planCase{
		design:   "stratified",
		verdicts: repeat(1, 10),
		probs:    repeat(0.5, 10),
		strata:   strata,
		selected: []int{0, 1, 2, 6, 7},
		labels:   map[int][]Label{0: planLabel(1), 1: planLabel(0), 2: planLabel(1), 6: planLabel(1), 7: planLabel(0)},
	}
	r := planReport(planPtr(pc.input()))
	// a: N 6, n 3, y 1 0 1 (s² 1/3): 36·0.5·(1/3)/3 = 2; b: N 4, n 2, y 1 0
	// (s² 1/2): 16·0.5·0.5/2 = 2. Total 4 over N² = 100. Mean (4 + 2)/10.
	checkInterval(t, "HT", r.HumanMean, 0.6, 0.2, 3, 0, 1)

	// Item 2 marked "can't judge": stratum a's two responders stand for
	// its three planned items (p = 0.5·2/3), stratum b is untouched.
	pc.labels[2] = nil
	pc.cant = []int{2}
	r = planReport(planPtr(pc.input()))
	if r.Nonresponse != 1 || r.Labelled != 4 || r.Pending != 0 {
		t.Fatalf("nonresponse %d labelled %d pending %d", r.Nonresponse, r.Labelled, r.Pending)
	}
	if !strings.Contains(r.Assumption, "missing at random") {
		t.Errorf("assumption %q", r.Assumption)
	}
	// a: y 1 0 at p = 1/3: HT total 3; b: 2. Mean 0.5. Var: a's SRS of 2
	// from 6, 36·(1 − 1/3)·0.5/2 = 6; b 2; (6 + 2)/100.
	checkInterval(t, "HT with nonresponse", r.HumanMean, 0.5, math.Sqrt(0.08), 2, 0, 1)

	// Stratum b without a label: no estimate, and why.
	pc.labels[6], pc.labels[7] = nil, nil
	r = planReport(planPtr(pc.input()))
	if r.Score.Defined() || !strings.Contains(r.Score.Reason, "every stratum needs a label, and 1 has none yet") {
		t.Errorf("a stratum without labels: score %+v", r.Score)
	}
}

// TestPlanLabelsCounted: pending, can't judge, ties and labels off the
// plan are counted where they belong and kept out of the estimates.
func TestPlanLabelsCounted(t *testing.T) {
	tie := []Label{
		{Annotator: "a", Values: map[string]float64{"ok": 1}, Provenance: "plan:1"},
		{Annotator: "b", Values: map[string]float64{"ok": 0}, Provenance: "plan:1"},
	}
	off := []Label{{Annotator: "c", Values: map[string]float64{"ok": 0}, Provenance: "random"}}
	pc := planCase{
		design:   "uniform",
		verdicts: repeat(1, 8),
		probs:    repeat(0.75, 8),
		selected: []int{0, 1, 2, 3, 4, 5},
		labels: map[int][]Label{
			0: planLabel(1), 1: planLabel(1), 2: planLabel(0),
			3: tie, // tie: nonresponse
			4: off, // labelled off the plan only: pending
			// 5: nothing, marked can't judge
			6: planLabel(0), // a plan label on an item the plan did not select
		},
		cant: []int{5},
	}
	in := pc.input()
	r := planReport(&in)
	if r.Labelled != 3 || r.Nonresponse != 2 || r.Pending != 1 || r.Selected != 6 {
		t.Errorf("labelled %d nonresponse %d pending %d selected %d", r.Labelled, r.Nonresponse, r.Pending, r.Selected)
	}
	if r.OffPlan.Labels != 2 || r.OffPlan.Items != 2 || r.OffPlan.Mean.Value != 0 {
		t.Errorf("off plan %+v", r.OffPlan)
	}
	// Three responders of six stand for them: p = 0.75·3/6, HT (2/0.375)/8.
	planNear(t, "HT", r.HumanMean.Value, 2/0.375/8)
	joined := strings.Join(r.Notes, " ")
	for _, want := range []string{"tie are taken as nonresponse", "on items outside it are counted off the plan"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes %q lack %q", joined, want)
		}
	}
}

// TestPlanUndefined: no plan, nothing labelled yet, an unknown design or
// dimension, one label: each says why, and JSON stays valid.
func TestPlanUndefined(t *testing.T) {
	if r := planReport(&Input{}); r != nil {
		t.Errorf("no plan gives %+v", r)
	}
	base := planCase{design: "active", verdicts: repeat(1, 4), probs: repeat(0.5, 4), selected: []int{0, 1}, labels: map[int][]Label{}}
	for _, tc := range []struct {
		name   string
		edit   func(*Input)
		reason string
	}{
		{"nothing labelled", func(*Input) {}, "no planned item is labelled yet (0 of 2)"},
		{"bad design", func(in *Input) { in.Plan.Design = "clever" }, "the plan's design is not known"},
		{"bad dimension", func(in *Input) { in.Plan.Dimension = "nope" }, `the plan's dimension "nope"`},
		{"nominal", func(in *Input) {
			in.Judges[0].Dimensions[0].Scale = "nominal:x,y"
		}, "binary or ordinal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base.input()
			tc.edit(&in)
			r := planReport(&in)
			if r.Score.Defined() || !strings.Contains(r.Score.Reason, tc.reason) {
				t.Errorf("score %+v, want undefined because %q", r.Score, tc.reason)
			}
			b, err := json.Marshal(r)
			if err != nil || strings.Contains(string(b), "NaN") {
				t.Fatalf("JSON %s, %v", b, err)
			}
			checkIntervals(t, b)
		})
	}
	// One label: a value, no bounds, and a note.
	one := base
	one.labels = map[int][]Label{0: planLabel(1)}
	r := planReport(planPtr(one.input()))
	if !r.Score.Defined() || r.Score.HasBounds() || r.Stop.HalfWidth.Defined() {
		t.Errorf("one label: score %+v, stop %+v", r.Score, r.Stop)
	}
}

// TestPlanOrdinal: a Likert dimension gives a mean score, bounds clamped
// to the scale.
func TestPlanOrdinal(t *testing.T) {
	in := Input{
		Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "q", Scale: judge.Likert}}}},
		Plan:   &PlanInput{ID: 2, Design: "uniform", Judge: "j", Dimension: "q", Target: 3},
	}
	ys := []float64{5, 4, 1}
	for i := range 6 {
		u := Unit{ItemID: "i" + strconv.Itoa(i)}
		v := 3.0
		pu := PlanUnit{Unit: i, Probability: 0.5, Selected: i < 3, Verdict: &v}
		if i < 3 {
			u.Labels = []Label{{Annotator: "a", Values: map[string]float64{"q": ys[i]}, Provenance: "plan:2"}}
		}
		in.Units = append(in.Units, u)
		in.Plan.Units = append(in.Plan.Units, pu)
	}
	r := planReport(&in)
	if r.Measure != MeasureMeanScore {
		t.Errorf("measure %q", r.Measure)
	}
	// Score: (18 + (2 + 1 − 2)/0.5)/6 = 3.333…; bounds within [1, 5].
	planNear(t, "score", r.Score.Value, (18+2.0)/6)
	if r.Score.Low < 1 || r.Score.High > 5 {
		t.Errorf("score bounds %v %v", r.Score.Low, r.Score.High)
	}
	planNear(t, "agreement", r.Agreement.Value, 0)
}

// TestPlanStopRule: reached when the half-width is within the target;
// otherwise the labels asked for are what the variance model says brings
// it there, and the plan size allows for "can't judge".
func TestPlanStopRule(t *testing.T) {
	fig := planFigure{value: 0.5, se: 0.05, df: 1e9}
	h := fig.halfWidth()
	st := stopRule(0.05, fig, 100, 0, 2000)
	if st.Reached || st.More.Value <= 0 {
		t.Fatalf("stop %+v", st)
	}
	m := 100 + st.More.Value
	// The half-width at m under the c·(1/m − 1/N) model is at most the
	// target, and one label fewer is not.
	at := func(m float64) float64 { return h * math.Sqrt((1/m-1.0/2000)/(1/100.0-1.0/2000)) }
	if at(m) > 0.05+1e-12 || at(m-1) <= 0.05 {
		t.Errorf("more %v: half-width %v at m, %v at m−1", st.More.Value, at(m), at(m-1))
	}
	planNear(t, "plan size", st.PlanSize.Value, m)
	withCant := stopRule(0.05, fig, 100, 25, 2000) // 80 % respond
	planNear(t, "plan size with can't judge", withCant.PlanSize.Value, math.Ceil(m/0.8))

	reached := stopRule(0.2, fig, 100, 0, 2000)
	if !reached.Reached || reached.More.Value != 0 {
		t.Errorf("reached %+v", reached)
	}
}

// TestPlanProvenanceClasses: labels made following a uniform or
// stratified plan are fair random labels; an active plan's, or those of a
// plan whose design is not given, are set apart (Selection.Planned) and
// leave the unweighted estimates to the random labels.
func TestPlanProvenanceClasses(t *testing.T) {
	mk := func(prov string, designs map[int]string) Selection {
		in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "ok", Scale: judge.Binary}}}}, PlanDesigns: designs}
		for i := range 6 {
			u := Unit{ItemID: "i" + strconv.Itoa(i), Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"ok": 1}}}}
			if i < 3 {
				u.Labels = []Label{{Annotator: "a", Values: map[string]float64{"ok": float64(i % 2)}, Provenance: prov}}
			}
			in.Units = append(in.Units, u)
		}
		rep := Compute(in, Options{Resamples: -1})
		return rep.Judges[0].Dimensions[0].Overall.Selection
	}
	for _, tc := range []struct {
		name              string
		prov              string
		designs           map[int]string
		unbiased, planned int
	}{
		{"uniform plan", "plan:1", map[int]string{1: "uniform"}, 3, 0},
		{"stratified plan", "plan:1", map[int]string{1: "stratified"}, 3, 0},
		{"active plan", "plan:1", map[int]string{1: "active"}, 0, 3},
		{"unknown plan", "plan:4", map[int]string{1: "uniform"}, 0, 3},
		{"random", "random", nil, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel := mk(tc.prov, tc.designs)
			if sel.Unbiased != tc.unbiased || sel.Planned != tc.planned {
				t.Errorf("unbiased %d planned %d, want %d %d", sel.Unbiased, sel.Planned, tc.unbiased, tc.planned)
			}
			if tc.planned > 0 && (sel.Fair != 0 || !strings.Contains(sel.Warning, "active plan")) {
				t.Errorf("fair %d warning %q", sel.Fair, sel.Warning)
			}
		})
	}
	// The benchmark estimate says why it is missing.
	in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "ok", Scale: judge.Binary}}}}, PlanDesigns: map[int]string{1: "active"}}
	for i := range 4 {
		u := Unit{ItemID: "i" + strconv.Itoa(i), Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"ok": 1}}}}
		if i < 2 {
			u.Labels = []Label{{Annotator: "a", Values: map[string]float64{"ok": 1}, Provenance: "plan:1"}}
		}
		in.Units = append(in.Units, u)
	}
	b := Compute(in, Options{Resamples: -1}).Judges[0].Dimensions[0].Overall.Benchmark
	if b == nil || b.PPI.Reason != reasonPlanned {
		t.Errorf("benchmark %+v", b)
	}
}

// TestComputeFillsPlan: Compute fills Report.Plan from Input.Plan, and
// its JSON uses snake_case names.
func TestComputeFillsPlan(t *testing.T) {
	pc := planCase{
		design:   "uniform",
		verdicts: []float64{1, 1, 0, 1, 1, 0, 1, 1, 0, 1},
		probs:    repeat(0.4, 10),
		selected: []int{0, 1, 2, 3},
		labels:   map[int][]Label{0: planLabel(1), 1: planLabel(0), 2: planLabel(0), 3: planLabel(1)},
	}
	in := pc.input()
	in.PlanDesigns = map[int]string{1: "uniform"}
	rep := Compute(in, Options{Resamples: -1})
	if rep.Plan == nil || rep.Plan.Labelled != 4 {
		t.Fatalf("plan %+v", rep.Plan)
	}
	if got := rep.Judges[0].Dimensions[0].Overall.Selection.Unbiased; got != 4 {
		t.Errorf("a uniform plan's labels: %d unbiased, want 4", got)
	}
	b, _ := json.Marshal(rep)
	for _, key := range []string{`"plan":{"id":1,"design":"uniform"`, `"human_mean_hajek"`, `"design_effect"`, `"stop":{"figure":"score","target_width":0.05`, `"off_plan"`, `"uniform_equivalent"`, `"plan_size"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	checkIntervals(t, b)
	if Compute(Input{}, Options{}).Plan != nil {
		t.Error("a report without a plan has one")
	}
}

// TestPlanGolden pins the JSON shape of the plan section, as
// TestReportGolden does the rest: an active plan with an item taken with
// certainty, a "can't judge", an item not yet labelled and a label off the
// plan. Rewrite it with go test -run TestPlanGolden -update.
func TestPlanGolden(t *testing.T) {
	pc := planCase{
		design:   "active",
		verdicts: []float64{1, 1, 0, 1, 0, 1, 1, 0, 1, 1, math.NaN(), 1},
		probs:    []float64{1, 0.6, 0.4, 0.5, 0.3, 0.2, 0.2, 0.5, 0.3, 0.4, 0.3, 0.3},
		selected: []int{0, 1, 2, 3, 4, 7, 9},
		labels: map[int][]Label{
			0: planLabel(1), 1: planLabel(0), 2: planLabel(0), 3: planLabel(1), 7: planLabel(1),
			9: {{Annotator: "bo", Values: map[string]float64{"ok": 1}, Provenance: "filter:disagreements"}},
		},
		cant: []int{4},
	}
	r := Compute(pc.input(), Options{Seed: 1, Resamples: -1})
	got, err := json.MarshalIndent(struct {
		Plan *PlanReport `json:"plan"`
	}{r.Plan}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "plan.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if err := sameJSON(got, want); err != nil {
		t.Errorf("plan JSON differs from %s: %v; if the change is intended, run with -update and say so in the commit", path, err)
	}
}

// TestPlanStaleRows: a row naming a unit that holds another item is
// ignored with a note.
func TestPlanStaleRows(t *testing.T) {
	pc := planCase{design: "uniform", verdicts: repeat(1, 4), probs: repeat(0.5, 4), selected: []int{0, 1},
		labels: map[int][]Label{0: planLabel(1), 1: planLabel(0)}}
	in := pc.input()
	in.Plan.Units[3].ItemID = "elsewhere"
	r := planReport(&in)
	if r.Items != 3 || !strings.Contains(strings.Join(r.Notes, " "), "not at the unit they name") {
		t.Errorf("items %d notes %q", r.Items, r.Notes)
	}
}
