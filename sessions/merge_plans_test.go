package sessions

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/plan"
)

// planSessionAt is planSession at path, closed, with a plan of seed and
// labels by annotator on its first three chosen items via plan:1.
func planSessionAt(t *testing.T, path, annotator string, seed uint64, rejudge bool) []string {
	t.Helper()
	s, err := Open(path, Options{Annotator: annotator})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
		vs = append(vs, judge.Verdict{ItemID: fmt.Sprintf("p%02d", i), Status: judge.StatusOK, Raw: "r", Values: map[string]float64{"correct": float64(i % 2)}, Confidence: &c})
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	if rejudge { // a re-judge only this input has: ids shift in the merge
		c := 0.6
		if err := s.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "p01", Status: judge.StatusOK, Raw: "again", Values: map[string]float64{"correct": 0}, Confidence: &c}}); err != nil {
			t.Fatal(err)
		}
	}
	dr, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 8, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range dr.SelectedIDs()[:3] {
		if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: id, Dimension: "correct", Value: 1, Via: PlanVia(dr.Plan.ID)}}); err != nil {
			t.Fatal(err)
		}
	}
	return dr.SelectedIDs()
}

// TestMergePlans: each input's plan keeps its rows, its verdicts (mapped
// to the merged ids, repeats to the verdict kept) and its labels, which
// follow the plan's new id; a plan two copies share is kept once with the
// larger size.
func TestMergePlans(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.gavel"), filepath.Join(dir, "b.gavel")
	chosenA := planSessionAt(t, a, "ann", 1, false)
	chosenB := planSessionAt(t, b, "bob", 2, true)
	// A copy of a, whose plan was extended: the same plan, larger.
	c := filepath.Join(dir, "c.gavel")
	raw, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if raw, err := os.ReadFile(a + ext); err == nil {
			os.WriteFile(c+ext, raw, 0o644)
		}
	}
	sc := openStore(t, c, "ann")
	if _, err := sc.ExtendPlan(1, 12); err != nil {
		t.Fatal(err)
	}
	sc.Close()

	out := filepath.Join(dir, "merged.gavel")
	sum, err := Merge(out, []string{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Notes) != 0 {
		t.Errorf("notes %v", sum.Notes)
	}
	m := openStore(t, out, "ann")
	plans, err := m.Plans()
	if err != nil || len(plans) != 2 || plans[0].N != 12 || plans[1].N != 8 || plans[1].Seed != 2 {
		t.Fatalf("merged plans %+v %v", plans, err)
	}
	for k, want := range [][]string{chosenA, chosenB} {
		dr, err := m.Plan(plans[k].ID)
		if err != nil {
			t.Fatal(err)
		}
		if k == 1 && !slices.Equal(dr.SelectedIDs(), want) {
			t.Errorf("plan %d chooses %v, the input's chose %v", plans[k].ID, dr.SelectedIDs(), want)
		}
		for _, id := range want {
			if !dr.InPlan(id) {
				t.Errorf("plan %d lost %s", plans[k].ID, id)
			}
		}
	}
	// Every row's verdict is the merged run's verdict on that item, and
	// b's plan reads its own re-judge of p01.
	rows := dumpRows(t, m.w, `SELECT count(*) AS bad FROM plan_units u JOIN verdicts v ON v.id = u.verdict_id WHERE v.item_id <> u.item_id`)
	if rows[0] != "bad=0" {
		t.Errorf("%v", rows)
	}
	rows = dumpRows(t, m.w, `SELECT u.plan_id, v.raw FROM plan_units u JOIN verdicts v ON v.id = u.verdict_id WHERE u.item_id = 'p01' ORDER BY u.plan_id`)
	if fmt.Sprint(rows) != "[plan_id=1 raw=r plan_id=2 raw=again]" {
		t.Errorf("p01's verdicts: %v", rows)
	}
	// bob's labels followed b's plan 1, now plan 2; ann's stay on plan 1.
	rows = dumpRows(t, m.w, `SELECT annotator, via, count(*) AS n FROM actions GROUP BY annotator, via ORDER BY annotator`)
	if fmt.Sprint(rows) != "[annotator=ann via=plan:1 n=3 annotator=bob via=plan:2 n=3]" {
		t.Errorf("labels: %v", rows)
	}
}

// TestForeignPlanLabels: a plan:ID label brought from another session
// without its plan — by gavel import of an export, or merged from a
// session that holds no plan ID — becomes imported-plan:ID, so this
// session's plan ID never claims it.
func TestForeignPlanLabels(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.gavel")
	chosen := planSessionAt(t, a, "ann", 1, false)
	s := openStore(t, a, "ann")
	var buf bytes.Buffer
	if _, err := Export(s, &buf, ExportOptions{Format: "jsonl", Only: OnlyAll}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	back, _ := importWith(t, filepath.Join(dir, "back.gavel"), "export.jsonl", buf.String(), ImportOptions{})
	rows := dumpRows(t, back.w, `SELECT via, count(*) AS n FROM actions GROUP BY via`)
	if fmt.Sprint(rows) != "[via=imported-plan:1 n=3]" {
		t.Errorf("imported labels: %v", rows)
	}
	// The imported session draws its own plan 1: the labels stay apart.
	if _, err := back.CreatePlan(PlanOptions{Design: plan.Uniform, N: 8, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	in, err := back.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range in.Units {
		for _, l := range u.Labels {
			if l.Provenance != "imported-plan:1" || !slices.Contains(chosen, u.ItemID) {
				t.Errorf("%s: label %+v", u.ItemID, l)
			}
		}
	}
	back.Close()
	// Merged: back's labels name no plan of back (its plan 1 is another),
	// a's keep a's plan.
	out := filepath.Join(dir, "merged.gavel")
	if _, err := Merge(out, []string{a, filepath.Join(dir, "back.gavel")}); err != nil {
		t.Fatal(err)
	}
	m := openStore(t, out, "ann")
	rows = dumpRows(t, m.w, `SELECT via, count(*) AS n FROM actions GROUP BY via ORDER BY via`)
	if fmt.Sprint(rows) != "[via=imported-plan:1 n=3 via=plan:1 n=3]" {
		t.Errorf("merged labels: %v", rows)
	}
	if got := foreignPlanVia("script"); got != "script" {
		t.Errorf("foreignPlanVia(script) = %q", got)
	}
}
