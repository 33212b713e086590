package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/plan"
)

// planItems40 are 40 items, in categories a (10), b (10) and c (20).
func planItems40() []judge.Item {
	items := make([]judge.Item, 40)
	for i := range items {
		cat := []string{"a", "b", "c", "c"}[i%4]
		items[i] = judge.Item{Index: i, ID: fmt.Sprintf("p%02d", i), Question: "q", Gold: "g", Prediction: "p",
			Segments: map[string]string{"category": cat}}
	}
	return items
}

// planSession is a session of planItems40 with a binary judge "conf"
// whose verdicts carry a confidence (item i: 0.5 + i/80; item 3's withheld
// as meaningless, item 5 judged by three samples, item 7 an api_error)
// and, when ordinal, a Likert judge "score" (item i scores 1 + i%5).
func planSession(t *testing.T, ordinal bool) (*Store, Run) {
	t.Helper()
	s := openStore(t, sessionPath(t), "ann")
	if err := s.InitDataset(DatasetInfo{Path: "plan.jsonl", SHA256: "abc", Format: "jsonl"}, planItems40()); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(binaryInfo("conf", "m"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []judge.Verdict
	for i := range 40 {
		c := 0.5 + float64(i)/80
		v := judge.Verdict{ItemID: fmt.Sprintf("p%02d", i), Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)}, Confidence: &c}
		switch i {
		case 3:
			v.Extra = map[string]any{ExtraConfidenceWithheld: "the answer's token is under a thousandth as likely as the top one"}
		case 5:
			v.Confidence = nil
			v.Extra = map[string]any{ExtraSamples: []any{
				map[string]any{"status": "ok", "values": map[string]any{"correct": 1}},
				map[string]any{"status": "ok", "values": map[string]any{"correct": 1}},
				map[string]any{"status": "ok", "values": map[string]any{"correct": 0}},
				map[string]any{"status": "parse_error"},
			}}
		case 7:
			v = judge.Verdict{ItemID: v.ItemID, Status: judge.StatusAPIError, Error: "down"}
		}
		vs = append(vs, v)
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	if ordinal {
		r2, err := s.EnsureRun(judge.Info{Name: "score", Model: "m", Dimensions: []judge.Dimension{{Name: "quality", Scale: judge.Likert}}})
		if err != nil {
			t.Fatal(err)
		}
		var ss []judge.Verdict
		for i := range 40 {
			ss = append(ss, judge.Verdict{ItemID: fmt.Sprintf("p%02d", i), Status: judge.StatusOK, Values: map[string]float64{"quality": float64(1 + i%5)}})
		}
		if err := s.SaveVerdicts(r2.ID, ss); err != nil {
			t.Fatal(err)
		}
	}
	return s, run
}

func TestCreatePlanActive(t *testing.T) {
	s, run := planSession(t, false)
	dr, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 10, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	p := dr.Plan
	if p.ID != 1 || p.N != 10 || p.RunID != run.ID || p.Judge != "conf · m" || p.Dimension != "correct" || p.Items != 40 || p.Floor != plan.DefaultFloor {
		t.Fatalf("plan %+v", p)
	}
	if len(dr.Units) != 40 || len(dr.Selected) != 10 {
		t.Fatalf("%d units, %d selected", len(dr.Units), len(dr.Selected))
	}
	sum := 0.0
	for _, u := range dr.Units {
		sum += u.Probability
		if !(u.Probability >= plan.DefaultFloor*10/40-1e-12) {
			t.Errorf("%s: λ %v under the floor", u.ItemID, u.Probability)
		}
	}
	if math.Abs(sum-10) > 1e-9 {
		t.Errorf("Σλ = %v", sum)
	}
	// The current ok verdict's id is recorded; the api_error gives none.
	ids := dumpRows(t, s.w, `SELECT item_id, verdict_id FROM plan_units WHERE item_id IN ('p00', 'p07') ORDER BY item_id`)
	var v0 int64
	s.w.QueryRow(`SELECT id FROM verdicts WHERE item_id = 'p00'`).Scan(&v0)
	if want := []string{fmt.Sprintf("item_id=p00 verdict_id=%d", v0), "item_id=p07 verdict_id=<nil>"}; !slices.Equal(ids, want) {
		t.Errorf("plan rows %v, want %v", ids, want)
	}
	why := map[string]string{}
	size := map[string]float64{}
	for _, u := range dr.Units {
		why[u.ItemID], size[u.ItemID] = u.Why, u.Size
	}
	// Item 0: confidence 0.5 -> √0.5; item 5: 2 of 3 readable samples agree
	// with its value 1... its value is 5%2 = 1: two samples say 1.
	if math.Abs(size["p00"]-math.Sqrt(0.5)) > 1e-12 || !strings.Contains(why["p00"], "uncertainty 0.71 (confidence 0.5)") {
		t.Errorf("p00: size %v, why %q", size["p00"], why["p00"])
	}
	if math.Abs(size["p05"]-math.Sqrt(1.0/3)) > 1e-12 || !strings.Contains(why["p05"], "2 of 3 samples agree") {
		t.Errorf("p05: size %v, why %q", size["p05"], why["p05"])
	}
	// Withheld and missing: the mean of the known ones.
	known, total := 0, 0.0
	for id, sz := range size {
		if id != "p03" && id != "p07" {
			known++
			total += sz
		}
	}
	mean := total / float64(known)
	for _, id := range []string{"p03", "p07"} {
		if math.Abs(size[id]-mean) > 1e-12 || !strings.Contains(why[id], "the mean") {
			t.Errorf("%s: size %v (mean %v), why %q", id, size[id], mean, why[id])
		}
	}
	if dr.Known != 38 || math.Abs(dr.MeanUncertainty-mean) > 1e-12 {
		t.Errorf("known %d, mean %v", dr.Known, dr.MeanUncertainty)
	}
	// The most confident item is at the floor.
	if !strings.HasPrefix(why["p39"], "floor: ") {
		t.Errorf("p39: %q", why["p39"])
	}

	// A re-judge after the plan changes neither the plan nor its reading.
	c := 0.99
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "p00", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}, Confidence: &c}}); err != nil {
		t.Fatal(err)
	}
	again, err := s.Plan(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	again.Plan.Created = dr.Plan.Created
	if fmt.Sprintf("%+v", again) != fmt.Sprintf("%+v", dr) {
		t.Errorf("Plan(%d) after a re-judge:\n%+v\nCreatePlan gave:\n%+v", p.ID, again, dr)
	}
	plans, err := s.Plans()
	if err != nil || len(plans) != 1 || plans[0].ID != p.ID || plans[0].Items != 40 {
		t.Errorf("Plans: %+v %v", plans, err)
	}
	// Another plan gets the next id.
	dr2, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 10, Seed: 7, Judge: "conf · m"})
	if err != nil {
		t.Fatal(err)
	}
	if dr2.Plan.ID != 2 {
		t.Errorf("second plan id %d", dr2.Plan.ID)
	}
}

