package sessions

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// TestSchemaDocMatchesSchema keeps SCHEMA.md honest: it names the current
// version and every table, view and column, and each example query runs
// and finds rows in a session with labels, verdicts and a re-judge.
func TestSchemaDocMatchesSchema(t *testing.T) {
	doc, err := os.ReadFile("SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for _, want := range []string{fmt.Sprintf("**v%d**", schemaVersion), fmt.Sprintf("%#X", applicationID)[2:]} {
		if !strings.Contains(strings.ToUpper(text), strings.ToUpper(want)) {
			t.Errorf("SCHEMA.md does not mention %s", want)
		}
	}

	s, _ := newSession(t)
	objs, err := s.db.Query(`SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for objs.Next() {
		var typ, name string
		objs.Scan(&typ, &name)
		names = append(names, name)
		if !strings.Contains(text, "`"+name+"`") {
			t.Errorf("SCHEMA.md does not describe %s %s", typ, name)
		}
	}
	objs.Close()
	for _, name := range names {
		cols, err := s.db.Query(`SELECT name FROM pragma_table_info(?)`, name)
		if err != nil {
			t.Fatal(err)
		}
		for cols.Next() {
			var col string
			cols.Scan(&col)
			if !strings.Contains(text, "`"+col+"`") && !strings.Contains(text, "`"+col+"`,") {
				t.Errorf("SCHEMA.md does not describe column %s.%s", name, col)
			}
		}
		cols.Close()
	}

	populateForExamples(t, s)
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(text, -1)
	if len(blocks) < 4 {
		t.Fatalf("SCHEMA.md has %d example queries, want at least 4", len(blocks))
	}
	for _, b := range blocks {
		rows, err := s.db.Query(b[1])
		if err != nil {
			t.Errorf("example query fails: %v\n%s", err, b[1])
			continue
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			t.Errorf("example query fails: %v\n%s", err, b[1])
		}
		rows.Close()
		if n == 0 {
			t.Errorf("example query finds nothing in a populated session:\n%s", b[1])
		}
	}
}

// populateForExamples gives the session a re-judged item, a disagreement,
// an error verdict, labels by "ann", a note and an undo; guidelines, a
// label made under older ones, a can't-judge and a tag.
func populateForExamples(t *testing.T, s *Store) {
	t.Helper()
	run, err := s.EnsureRun(binaryInfo("docqa", "gpt-4o"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, sampleVerdicts()); err != nil {
		t.Fatal(err)
	}
	rejudge := judge.Verdict{ItemID: "q2", Values: map[string]float64{"correct": 1}, Status: judge.StatusOK, Reason: "close enough"}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{rejudge}); err != nil {
		t.Fatal(err)
	}
	for _, g := range [][]Action{
		{label("q2", "correct", 1), note("q2", "typo")},
		{label("q2", "correct", 0), note("q2", "Lyon is wrong")},
		{accept("q1", "correct", 1)},
		{label("q3", "correct", 1)},
	} {
		if _, err := s.Record(g); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	// Labelling well (v8): two versions of the guidelines, a label made
	// under the older one, timed and blind; a can't-judge and a tag.
	old, _, err := s.AddGuidelines("# Guidelines\nA near-miss is NO.")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddGuidelines("# Guidelines\nA near-miss is NO; a typo is YES."); err != nil {
		t.Fatal(err)
	}
	timed := label("q1", "correct", 0)
	timed.Guidelines, timed.Shown, timed.Appeared = old.ID, ShownBlind, time.Now().Add(-12*time.Second)
	for _, g := range [][]Action{
		{timed},
		{{Kind: KindCantJudge, ItemID: "q3", Reason: ReasonGoldWrong, Note: "the gold is empty", Via: "order"}},
		{{Kind: KindTag, ItemID: "q1", Tag: "too strict", Value: 1, Via: "order"}},
	} {
		if _, err := s.Record(g); err != nil {
			t.Fatal(err)
		}
	}
	// A pairwise judge that changed its mind on q1 when the pair was
	// swapped.
	pw, err := s.EnsureRun(judge.Info{Name: "pairwise", Model: "gpt-4o",
		Dimensions: []judge.Dimension{{Name: "preference", Scale: judge.Pairwise}}})
	if err != nil {
		t.Fatal(err)
	}
	pref := func(id string, v float64, swapped bool) judge.Verdict {
		return judge.Verdict{ItemID: id, Swapped: swapped, Status: judge.StatusOK, Values: map[string]float64{"preference": v}}
	}
	if err := s.SaveVerdicts(pw.ID, []judge.Verdict{
		pref("q1", judge.PreferA, false), pref("q1", judge.PreferB, true),
		pref("q2", judge.PreferTie, false), pref("q2", judge.PreferTie, true),
	}); err != nil {
		t.Fatal(err)
	}
}
