package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestVariantsAndRunNames(t *testing.T) {
	run := func(id int64, name, model string) Run {
		return Run{ID: id, Info: judge.Info{Name: name, Model: model}}
	}
	for _, tc := range []struct {
		name     string
		runs     []Run
		variants map[int64]string
		names    map[int64]string
	}{
		{
			name:     "one run of each judge keeps its label",
			runs:     []Run{run(1, "match", ""), run(2, "docqa", "gpt-4o")},
			variants: map[int64]string{1: "match@1", 2: "docqa@1"},
			names:    map[int64]string{1: "match", 2: "docqa · gpt-4o"},
		},
		{
			name: "runs sharing a label are told apart by their variant",
			runs: []Run{run(1, "docqa", "gpt-4o"), run(2, "docqa", "llama3"), run(3, "docqa", "gpt-4o"),
				run(4, "match", ""), run(5, "match", "")},
			variants: map[int64]string{1: "docqa@1", 2: "docqa@2", 3: "docqa@3", 4: "match@1", 5: "match@2"},
			names:    map[int64]string{1: "docqa@1 · gpt-4o", 2: "docqa · llama3", 3: "docqa@3 · gpt-4o", 4: "match@1", 5: "match@2"},
		},
		{
			name:     "K follows the run ids, not the slice's order",
			runs:     []Run{run(9, "docqa", "m"), run(4, "docqa", "m"), run(6, "rubric", "m")},
			variants: map[int64]string{9: "docqa@2", 4: "docqa@1", 6: "rubric@1"},
			names:    map[int64]string{9: "docqa@2 · m", 4: "docqa@1 · m", 6: "rubric · m"},
		},
		{
			name:     "names differing in case are different judges",
			runs:     []Run{run(1, "Case", "x"), run(2, "case", "x")},
			variants: map[int64]string{1: "Case@1", 2: "case@1"},
			names:    map[int64]string{1: "Case · x", 2: "case · x"},
		},
		{
			name:     "a judge named like another's variant keeps the ids",
			runs:     []Run{run(1, "docqa", ""), run(2, "docqa", ""), run(3, "docqa@2", "")},
			variants: map[int64]string{1: "docqa@1", 2: "docqa@2", 3: "docqa@2@1"},
			names:    map[int64]string{1: "docqa@1", 2: "docqa@2 #2", 3: "docqa@2 #3"},
		},
		{name: "no runs", variants: map[int64]string{}, names: map[int64]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Variants(tc.runs); fmt.Sprint(got) != fmt.Sprint(tc.variants) {
				t.Errorf("Variants = %v\nwant %v", got, tc.variants)
			}
			if got := RunNames(tc.runs); fmt.Sprint(got) != fmt.Sprint(tc.names) {
				t.Errorf("RunNames = %v\nwant %v", got, tc.names)
			}
		})
	}
}

// TestRunDefinition: a run keeps its judge's definition, the last one
// given; a judge without one stores NULL; RunByID reads one run.
func TestRunDefinition(t *testing.T) {
	s, path := newSession(t)
	a := binaryInfo("docqa", "gpt-4o")
	a.Definition = "name: docqa\ninstructions: |\n  Be strict.\n"
	ra, err := s.EnsureRun(a)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.EnsureRun(judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	if ra.Info.Definition != a.Definition {
		t.Errorf("EnsureRun returned definition %q", ra.Info.Definition)
	}
	db := rawDB(t, path)
	var def sql.NullString
	if err := db.QueryRow(`SELECT definition FROM runs WHERE id = ?`, m.ID).Scan(&def); err != nil || def.Valid {
		t.Errorf("match's definition is %v, %v; want NULL", def, err)
	}

	for _, tc := range []struct{ give, want string }{
		{"name: docqa\ninstructions: Be lenient.\n", "name: docqa\ninstructions: Be lenient.\n"},
		{"", ""}, // the judge as it last ran had none
		{a.Definition, a.Definition},
	} {
		b := binaryInfo("docqa", "gpt-4o")
		b.Definition = tc.give
		rb, err := s.EnsureRun(b)
		if err != nil || rb.ID != ra.ID {
			t.Fatalf("EnsureRun again = %+v, %v", rb, err)
		}
		runs, err := s.Runs()
		if err != nil || len(runs) != 2 {
			t.Fatalf("Runs() = %v, %v", runs, err)
		}
		got, err := s.RunByID(ra.ID)
		if err != nil {
			t.Fatal(err)
		}
		if runs[0].Info.Definition != tc.want || got.Info.Definition != tc.want || runs[1].Info.Definition != "" {
			t.Errorf("after EnsureRun with %q: Runs gives %q and %q, RunByID %q; want %q", tc.give,
				runs[0].Info.Definition, runs[1].Info.Definition, got.Info.Definition, tc.want)
		}
		if fmt.Sprint(got) != fmt.Sprint(runs[0]) {
			t.Errorf("RunByID(%d) = %+v\nRuns gives %+v", ra.ID, got, runs[0])
		}
	}
	got, err := s.RunByID(m.ID)
	if err != nil || got.Info.Name != "match" || len(got.Info.Dimensions) != 1 || got.Info.Dimensions[0].Name != "correct" {
		t.Errorf("RunByID(%d) = %+v, %v", m.ID, got, err)
	}
	if _, err := s.RunByID(99); !errors.Is(err, ErrNoRun) {
		t.Errorf("RunByID of a missing run: %v, want ErrNoRun", err)
	}
}

// TestUpgradeFromV6 opens a v6 session with a run: after the upgrade the
// run has no definition and takes one.
func TestUpgradeFromV6(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:6], 6
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, sampleItems()); err != nil {
		t.Fatal(err)
	}
	// A v6 build knows no definition column: insert the run as it would.
	if _, err := s.w.Exec(`INSERT INTO runs (key, judge, model, params, per_criterion, description, created_at)
		VALUES ('{"model":"m","name":"docqa","params":{}}', 'docqa', 'm', '{}', 0, 'd', '2025-01-01T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db := rawDB(t, path)
	if v := pragmaInt(t, db, "user_version"); v != 6 {
		t.Fatalf("user_version %d before the upgrade, want 6", v)
	}

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	if v := pragmaInt(t, db, "user_version"); v != int64(schemaVersion) {
		t.Fatalf("user_version %d after the upgrade, want %d", v, schemaVersion)
	}
	runs, err := s.Runs()
	if err != nil || len(runs) != 1 || runs[0].Info.Definition != "" || runs[0].Info.Name != "docqa" {
		t.Fatalf("Runs() after the upgrade = %+v, %v", runs, err)
	}
	info := judge.Info{Name: "docqa", Model: "m", Description: "d", Definition: "name: docqa\n"}
	r, err := s.EnsureRun(info)
	if err != nil || r.ID != runs[0].ID {
		t.Fatalf("EnsureRun after the upgrade = %+v, %v", r, err)
	}
	if got, err := s.RunByID(r.ID); err != nil || got.Info.Definition != "name: docqa\n" {
		t.Errorf("RunByID after the upgrade = %+v, %v", got, err)
	}
}
