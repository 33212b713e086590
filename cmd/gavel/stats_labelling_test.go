package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// labellingSession is a session labelled as the review screen records it
// (SPEC "Labelling well"): two guidelines versions, blind and shown
// decisions with their time on screen, re-tests, "can't judge" marks and
// failure tags with hostile names, by two annotators, against two judges.
func labellingSession(t *testing.T) string {
	t.Helper()
	path := buildSession(t, 40, []fixtureRun{
		{matchRunInfo, func(i int) *judge.Verdict { return okVerdict("correct", float64(i%2)) }},
		{docqaRunInfo, func(i int) *judge.Verdict { return okVerdict("correct", float64(i%3%2)) }},
	}, nil, "correct")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for v := 1; v <= 2; v++ {
		if _, err := db.Exec(`INSERT INTO guidelines (id, sha256, text, first_seen) VALUES (?, ?, ?, ?)`,
			v, strings.Repeat(fmt.Sprint(v), 64), fmt.Sprintf("# Guidelines v%d", v), fmt.Sprintf("2026-11-2%dT09:00:00.000Z", v)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	hostile := "an<b>n\x1b[31m|*"
	for _, who := range []string{hostile, "bob"} {
		s, err := sessions.Open(path, sessions.Options{Annotator: who})
		if err != nil {
			t.Fatal(err)
		}
		rec := func(a sessions.Action) {
			t.Helper()
			if _, err := s.Record([]sessions.Action{a}); err != nil {
				t.Fatal(err)
			}
		}
		runs, err := s.Runs()
		if err != nil || len(runs) == 0 || runs[0].Info.Name != "match" {
			t.Fatalf("runs %+v, %v", runs, err)
		}
		match := runs[0].ID // the judge on screen
		for i := range 32 {
			if who == "bob" && i%2 == 1 {
				continue
			}
			kind, shown, v := sessions.KindLabel, sessions.ShownBlind, float64(i%2)
			if i%3 == 0 {
				v = 1 - v // disagrees with match
			}
			if i >= 16 {
				shown = sessions.ShownVerdict
				if i%4 == 0 {
					kind, v = sessions.KindAccept, float64(i%2)
				}
			}
			g := int64(1)
			if i >= 8 {
				g = 2
			}
			var shownRun int64
			if shown == sessions.ShownVerdict {
				shownRun = match
			}
			rec(sessions.Action{Kind: kind, ItemID: fmt.Sprintf("q%02d", i+1), Dimension: "correct", Value: v, Via: "random",
				Shown: shown, ShownRun: shownRun, Guidelines: g, Appeared: time.Now().Add(-time.Duration(3+i%5) * time.Second)})
		}
		for _, i := range []int{2, 5, 9} {
			rec(sessions.Action{Kind: sessions.KindLabel, ItemID: fmt.Sprintf("q%02d", i+1), Dimension: "correct", Value: float64(i % 2),
				Via: "random", Shown: sessions.ShownBlind, Retest: true, Guidelines: 2, Appeared: time.Now().Add(-4 * time.Second)})
		}
		rec(sessions.Action{Kind: sessions.KindCantJudge, ItemID: "q04", Reason: sessions.ReasonGoldWrong, Guidelines: 2})
		rec(sessions.Action{Kind: sessions.KindTag, ItemID: "q01", Tag: "too strict", Value: 1})
		rec(sessions.Action{Kind: sessions.KindTag, ItemID: "q04", Tag: "f<o>r|mat", Value: 1})
		s.Close()
	}
	return path
}

// The report's labelling figures are gavel stats' JSON, with every
// guidelines filter, and each format shows the section.
func TestStatsLabellingReportEqualsJSON(t *testing.T) {
	session := labellingSession(t)
	for _, flags := range [][]string{nil, {"--guidelines", "current"}, {"--guidelines", "1"}} {
		_, js, errs := gavel(t, append([]string{"stats", session, "--format", "json"}, flags...)...)
		var doc struct {
			Guidelines map[string]any `json:"guidelines"`
			Labelling  map[string]any `json:"labelling"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Labelling == nil {
			t.Fatalf("%v: %v %s", flags, err, errs)
		}
		wantFilter := map[string]any{"filter": "all"}
		if flags != nil {
			wantFilter = map[string]any{"filter": map[string]string{"current": "current", "1": "version"}[flags[1]], "version": float64(map[string]int{"current": 2, "1": 1}[flags[1]])}
		}
		if fmt.Sprint(doc.Guidelines) != fmt.Sprint(wantFilter) {
			t.Errorf("%v: guidelines %v, want %v", flags, doc.Guidelines, wantFilter)
		}
		page := filepath.Join(t.TempDir(), "report.html")
		if code, _, errs := gavel(t, append([]string{"report", session, "-o", page, "--no-date"}, flags...)...); code != 0 {
			t.Fatalf("%v: report: exit %d: %s", flags, code, errs)
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		checkFiguresAgainstJSON(t, string(b), js)
		paths := map[string]bool{}
		for _, f := range readFigures(t, string(b)) {
			paths[f.path] = true
		}
		for _, p := range []string{
			"labelling.guidelines.versions.1.labels",
			"labelling.cant_judge.by_reason.gold-wrong",
			"labelling.cant_judge.by_annotator.1.total",
			"labelling.tags.tags.0.items",
			"labelling.tags.disagreements.1.tags.1.items",
			"labelling.annotators.0.median_seconds",
			"labelling.annotators.1.anchoring.1.difference",
		} {
			if !paths[p] {
				t.Errorf("%v: the report has no figure %s", flags, p)
			}
		}
		// Re-tests and the last quarter were made under version 2 alone.
		if (flags == nil || flags[1] == "current") && !(paths["labelling.annotators.0.fatigue.last_quarter.judges.0.agreement"] && paths["labelling.annotators.0.retest.0.cohen_kappa"]) {
			t.Errorf("%v: the report lacks the fatigue or re-test figures", flags)
		}
		if flags != nil && !paths["labelling.guidelines.left_out"] {
			t.Errorf("%v: the report does not say how many labels the filter left out", flags)
		}
		checkNoUnescapedTag(t, string(b))
		if strings.Contains(string(b), "\x1b") {
			t.Error("an escape sequence reached the page")
		}
	}
	_, text, _ := gavel(t, "stats", session)
	for _, want := range []string{"Labelling", "can't judge", "Annotator bob", "anchoring · match", "re-test · correct"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b") {
		t.Errorf("an escape sequence reached the terminal:\n%s", text)
	}
	_, md, _ := gavel(t, "stats", session, "--format", "markdown")
	if !strings.Contains(md, "## Labelling") || strings.Contains(md, "f<o>r|mat") {
		t.Errorf("markdown:\n%s", md)
	}
}

// A guidelines version the session lacks, or a word --guidelines does not
// know, is a usage error that says what to use.
func TestStatsGuidelinesFlagErrors(t *testing.T) {
	session := labellingSession(t)
	for _, c := range []struct{ value, want string }{
		{"7", "no guidelines version 7: its versions are 1, 2"},
		{"newest", "use all, current or a version's number"},
		{"0", "use all, current or a version's number"},
	} {
		for _, cmd := range []string{"stats", "report"} {
			code, _, errs := gavel(t, cmd, session, "--guidelines", c.value, "-o", filepath.Join(t.TempDir(), "r.html"))
			if cmd == "stats" {
				code, _, errs = gavel(t, cmd, session, "--guidelines", c.value)
			}
			if code != exitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("%s --guidelines %s: exit %d, %q", cmd, c.value, code, errs)
			}
		}
	}
	// Without guidelines in the session, current has nothing to keep.
	code, _, errs := gavel(t, "stats", statsSession(t), "--guidelines", "current")
	if code != exitUsage || !strings.Contains(errs, "records no guidelines") {
		t.Errorf("exit %d, %q", code, errs)
	}
}
