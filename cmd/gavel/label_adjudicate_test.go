package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// gavel label --via adjudication: refused where no two people's labels
// differ (nothing recorded), recorded as such where they do; gavel stats
// then counts the adjudicated reference and the disagreements left, in
// text, JSON and Markdown; an undone adjudication counts no more.
func TestLabelAdjudication(t *testing.T) {
	session := labelSession(t, t.TempDir())
	for _, args := range [][]string{
		{"q1", "YES", "--annotator", "ana", "--via", "random"},
		{"q1", "NO", "--annotator", "bo", "--via", "random"},
		{"q2", "YES", "--annotator", "ana", "--via", "random"},
		{"q2", "YES", "--annotator", "bo", "--via", "random"},
	} {
		if code, _, errs := run(t, append([]string{"label", session}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	figures := func() (adjudicated, waiting int, text, markdown string) {
		t.Helper()
		code, out, errs := run(t, "stats", session, "--format", "json")
		if code != 0 {
			t.Fatalf("stats: exit %d: %s", code, errs)
		}
		var rep struct {
			Humans []struct {
				Dimension            string `json:"dimension"`
				Annotators           []string
				Adjudicated          int `json:"adjudicated"`
				AwaitingAdjudication int `json:"awaiting_adjudication"`
			} `json:"humans"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, h := range rep.Humans {
			if h.Dimension == "correct" {
				if fmt.Sprint(h.Annotators) != "[ana bo]" {
					t.Errorf("annotators %v: the adjudicator is not one", h.Annotators)
				}
				adjudicated, waiting = h.Adjudicated, h.AwaitingAdjudication
			}
		}
		_, text, _ = run(t, "stats", session)
		_, markdown, _ = run(t, "stats", session, "--format", "markdown")
		return adjudicated, waiting, text, markdown
	}
	if a, w, text, _ := figures(); a != 0 || w != 1 || !strings.Contains(text, "adjudication            0 references adjudicated · 1 disagreement waiting") {
		t.Errorf("before: %d adjudicated, %d waiting:\n%s", a, w, text)
	}

	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"people agree", []string{"q2", "NO"}, 2, `--via adjudication: no two people's labels on correct of "q2" differ ("ana" YES, "bo" YES), so there is nothing to adjudicate there`},
		{"nobody labelled", []string{"r1", "YES", "--dimension", "correct"}, 2, `(nobody has labelled it)`},
		{"no value", []string{"q1", "--note", "hm"}, 2, "--via adjudication settles a row with a label: give the VALUE"},
		{"settled", []string{"q1", "NO"}, 0, "Recorded on q1 for lead: correct = NO (an adjudication: the item's reference for the judge's statistics)."},
	}
	for _, c := range cases {
		code, _, errs := run(t, append(append([]string{"label", session}, c.args...), "--via", "adjudication", "--annotator", "lead")...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%s: exit %d, want %d; stderr %q, want %q", c.name, code, c.code, errs, c.msg)
		}
	}
	if got := fmt.Sprint(actionRows(t, session, "lead")); got != "[g0 label q1 c0 correct=0 note=\"\" via=adjudication ann=lead reason= tag=\"\" gl=0 retest=false undoes=-1]" {
		t.Errorf("lead's actions: %s", got)
	}
	a, w, text, markdown := figures()
	if a != 1 || w != 0 {
		t.Errorf("after: %d adjudicated, %d waiting", a, w)
	}
	if !strings.Contains(text, "1 reference adjudicated · 0 disagreements waiting") {
		t.Errorf("text:\n%s", text)
	}
	if !strings.Contains(markdown, "Adjudication on correct: 1 reference adjudicated · 0 disagreements waiting") {
		t.Errorf("markdown:\n%s", markdown)
	}
	// The judge (no verdicts here) aside, the reference is lead's NO: the
	// few-shot and statistics read stats.References, tested in sessions.

	if code, _, errs := run(t, "label", session, "q1", "--undo", "--annotator", "lead"); code != 0 {
		t.Fatalf("undo: exit %d: %s", code, errs)
	}
	if a, w, _, _ := figures(); a != 0 || w != 1 {
		t.Errorf("undone: %d adjudicated, %d waiting", a, w)
	}
}

// gavel review --adjudicate refuses what it cannot go with before any
// screen opens: blind mode, a plan, a session nobody has labelled.
func TestReviewAdjudicateRefusals(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "d.jsonl", `{"id":"q1","question":"q","answer":"a","prediction":"a"}`+"\n")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"review", data, "--adjudicate", "--blind"}, "--adjudicate shows the others' labels, which --blind hides"},
		{[]string{"review", data, "--adjudicate", "--plan", "1"}, "--adjudicate follows the adjudication queue, not a labelling plan"},
		{[]string{"review", data, "--adjudicate", "--session", dir + "/new.gavel"}, "is new and " + data + " carries no human label column, so nobody has labelled it yet"},
		{[]string{"--adjudicate", "--blind"}, "--adjudicate shows the others' labels"},
	} {
		code, _, errs := run(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d: %q, want 2 and %q", c.args, code, errs, c.msg)
		}
	}
}

// A new session of a file that carries two annotators' columns opens on
// the adjudication queue: their labels are imported, and the items where
// they differ are the queue.
func TestReviewAdjudicateNewLabelledFile(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "two.jsonl", `{"id":"a","question":"2+2?","answer":"4","prediction":"4","annotator1":true,"annotator2":false}`+"\n"+
		`{"id":"b","question":"3+3?","answer":"6","prediction":"6","annotator1":true,"annotator2":true}`+"\n"+
		`{"id":"c","question":"4+4?","answer":"8","prediction":"9","annotator1":false,"annotator2":true}`+"\n")
	view, _ := screenOf(t, "review", data, "--session", filepath.Join(dir, "two.gavel"), "--annotator", "lead", "--adjudicate")
	for _, want := range []string{"adjudicate · 2 left", "2+2?", "human annotator1  YES", "human annotator2  NO"} {
		if !strings.Contains(view, want) {
			t.Errorf("the adjudicator's first screen lacks %q:\n%s", want, view)
		}
	}
}