func TestCreatePlanDesigns(t *testing.T) {
	s, _ := planSession(t, true)
	// Uniform: the n items of smallest PRN.
	dr, err := s.CreatePlan(PlanOptions{Design: plan.Uniform, N: 8, Seed: 3, Judge: "conf · m"})
	if err != nil {
		t.Fatal(err)
	}
	byPRN := slices.Clone(dr.Units)
	slices.SortFunc(byPRN, func(a, b PlanUnit) int { return cmpFloat(a.PRN, b.PRN) })
	for k, i := range dr.Selected {
		if dr.Units[i].ItemID != byPRN[k].ItemID || dr.Units[i].Why != "uniform: 8 of 40" || dr.Units[i].Probability != 0.2 {
			t.Errorf("uniform pick %d: %+v, want %s", k, dr.Units[i], byPRN[k].ItemID)
		}
	}
	// Stratified by category: 2 of a, 2 of b, 4 of c.
	dr, err = s.CreatePlan(PlanOptions{Design: plan.Stratified, N: 8, Seed: 3, Judge: "score · m", Stratify: "category"})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, i := range dr.Selected {
		per[dr.Units[i].Stratum]++
	}
	if per["a"] != 2 || per["b"] != 2 || per["c"] != 4 || dr.Units[dr.Selected[0]].Why == "" || !strings.HasPrefix(dr.Units[0].Why, "stratum category=a: 2 of 10") || len(dr.Notes) != 0 {
		t.Errorf("stratified: %v, why %q, notes %v", per, dr.Units[0].Why, dr.Notes)
	}
	// Below two per stratum: a note says which strata have one.
	dr, err = s.CreatePlan(PlanOptions{Design: plan.Stratified, N: 4, Seed: 3, Judge: "score · m", Stratify: "category"})
	if err != nil {
		t.Fatal(err)
	}
	if len(dr.Notes) != 1 || !strings.HasPrefix(dr.Notes[0], `2 strata of category "a", "b" have 1 planned item`) || !strings.Contains(dr.Notes[0], "-n 6 or more") ||
		strings.Contains(dr.Notes[0], "no interval") || !strings.Contains(dr.Notes[0], "theirs will be estimated together with the stratum nearest in probability (collapsed strata)") {
		t.Errorf("notes %v", dr.Notes)
	}
	// Active on a Likert score: a 3 is the most uncertain, 1 and 5 the least.
	dr, err = s.CreatePlan(PlanOptions{Design: plan.Active, N: 8, Seed: 3, Judge: "score · m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range dr.Units {
		var i int
		fmt.Sscanf(u.ItemID, "p%d", &i)
		want := map[int]float64{1: 0, 2: 0.5, 3: 1, 4: 0.5, 5: 0}[1+i%5]
		if u.Size != want || !strings.Contains(u.Why, fmt.Sprintf("score %d, cut 3", 1+i%5)) {
			t.Fatalf("%s: size %v, why %q; want %v", u.ItemID, u.Size, u.Why, want)
		}
	}
}

func TestCreatePlanRefusals(t *testing.T) {
	s, _ := planSession(t, true)
	nominal, err := s.EnsureRun(judge.Info{Name: "kind", Model: "m", Dimensions: []judge.Dimension{{Name: "grade", Scale: "nominal:CORRECT,INCORRECT"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(nominal.ID, []judge.Verdict{{ItemID: "p00", Status: judge.StatusOK, Values: map[string]float64{"grade": 1}}}); err != nil {
		t.Fatal(err)
	}
	empty := openStore(t, sessionPath(t), "ann")
	if err := empty.InitDataset(DatasetInfo{Path: "plan.jsonl", SHA256: "abc", Format: "jsonl"}, planItems40()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    *Store
		o    PlanOptions
		want string
	}{
		{"several judges", s, PlanOptions{Design: plan.Active, N: 5}, `verdicts of 2 judges ("conf · m", "score · m"): say which one the plan reads with --judge NAME`},
		{"unknown judge", s, PlanOptions{Design: plan.Active, N: 5, Judge: "nope"}, `no judge "nope" with verdicts on whole items in session`},
		{"n too large", s, PlanOptions{Design: plan.Uniform, N: 41, Judge: "conf · m"}, "-n 41 but session"},
		{"n zero", s, PlanOptions{Design: plan.Uniform, N: 0}, "ask for 1 or more"},
		{"active without verdicts", empty, PlanOptions{Design: plan.Active, N: 5}, "an active plan samples by how unsure the judge is"},
		{"stratified without a field", s, PlanOptions{Design: plan.Stratified, N: 5, Judge: "conf · m"}, "--stratify FIELD"},
		{"stratify without stratified", s, PlanOptions{Design: plan.Uniform, N: 5, Judge: "conf · m", Stratify: "category"}, "is for --design stratified"},
		{"unknown field", s, PlanOptions{Design: plan.Stratified, N: 5, Judge: "conf · m", Stratify: "colour"}, `no row has a field "colour"`},
		{"unknown design", s, PlanOptions{Design: "clever", N: 5}, `unknown design "clever"`},
		{"nominal judge", s, PlanOptions{Design: plan.Active, N: 5, Judge: "kind · m"}, `judge "kind · m" rates grade on a nominal scale (nominal:CORRECT,INCORRECT): a plan estimates a pass rate or a mean score, so it needs a binary or ordinal judge: "conf · m", "score · m"`},
		{"fewer than the strata", s, PlanOptions{Design: plan.Stratified, N: 2, Judge: "conf · m", Stratify: "category"}, `-n 2 is fewer than the 3 values of "category"`},
	} {
		_, err := c.s.CreatePlan(c.o)
		if err == nil || !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrPlan with %q", c.name, err, c.want)
		}
	}
	if ps, _ := s.Plans(); len(ps) != 0 {
		t.Errorf("refused plans were recorded: %+v", ps)
	}
	// A uniform plan needs no judge.
	dr, err := empty.CreatePlan(PlanOptions{Design: plan.Uniform, N: 40, Seed: 1})
	if err != nil || dr.Plan.RunID != 0 || dr.Plan.Judge != "" || len(dr.Selected) != 40 {
		t.Errorf("uniform plan without a judge: %+v, %v", dr.Plan, err)
	}
	if _, err := s.Plan(9); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "it has none yet") {
		t.Errorf("Plan(9): %v", err)
	}
}

func TestExtendPlan(t *testing.T) {
	s, _ := planSession(t, false)
	dr, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 6, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	ext, err := s.ExtendPlan(dr.Plan.ID, 15)
	if err != nil {
		t.Fatal(err)
	}
	if ext.Plan.N < 15 || len(ext.Selected) != ext.Plan.N {
		t.Fatalf("extended plan: n %d, %d selected", ext.Plan.N, len(ext.Selected))
	}
	for _, id := range dr.SelectedIDs() {
		if !ext.InPlan(id) {
			t.Errorf("%s left the plan on extension", id)
		}
	}
	for _, u := range ext.Units {
		chosen, n, items, err := s.PlanChose(ext.Plan.ID, u.ItemID)
		if err != nil || chosen != u.Selected || n != ext.Plan.N || items != 40 {
			t.Errorf("PlanChose(%s): %v %d %d %v, the plan says %v", u.ItemID, chosen, n, items, err, u.Selected)
		}
	}
	if got := dumpRows(t, s.w, `SELECT n FROM plans`); got[0] != fmt.Sprintf("n=%d", ext.Plan.N) {
		t.Errorf("stored %v", got)
	}
	for _, n := range []int{15, 3, 41} {
		if _, err := s.ExtendPlan(dr.Plan.ID, n); !errors.Is(err, ErrPlan) {
			t.Errorf("ExtendPlan to %d: %v, want ErrPlan", n, err)
		}
	}
	if _, err := s.ExtendPlan(5, 20); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "its plans are 1") {
		t.Errorf("ExtendPlan of an unknown plan: %v", err)
	}
}

// TestStatsInputPlan: the statistics read the newest plan (or the one
// asked for) with every item's unit, probability, selection and the
// verdict recorded when the plan was drawn.
func TestStatsInputPlan(t *testing.T) {
	s, run := planSession(t, true)
	in, err := s.StatsInput()
	if err != nil || in.Plan != nil || in.PlanDesigns != nil {
		t.Fatalf("no plan: %+v %v %v", in.Plan, in.PlanDesigns, err)
	}
	first, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 10, Seed: 5, Judge: "conf · m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePlan(PlanOptions{Design: plan.Stratified, N: 6, Seed: 5, Judge: "score · m", Stratify: "category"}); err != nil {
		t.Fatal(err)
	}
	// A re-judge after the plans: the plan keeps its verdict.
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "p00", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}}); err != nil {
		t.Fatal(err)
	}
	in, err = s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if in.Plan == nil || in.Plan.ID != 2 || in.Plan.Design != "stratified" || in.Plan.Dimension != "quality" || in.Plan.Judge != "score · m" {
		t.Fatalf("newest plan: %+v", in.Plan)
	}
	// Plan 2 gives each of a (10), b (10), c (20) two items: rates 0.2, 0.2,
	// 0.1, not a fair sample unweighted.
	if fmt.Sprint(in.PlanDesigns) != "map[1:active 2:stratified-unequal]" {
		t.Errorf("designs %v", in.PlanDesigns)
	}
	for _, c := range []struct {
		n    int
		want string
	}{{8, "stratified"}, {6, "stratified-unequal"}, {3, "stratified-unequal"}} {
		var got string
		err := s.read("test", func(tx *sql.Tx) error {
			var err error
			got, err = planDesignForLabels(tx, Plan{ID: 2, Design: plan.Stratified, N: c.n})
			return err
		})
		if err != nil || got != c.want {
			t.Errorf("n %d: %q %v, want %q", c.n, got, err, c.want)
		}
	}
	in, err = s.StatsInputWith(StatsOptions{PlanID: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Plan
	if p.ID != 1 || p.Design != "active" || p.Seed != 5 || p.Judge != "conf · m" || p.Dimension != "correct" || p.Target != 10 || len(p.Units) != 40 {
		t.Fatalf("plan 1: %+v", p)
	}
	selected := 0
	for i, u := range p.Units {
		unit := in.Units[u.Unit]
		want := first.Units[i]
		if unit.ItemID != want.ItemID || u.ItemID != want.ItemID || unit.Criterion != 0 || u.Probability != want.Probability || u.Selected != want.Selected {
			t.Errorf("row %d: unit %s/%d λ %v %v, want %+v", i, unit.ItemID, unit.Criterion, u.Probability, u.Selected, want)
		}
		if u.Selected {
			selected++
		}
		var k int
		fmt.Sscanf(want.ItemID, "p%d", &k)
		switch {
		case k == 7 && u.Verdict != nil:
			t.Errorf("p07 (api_error) has verdict %v", *u.Verdict)
		case k != 7 && (u.Verdict == nil || *u.Verdict != float64(k%2)):
			t.Errorf("%s: verdict %v, want %d (the one recorded, not the re-judge)", want.ItemID, u.Verdict, k%2)
		}
	}
	if selected != 10 {
		t.Errorf("%d selected", selected)
	}
	if in, err = s.StatsInputWith(StatsOptions{PlanID: PlanNone}); err != nil || in.Plan != nil || len(in.PlanDesigns) != 2 {
		t.Errorf("PlanNone: %+v %v", in.Plan, err)
	}
	if _, err = s.StatsInputWith(StatsOptions{PlanID: 4}); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "its plans are 1, 2") {
		t.Errorf("PlanID 4: %v", err)
	}
}

