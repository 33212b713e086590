package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// TestStatsTriviaQAJudgeTable imports the TriviaQA file of "Judging the
// judges" (eleven judges, every item labelled by one human) and checks
// that `gavel stats` prints the judge table first, eleven judges ranked by
// kappa, and that --judge finds a judge by its column name.
func TestStatsTriviaQAJudgeTable(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	src := sharedData(t, "judging_the_judges__TriviaQA_Judges_w_HumanJudgement_V1.csv")
	session := filepath.Join(t.TempDir(), "tq.gavel")
	if code, _, errs := run(t, "import", src, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	code, out, errs := run(t, "stats", session, "--resamples", "200")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "Judges, ranked by Cohen's kappa against the humans") {
		t.Fatalf("the text does not start with the judge table:\n%s", strings.Join(lines[:5], "\n"))
	}

	_, js, _ := run(t, "stats", session, "--format", "json", "--resamples", "200")
	var r stats.Report
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.JudgeTable) != 11 {
		t.Fatalf("%d rows in the judge table, want 11", len(r.JudgeTable))
	}
	for i, row := range r.JudgeTable {
		if row.Rank != i+1 || !row.CohenKappa.HasBounds() || !row.FalsePassRate.HasBounds() {
			t.Errorf("row %d: %+v", i, row)
		}
		if i > 0 && row.CohenKappa.Value > r.JudgeTable[i-1].CohenKappa.Value {
			t.Errorf("row %d (%s, kappa %.3f) ranks below a lower kappa", i+1, row.Judge, row.CohenKappa.Value)
		}
	}
	if first, last := r.JudgeTable[0].Judge, r.JudgeTable[10].Judge; first != "imported · Llama3-70B" || last != "imported · Gemma-2B" {
		t.Errorf("ranked %s first and %s last", first, last)
	}
	for _, jr := range r.Judges {
		f := jr.Dimensions[0].Overall
		if !f.Selection.Census || !f.Corrected.PassRate.HasBounds() {
			t.Errorf("%s: census %v, corrected %+v", jr.Judge, f.Selection.Census, f.Corrected.PassRate)
		}
	}

	code, one, errs := run(t, "stats", session, "--judge", "gpt-4", "--format", "json", "--resamples", "0")
	if code != 0 {
		t.Fatalf("--judge gpt-4: exit %d: %s", code, errs)
	}
	var g stats.Report
	if err := json.Unmarshal([]byte(one), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Judges) != 1 || g.Judges[0].Judge != "imported · GPT-4" {
		t.Errorf("--judge gpt-4 kept %d judges", len(g.Judges))
	}
}
