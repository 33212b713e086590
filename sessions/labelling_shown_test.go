package sessions

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// actions.shown holds the run shown: Record writes and Actions reads it
// back; a decision shown without its run, a blind one with a run, or a
// run the session lacks are refused, and the schema refuses a negative
// id.
func TestRecordShownRun(t *testing.T) {
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, exportItems()); err != nil {
		t.Fatal(err)
	}
	match, _ := s.EnsureRun(judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	quality, _ := s.EnsureRun(judge.Info{Name: "quality", Model: "gpt-4o", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	shown := label("q1", "correct", 1)
	shown.Shown, shown.ShownRun = ShownVerdict, quality.ID
	blind := label("q2", "correct", 0)
	blind.Shown = ShownBlind
	if _, err := s.Record([]Action{shown, blind, label("q3", "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	acts, err := s.Actions("ann")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		shown Visibility
		run   int64
	}{{ShownVerdict, quality.ID}, {ShownBlind, 0}, {ShownUnknown, 0}}
	for i, w := range want {
		if acts[i].Shown != w.shown || acts[i].ShownRun != w.run {
			t.Errorf("action %d read back as shown %d run %d, want %d run %d", i+1, acts[i].Shown, acts[i].ShownRun, w.shown, w.run)
		}
	}
	var raw []string
	rows, err := rawDB(t, path).Query(`SELECT coalesce(shown, 'NULL') FROM actions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v string
		rows.Scan(&v)
		raw = append(raw, v)
	}
	rows.Close()
	if got := strings.Join(raw, ","); got != "2,0,NULL" || quality.ID != 2 || match.ID != 1 {
		t.Errorf("actions.shown = %s, want 2,0,NULL (the run's id, 0 blind, NULL unknown)", got)
	}

	for name, bad := range map[string]Action{
		"shown without its run": {Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Shown: ShownVerdict},
		"blind with a run":      {Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Shown: ShownBlind, ShownRun: match.ID},
		"unknown with a run":    {Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, ShownRun: match.ID},
		"a negative run":        {Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Shown: ShownVerdict, ShownRun: -1},
		"a run not in it":       {Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Shown: ShownVerdict, ShownRun: 99},
	} {
		if _, err := s.Record([]Action{bad}); err == nil {
			t.Errorf("%s: recorded", name)
		}
	}
	if n, _ := s.Actions("ann"); len(n) != 3 {
		t.Errorf("%d actions after the refusals, want 3", len(n))
	}
	if _, err := rawDB(t, path).Exec(`UPDATE actions SET shown = -1 WHERE id = 1`); err == nil || !strings.Contains(err.Error(), "CHECK") {
		t.Errorf("a negative actions.shown: %v, want a CHECK failure", err)
	}
}

// An export names the run shown beside label_shown, and its import gives
// the label that run's id in the session it goes to (another id there);
// a run the session cannot name leaves the visibility unknown, never a
// wrong run.
func TestExportImportShownRun(t *testing.T) {
	s := exportSession(t) // runs match 1, quality · gpt-4o 2, rubric · gpt-4o 3
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	quality := runs[1]
	if quality.Info.Name != "quality" {
		t.Fatalf("runs %+v", runs)
	}
	shown := Action{Kind: KindLabel, ItemID: "q2", Dimension: "score", Value: 2, Via: "random", Shown: ShownVerdict, ShownRun: quality.ID}
	blind := Action{Kind: KindLabel, ItemID: "q1", Dimension: "score", Value: 4, Via: "random", Shown: ShownBlind}
	if _, err := s.Record([]Action{shown}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record([]Action{blind}); err != nil {
		t.Fatal(err)
	}
	out, sum := exportString(t, s, "jsonl", OnlyAll)
	if !strings.Contains(strings.Join(sum.Columns, "|"), "|label_shown:ann|label_shown_run:ann|") {
		t.Fatalf("columns %q lack label_shown_run:ann after label_shown:ann", sum.Columns)
	}
	lines := strings.Split(out, "\n")
	for i, w := range []string{`"label_shown:ann":"blind","label_shown_run:ann":null`, `"label_shown:ann":"shown","label_shown_run:ann":"quality · gpt-4o"`} {
		if !strings.Contains(lines[i], w) {
			t.Errorf("row %d lacks %s:\n%s", i+1, w, lines[i])
		}
	}

	importInto := func(t *testing.T, text string) *Store {
		t.Helper()
		ds, err := dataset.LoadBytes("calibration.jsonl", []byte(text), dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rv, err := OpenReview(sessionPath(t), "importer", ds)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rv.Store.Close() })
		// A run of its own first: the export's runs get other ids here.
		if _, err := rv.Store.EnsureRun(judge.Info{Name: "strict", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := ImportDataset(rv.Store, ds, nil); err != nil {
			t.Fatal(err)
		}
		return rv.Store
	}
	labelOn := func(t *testing.T, s *Store, item string) Action {
		t.Helper()
		acts, err := s.Actions("ann")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range acts {
			if a.ItemID == item && a.Dimension == "score" && !a.Retest {
				return a
			}
		}
		t.Fatalf("no label of ann on %s", item)
		return Action{}
	}

	back := importInto(t, out)
	bruns, err := back.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var there int64
	for _, r := range bruns {
		if r.Key == quality.Key {
			there = r.ID
		}
	}
	if there == 0 || there == quality.ID {
		t.Fatalf("setup: quality's id in the new session is %d (in the first %d)", there, quality.ID)
	}
	if a := labelOn(t, back, "q2"); a.Shown != ShownVerdict || a.ShownRun != there {
		t.Errorf("imported label shown: %d run %d, want shown with run %d (quality there)", a.Shown, a.ShownRun, there)
	}
	if a := labelOn(t, back, "q1"); a.Shown != ShownBlind || a.ShownRun != 0 {
		t.Errorf("imported blind label: %d run %d", a.Shown, a.ShownRun)
	}

	// A run the file and the session do not hold, or none named.
	for _, repl := range []string{`"label_shown_run:ann":"gone · gpt-5"`, `"label_shown_run:ann":null`} {
		text := strings.Replace(out, `"label_shown_run:ann":"quality · gpt-4o"`, repl, 1)
		if a := labelOn(t, importInto(t, text), "q2"); a.Shown != ShownUnknown || a.ShownRun != 0 {
			t.Errorf("%s: imported as shown %d run %d, want unknown", repl, a.Shown, a.ShownRun)
		}
	}
}