// TestPlanAllocateIsSamples: a stratified plan shares n among strata as
// gavel sample --stratify does when n is below twice the number of
// strata or every stratum's share is two or more anyway (above that, a
// plan gives each stratum two, for its variance).
func TestPlanAllocateIsSamples(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		n     int
	}{{[]int{10, 20, 30}, 12}, {[]int{1, 1, 98}, 10}, {[]int{1, 1, 98}, 2}, {[]int{5, 5, 5}, 4}, {[]int{3}, 5}, {[]int{9, 9, 9, 9}, 7}, {[]int{10, 10, 10}, 9}} {
		if a, b := allocate(c.sizes, c.n), plan.Allocate(c.sizes, c.n); !slices.Equal(a, b) {
			t.Errorf("%v, %d: sessions %v, plan %v", c.sizes, c.n, a, b)
		}
	}
}

func FuzzParsePlanVia(f *testing.F) {
	for _, s := range []string{"plan:1", "plan:12", "plan:0", "plan:-1", "plan:01", "plan:", "plan:x", "random", "plan:+3", "plan:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, via string) {
		id, ok := ParsePlanVia(via)
		if !ok {
			if id != 0 {
				t.Fatalf("%q: id %d without ok", via, id)
			}
			return
		}
		if id < 1 || PlanVia(id) != via {
			t.Fatalf("%q read as %d, which writes %q", via, id, PlanVia(id))
		}
	})
}

