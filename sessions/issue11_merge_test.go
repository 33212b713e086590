package sessions

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// judgedSession is a session whose LLM-like run judged every item once,
// with everything a verdict can carry.
func judgedSession(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ana.gavel")
	s, err := Open(path, Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "abc", Format: "jsonl"}, sampleItems()); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(binaryInfo("docqa", "gpt-x"))
	if err != nil {
		t.Fatal(err)
	}
	conf := 0.8123456789
	var vs []judge.Verdict
	for i, it := range sampleItems() {
		vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)},
			Reason: "because", Raw: `{"correct": "yes"}`, Model: "gpt-x", PromptTokens: 100, CompletionTokens: 7,
			Latency: 1234567 * time.Nanosecond, Confidence: &conf, Extra: map[string]any{"n": 1e21, "s": "x", "l": []any{1.5, "a"}}})
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	record(t, s, "q1", 1)
	return path
}

func verdictCount(t *testing.T, s *Store) (total, rejudged int) {
	t.Helper()
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		for _, it := range sampleItems() {
			h, err := s.VerdictHistory(r.ID, it.ID)
			if err != nil {
				t.Fatal(err)
			}
			total += len(h)
			if len(h) > 1 {
				rejudged++
			}
		}
	}
	return total, rejudged
}

// TestIssue11MergeSelfCopy: a session merged with a copy of itself, and
// with a copy that shares its judge run and went on labelling, keeps each
// verdict once — no phantom re-judge — while a real re-judge in one copy
// is kept.
func TestIssue11MergeSelfCopy(t *testing.T) {
	dir := t.TempDir()
	ana := judgedSession(t, dir)
	copyPath := filepath.Join(dir, "copy.gavel")
	copyFile(t, ana, copyPath)

	out := filepath.Join(dir, "self.gavel")
	sum, err := Merge(out, []string{ana, copyPath})
	if err != nil {
		t.Fatal(err)
	}
	n := len(sampleItems())
	if sum.Verdicts != n || sum.DuplicateVerdicts != n {
		t.Errorf("self merge: %d verdicts (%d duplicates), want %d (%d)", sum.Verdicts, sum.DuplicateVerdicts, n, n)
	}
	m, err := Open(out, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if total, rejudged := verdictCount(t, m); total != n || rejudged != 0 {
		t.Errorf("merged session holds %d verdicts, %d units re-judged; want %d, 0", total, rejudged, n)
	}
	m.Close()

	// Merging the merged session again with an input changes nothing.
	again := filepath.Join(dir, "again.gavel")
	if sum, err = Merge(again, []string{out, ana}); err != nil || sum.Verdicts != n {
		t.Errorf("merge of a merge: %+v %v", sum, err)
	}

	// bo labels in the copy, and re-judges q2 there.
	c, err := Open(copyPath, Options{Annotator: "bo"})
	if err != nil {
		t.Fatal(err)
	}
	record(t, c, "q3", 0)
	runs, _ := c.Runs()
	if err := c.SaveVerdicts(runs[0].ID, []judge.Verdict{{ItemID: "q2", Status: judge.StatusOK,
		Values: map[string]float64{"correct": 1}, Raw: `{"correct": "yes"}`}}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	team := filepath.Join(dir, "team.gavel")
	if sum, err = Merge(team, []string{ana, copyPath}); err != nil {
		t.Fatal(err)
	}
	if sum.Verdicts != n+1 || sum.DuplicateVerdicts != n {
		t.Errorf("team merge: %d verdicts (%d duplicates), want %d (%d)", sum.Verdicts, sum.DuplicateVerdicts, n+1, n)
	}
	m, err = Open(team, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if total, rejudged := verdictCount(t, m); total != n+1 || rejudged != 1 {
		t.Errorf("team session holds %d verdicts, %d units re-judged; want %d, 1 (the real re-judge)", total, rejudged, n+1)
	}
	if got := currentLabels(t, m); got != "ana:q1=1 bo:q3=0" {
		t.Errorf("labels %q", got)
	}
}

// Two annotators who each opened the dataset with the same judge hold the
// same verdicts made at different times: merged, each item has one
// verdict, not a phantom re-judge; a verdict that differs (the model
// answered otherwise) is kept as history.
func TestIssue11MergeIndependentRuns(t *testing.T) {
	dir := t.TempDir()
	open := func(name, annotator string, at time.Time, raw func(i int) string) string {
		path := filepath.Join(dir, name)
		s, err := Open(path, Options{Annotator: annotator})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "abc", Format: "jsonl"}, sampleItems()); err != nil {
			t.Fatal(err)
		}
		run, err := s.EnsureRun(binaryInfo("match", ""))
		if err != nil {
			t.Fatal(err)
		}
		var vs []judge.Verdict
		for i, it := range sampleItems() {
			vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)},
				Reason: "rule", Raw: raw(i), At: at})
		}
		if err := s.SaveVerdicts(run.ID, vs); err != nil {
			t.Fatal(err)
		}
		return path
	}
	same := func(i int) string { return "" }
	ana := open("ana.gavel", "ana", time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), same)
	bo := open("bo.gavel", "bo", time.Date(2026, 11, 2, 14, 30, 0, 0, time.UTC), same)
	out := filepath.Join(dir, "team.gavel")
	sum, err := Merge(out, []string{ana, bo})
	if err != nil {
		t.Fatal(err)
	}
	n := len(sampleItems())
	m, err := Open(out, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if total, rejudged := verdictCount(t, m); total != n || rejudged != 0 {
		t.Errorf("independent runs merged into %d verdicts, %d units re-judged; want %d, 0 (summary %+v)", total, rejudged, n, sum)
	}
	m.Close()

	// The model answered q1 otherwise in cy's session: that is kept.
	cy := open("cy.gavel", "cy", time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC), func(i int) string {
		if i == 0 {
			return "other"
		}
		return ""
	})
	out2 := filepath.Join(dir, "team2.gavel")
	if _, err := Merge(out2, []string{ana, cy}); err != nil {
		t.Fatal(err)
	}
	m, err = Open(out2, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if total, rejudged := verdictCount(t, m); total != n+1 || rejudged != 1 {
		t.Errorf("a differing answer: %d verdicts, %d re-judged; want %d, 1", total, rejudged, n+1)
	}
}
