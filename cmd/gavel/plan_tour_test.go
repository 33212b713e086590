package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// A stratified plan's rows come in an order that interleaves the strata;
// rank is the place in that order (1, 2, 3… in text and JSONL alike) and
// stratum_rank the place within the stratum; --help says what the
// allocation does (tour finding 6).
func TestPlanStratifiedRanks(t *testing.T) {
	path := planTestSession(t, t.TempDir(), false)
	code, out, errs := run(t, "plan", path, "--design", "stratified", "--stratify", "category", "-n", "6", "--seed", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := planRows(t, out)
	if len(rows) != 6 {
		t.Fatalf("%d rows", len(rows))
	}
	strata := map[string]bool{}
	for k, r := range rows {
		if r.Rank != k+1 {
			t.Errorf("row %d has rank %d", k, r.Rank)
		}
		if k < 2 {
			strata[r.Stratum] = true
		}
		// x has 10 items, y 20: 2 and 4 of them, in rounds x y x y y y.
		if want := []int{1, 1, 2, 2, 3, 4}[k]; r.StratumRank != want {
			t.Errorf("row %d (%s) has stratum rank %d, want %d", k, r.Stratum, r.StratumRank, want)
		}
	}
	if len(strata) != 2 {
		t.Errorf("the first two rows are of strata %v, want both", strata)
	}
	code, text, errs := run(t, "plan", path, "--show", "1", "--format", "text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if f := strings.Fields(lines[0]); len(f) < 4 || f[0] != "rank" || f[1] != "in" || f[2] != "stratum" || f[3] != "id" {
		t.Errorf("text head %q", lines[0])
	}
	for k, l := range lines[1:] {
		if f := strings.Fields(l); f[0] != strconv.Itoa(k+1) || f[1] != strconv.Itoa(rows[k].StratumRank) || f[2] != rows[k].ID {
			t.Errorf("text row %d: %q", k, l)
		}
	}
	_, help, _ := run(t, "plan", "--help")
	if strings.Contains(help, "at least one each") || !strings.Contains(help, "at least two each when N") || !strings.Contains(help, "allows (else one each)") {
		t.Errorf("--help on strata:\n%s", help)
	}
}

// A uniform or stratified plan on a session with several judges needs
// --judge as an active one does (tour finding 2: the README said a
// uniform plan needs no judge): the refusal says why, whatever the
// design, and --help says the same; a session without judges draws it
// without one.
func TestPlanJudgeWhateverDesign(t *testing.T) {
	path := planTestSession(t, t.TempDir(), true)
	code, _, errs := run(t, "plan", path, "--design", "uniform", "-n", "3", "--seed", "1")
	if code != 2 || !strings.Contains(errs, "say which one the plan reads with --judge NAME") ||
		!strings.Contains(errs, "whatever the design: its estimates read that judge's dimension, and its verdicts correct the score") {
		t.Errorf("uniform with two judges: exit %d, %q", code, errs)
	}
	_, help, _ := run(t, "plan", "--help")
	if !strings.Contains(help, "needed when several judges have verdicts, whatever the design") {
		t.Errorf("--help on --judge:\n%s", help)
	}
}

// A plan drawn from a judge of several dimensions says which one its
// estimates are on (tour finding 7: it was picked silently).
func TestPlanNamesItsDimension(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dims.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "builder"})
	if err != nil {
		t.Fatal(err)
	}
	var items []judge.Item
	for i := range 10 {
		items = append(items, judge.Item{Index: i, ID: fmt.Sprintf("d%02d", i), Question: "q", Gold: "g", Prediction: "p"})
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl", Items: len(items)}, items); err != nil {
		t.Fatal(err)
	}
	qr, err := s.EnsureRun(judge.Info{Name: "quality", Dimensions: []judge.Dimension{{Name: "completeness", Scale: judge.Likert}, {Name: "correctness", Scale: judge.Likert}}})
	if err != nil {
		t.Fatal(err)
	}
	var vs []judge.Verdict
	for _, it := range items {
		vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"completeness": 3, "correctness": 4}})
	}
	if err := s.SaveVerdicts(qr.ID, vs); err != nil {
		t.Fatal(err)
	}
	s.Close()
	want := `Its estimates are on "completeness", the first of the judge's 2 dimensions ("completeness", "correctness")`
	for _, args := range [][]string{{"plan", path, "--design", "uniform", "-n", "3", "--seed", "1"}, {"plan", path, "--show", "1"}} {
		code, _, errs := run(t, args...)
		if code != 0 || !strings.Contains(errs, want) {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

// gavel plan lists how many items each plan has labelled on it (tour
// finding 13): labels made following it, an undone one left out.
func TestPlanListLabelled(t *testing.T) {
	path := planTestSession(t, t.TempDir(), false)
	code, out, errs := run(t, "plan", path, "--design", "uniform", "-n", "4", "--seed", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := planRows(t, out)
	for _, r := range rows[:3] {
		if code, _, errs := run(t, "label", path, r.ID, "YES", "--via", "plan:1", "--annotator", "ana"); code != 0 {
			t.Fatalf("label: exit %d: %s", code, errs)
		}
	}
	if code, _, errs := run(t, "label", path, rows[2].ID, "--undo", "--annotator", "ana"); code != 0 {
		t.Fatalf("undo: exit %d: %s", code, errs)
	}
	code, out, errs = run(t, "plan", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || strings.Fields(lines[0])[3] != "labelled" || strings.Fields(lines[1])[3] != "2" {
		t.Errorf("list: exit %d:\n%s%s", code, out, errs)
	}
}