// TestActivePlanFallsBackToUniform: verdicts that say nothing of their
// certainty, or that are all fully sure, give every item the same
// probability, and a note says why.
func TestActivePlanFallsBackToUniform(t *testing.T) {
	for _, c := range []struct {
		name string
		conf *float64
		note string
	}{
		{"no confidence", nil, "says how unsure it is (no confidence, no samples, no ordinal score): with every item's uncertainty unknown, every item has the same probability"},
		{"all sure", func() *float64 { x := 1.0; return &x }(), "is fully sure"},
	} {
		s := openStore(t, sessionPath(t), "ann")
		if err := s.InitDataset(DatasetInfo{Path: "plan.jsonl", SHA256: "abc", Format: "jsonl"}, planItems40()); err != nil {
			t.Fatal(err)
		}
		run, err := s.EnsureRun(binaryInfo("conf", "m"))
		if err != nil {
			t.Fatal(err)
		}
		var vs []judge.Verdict
		for i := range 40 {
			vs = append(vs, judge.Verdict{ItemID: fmt.Sprintf("p%02d", i), Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Confidence: c.conf})
		}
		if err := s.SaveVerdicts(run.ID, vs); err != nil {
			t.Fatal(err)
		}
		dr, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 10, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range dr.Units {
			if math.Abs(u.Probability-0.25) > 1e-12 || !strings.HasPrefix(u.Why, "uniform: ") {
				t.Fatalf("%s: %s λ %v, why %q", c.name, u.ItemID, u.Probability, u.Why)
			}
		}
		if len(dr.Notes) != 1 || !strings.Contains(dr.Notes[0], c.note) {
			t.Errorf("%s: notes %v", c.name, dr.Notes)
		}
	}
}

// TestActivePlanFromJudgesAgreement: verdicts without a confidence take
// their uncertainty from the other judges of the same dimension and
// scale: √(1 − c), c the share of the judges that agree. A re-judge made
// after the plan changes neither its sizes nor its reasons.
func TestActivePlanFromJudgesAgreement(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	if err := s.InitDataset(DatasetInfo{Path: "plan.jsonl", SHA256: "abc", Format: "jsonl"}, planItems40()); err != nil {
		t.Fatal(err)
	}
	// Item i: judge a says 1; b says 1 when i%2 == 0; c says 1 when i%4 == 0.
	var runs []Run
	for k, name := range []string{"a", "b", "c"} {
		run, err := s.EnsureRun(binaryInfo(name, "m"))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
		var vs []judge.Verdict
		for i := range 40 {
			v := 0.0
			if k == 0 || k == 1 && i%2 == 0 || k == 2 && i%4 == 0 {
				v = 1
			}
			vs = append(vs, judge.Verdict{ItemID: fmt.Sprintf("p%02d", i), Status: judge.StatusOK, Values: map[string]float64{"correct": v}})
		}
		if err := s.SaveVerdicts(run.ID, vs); err != nil {
			t.Fatal(err)
		}
	}
	dr, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 10, Seed: 1, Judge: "a · m"})
	if err != nil {
		t.Fatal(err)
	}
	check := func(dr PlanDraw) {
		t.Helper()
		for _, u := range dr.Units {
			var i int
			fmt.Sscanf(u.ItemID, "p%d", &i)
			agree := 1 + map[bool]int{true: 1}[i%2 == 0] + map[bool]int{true: 1}[i%4 == 0]
			if want := math.Sqrt(1 - float64(agree)/3); math.Abs(u.Size-want) > 1e-12 || !strings.Contains(u.Why, fmt.Sprintf("(%d of 3 judges agree)", agree)) {
				t.Fatalf("%s: size %v, why %q; want %v with %d of 3", u.ItemID, u.Size, u.Why, want, agree)
			}
		}
	}
	check(dr)
	// c now agrees with a everywhere, later than the plan.
	var vs []judge.Verdict
	for i := range 40 {
		vs = append(vs, judge.Verdict{ItemID: fmt.Sprintf("p%02d", i), Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, At: dr.Plan.Created.Add(time.Hour)})
	}
	if err := s.SaveVerdicts(runs[2].ID, vs); err != nil {
		t.Fatal(err)
	}
	again, err := s.Plan(dr.Plan.ID)
	if err != nil {
		t.Fatal(err)
	}
	check(again)
}

// TestPlanChoiceForStats: a plan identical to one the session has is
// refused; by default the statistics read the newest plan with labels
// made on it, not a newer one nobody labelled.
func TestPlanChoiceForStats(t *testing.T) {
	s, _ := planSession(t, false)
	first, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 6, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 6, Seed: 2}); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "already has this plan: plan 1") {
		t.Errorf("identical plan: %v", err)
	}
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: first.SelectedIDs()[0], Dimension: "correct", Value: 1, Via: "plan:1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePlan(PlanOptions{Design: plan.Uniform, N: 6, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   int64
		want int
	}{{PlanNewest, 1}, {2, 2}, {1, 1}} {
		in, err := s.StatsInputWith(StatsOptions{PlanID: c.id})
		if err != nil || in.Plan == nil || in.Plan.ID != c.want {
			t.Errorf("PlanID %d: %+v %v, want plan %d", c.id, in.Plan, err, c.want)
		}
	}
}

func TestSampleValues(t *testing.T) {
	for _, c := range []struct {
		extra         string
		values, confs string
	}{
		{`{"samples":[{"status":"ok","values":{"correct":1},"confidence":0.9},{"status":"ok","values":{"correct":0}},{"status":"parse_error"}]}`, "[1 0]", "[0.9 NaN]"},
		{`{"samples":[{"status":"ok","values":{"correct":1}},{"status":"ok","values":{"other":0}}]}`, "[1]", "[]"},
		{`{"agreement":1}`, "[]", "[]"},
		{`{"samples":"broken"}`, "[]", "[]"},
	} {
		v, cf := sampleValues(c.extra, "correct")
		if fmt.Sprint(v) != c.values || fmt.Sprint(cf) != c.confs {
			t.Errorf("%s: %v %v, want %s %s", c.extra, v, cf, c.values, c.confs)
		}
	}
}

// TestPlanAnnotators: a selected row lists who labelled the item on the
// plan, also when a later label of theirs made another way replaced it;
// an undone plan label does not count, nor another plan's.
func TestPlanAnnotators(t *testing.T) {
	s, _ := planSession(t, false)
	dr, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 6, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	ids := dr.SelectedIDs()
	rec := func(annotator, item, via string) {
		t.Helper()
		s2 := s
		if annotator != "ann" {
			s2 = openStore(t, s.path, annotator)
			defer s2.Close()
		}
		if _, err := s2.Record([]Action{{Kind: KindLabel, ItemID: item, Dimension: "correct", Value: 1, Via: via}}); err != nil {
			t.Fatal(err)
		}
	}
	rec("ann", ids[0], "plan:1")
	rec("ann", ids[0], "script") // a correction made another way
	rec("bob", ids[0], "plan:1")
	rec("bob", ids[1], "plan:2") // another plan
	rec("cy", ids[2], "plan:1")
	s3 := openStore(t, s.path, "cy")
	if _, err := s3.UndoItem(ids[2]); err != nil {
		t.Fatal(err)
	}
	s3.Close()
	in, err := s.StatsInputWith(StatsOptions{PlanID: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range in.Plan.Units {
		if len(u.PlanAnnotators) > 0 {
			got[u.ItemID] = strings.Join(u.PlanAnnotators, ",")
		}
	}
	if want := map[string]string{ids[0]: "ann,bob"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("plan annotators %v, want %v", got, want)
	}
}
