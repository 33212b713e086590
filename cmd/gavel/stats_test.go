package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// fixtureRun is a judge run of statsSession and its verdict on item i
// (nil for none).
type fixtureRun struct {
	info    judge.Info
	verdict func(i int) *judge.Verdict
}

// fixtureLabel is one annotator's label on item i, reached via via
// (nil for none).
type fixtureLabel func(i int) (value float64, via string, ok bool)

// buildSession writes a session of n items (category a/b/c) with the
// given runs and annotators' labels, and returns its path.
func buildSession(t *testing.T, n int, runs []fixtureRun, labels map[string]fixtureLabel, dim string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]judge.Item, n)
	for i := range items {
		items[i] = judge.Item{Index: i, ID: fmt.Sprintf("q%02d", i+1), Question: "q?", Gold: "g", Prediction: "p",
			Segments: map[string]string{"category": string(rune('a' + i%3))}}
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "fixture.jsonl", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		run, err := s.EnsureRun(r.info)
		if err != nil {
			t.Fatal(err)
		}
		var vs []judge.Verdict
		for i, it := range items {
			if v := r.verdict(i); v != nil {
				v.ItemID = it.ID
				vs = append(vs, *v)
			}
		}
		if err := s.SaveVerdicts(run.ID, vs); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	for annotator, label := range labels {
		s, err := sessions.Open(path, sessions.Options{Annotator: annotator})
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range items {
			if v, via, ok := label(i); ok {
				if _, err := s.Record([]sessions.Action{{Kind: sessions.KindLabel, ItemID: it.ID, Dimension: dim, Value: v, Via: via}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		s.Close()
	}
	return path
}

var (
	matchRunInfo = judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}
	docqaRunInfo = judge.Info{Name: "docqa", Model: "gpt-4o", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}
)

func okVerdict(dim string, v float64) *judge.Verdict {
	return &judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{dim: v}}
}

// statsSession is the session of the golden file: 24 items, two binary
// judges (docqa sampled three times per item, match re-judged on one
// item), parse and API errors, and two annotators, most of ana's labels
// reached through a filter.
func statsSession(t *testing.T) string {
	t.Helper()
	runs := []fixtureRun{
		{matchRunInfo, func(i int) *judge.Verdict {
			switch {
			case i == 5:
				return &judge.Verdict{Status: judge.StatusParseError, Raw: "?"}
			case i == 6:
				return &judge.Verdict{Status: judge.StatusAPIError, Error: "503"}
			}
			return okVerdict("correct", float64(i%2))
		}},
		{docqaRunInfo, func(i int) *judge.Verdict {
			v := okVerdict("correct", float64(i%3%2))
			v.Extra = map[string]any{llm.ExtraSamples: []any{
				map[string]any{"status": "ok", "values": map[string]any{"correct": float64(i % 3 % 2)}},
				map[string]any{"status": "ok", "values": map[string]any{"correct": float64(i % 4 % 2)}},
				map[string]any{"status": "parse_error", "raw": "hm"},
			}}
			return v
		}},
	}
	path := buildSession(t, 24, runs, map[string]fixtureLabel{
		"ana": func(i int) (float64, string, bool) {
			via := "filter:disagreements"
			if i < 4 {
				via = "random"
			}
			return float64(i % 4 % 2), via, i < 16
		},
		"bob": func(i int) (float64, string, bool) { return float64(i % 5 % 2), "random", i < 8 },
	}, "correct")
	// A re-judge of one item by match that flips its verdict.
	s, err := sessions.Open(path, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run, err := s.EnsureRun(matchRunInfo)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "q01", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}}); err != nil {
		t.Fatal(err)
	}
	return path
}

// gavel runs the command line and returns its exit code, stdout and stderr.
func gavel(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	e, out, errb, _ := testEnv(t)
	code := execute(context.Background(), e, args)
	return code, out.String(), errb.String()
}

// The text output of `gavel stats` on a fixed session. Update with
// go test ./cmd/gavel -run TestStatsTextGolden -update.
func TestStatsTextGolden(t *testing.T) {
	code, out, errs := gavel(t, "stats", statsSession(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden.RequireEqual(t, out)
}

func TestStatsJSONIsStableAndRoundTrips(t *testing.T) {
	path := statsSession(t)
	code, first, errs := gavel(t, "stats", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, second, _ := gavel(t, "stats", path, "--format", "json")
	if first != second {
		t.Error("two runs on the same session give different JSON")
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(first), &r); err != nil {
		t.Fatalf("the JSON does not parse: %v", err)
	}
	again, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if string(again)+"\n" != first {
		t.Error("the JSON does not round-trip through stats.Report byte for byte")
	}
	if r.SchemaVersion != 2 || r.Seed != 1 || r.Resamples != 1000 || r.Units != 24 || len(r.Judges) != 2 || len(r.JudgePairs) != 1 || len(r.Humans) != 1 {
		t.Errorf("report header: schema %d, seed %d, resamples %d, units %d, %d judges, %d pairs, %d humans",
			r.SchemaVersion, r.Seed, r.Resamples, r.Units, len(r.Judges), len(r.JudgePairs), len(r.Humans))
	}
	match, docqa := r.Judges[0].Dimensions[0], r.Judges[1].Dimensions[0]
	if f := match.Overall; f.Judging.ParseErrors != 1 || f.Judging.APIErrors != 1 || f.Labelled != 16 {
		t.Errorf("match figures: %+v", f.Judging)
	}
	if match.Rejudges.Units != 1 || match.Rejudges.Flipped != 1 {
		t.Errorf("match re-judges %+v, want 1 of 1 flipped", match.Rejudges)
	}
	if docqa.Samples.Units != 24 || docqa.Samples.Flipped == 0 {
		t.Errorf("docqa's samples (kept under llm.ExtraSamples) were not read: %+v", docqa.Samples)
	}
	if match.Overall.Selection.Warning == "" || match.Overall.Selection.UnbiasedPart == nil {
		t.Error("most labels came through a filter, and the report does not warn")
	}
	if h := r.Humans[0]; len(h.Annotators) != 2 || len(h.Pairs) != 1 || !h.FleissKappa.Defined() {
		t.Errorf("annotator agreement %+v", h)
	}
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(first, bad) {
			t.Errorf("the JSON holds %s", bad)
		}
	}
	// A different seed moves the bootstrap, not the rest.
	_, other, _ := gavel(t, "stats", path, "--format", "json", "--seed", "7")
	if other == first || !strings.Contains(other, `"seed": 7`) {
		t.Error("--seed is not used")
	}
	_, off, _ := gavel(t, "stats", path, "--format", "json", "--resamples", "0")
	var ro stats.Report
	if err := json.Unmarshal([]byte(off), &ro); err != nil {
		t.Fatal(err)
	}
	if ro.Resamples != 0 || ro.Judges[0].Dimensions[0].Overall.VsHumans.ScoreBias.HasBounds() {
		t.Error("--resamples 0 does not turn the bootstrap off")
	}
}

func TestStatsExtraSamplesKey(t *testing.T) {
	if sessions.ExtraSamples != llm.ExtraSamples {
		t.Errorf("sessions reads samples under %q, judge/llm writes them under %q", sessions.ExtraSamples, llm.ExtraSamples)
	}
}

func TestStatsMarkdownShape(t *testing.T) {
	code, md, errs := gavel(t, "stats", statsSession(t), "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(md, "# Agreement statistics\n") {
		t.Errorf("Markdown starts %q", md[:min(len(md), 40)])
	}
	headings := 0
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "## ") {
			headings++
		}
	}
	// the judge table, two judges, the operating points and reliability
	// of the judge that sampled, judge against judge, between annotators
	if headings != 7 {
		t.Errorf("%d second-level headings, want 7:\n%s", headings, md)
	}
	checkTables(t, md)
}

// checkTables checks that every Markdown table has a separator row and
// rows as wide as its header.
func checkTables(t *testing.T, md string) {
	t.Helper()
	lines := strings.Split(md, "\n")
	cells := func(l string) int { return strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") - 1 }
	tables := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") {
			continue
		}
		tables++
		n := cells(lines[i])
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "|---") || cells(lines[i+1]) != n {
			t.Errorf("table without a separator row: %q", lines[i])
		}
		for i++; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			if cells(lines[i]) != n {
				t.Errorf("row with %d cells under a header of %d: %q", cells(lines[i]), n, lines[i])
			}
		}
	}
	if tables == 0 {
		t.Error("no table")
	}
}

func TestStatsJudgeFilter(t *testing.T) {
	path := statsSession(t)
	_, all, _ := gavel(t, "stats", path)
	for _, sel := range []string{"docqa", "DocQA", "docqa · gpt-4o"} {
		code, out, errs := gavel(t, "stats", path, "--judge", sel)
		if code != 0 {
			t.Fatalf("--judge %q: exit %d: %s", sel, code, errs)
		}
		if !strings.Contains(out, "docqa · gpt-4o · correct (binary)") || strings.Contains(out, "\nmatch · correct") {
			t.Errorf("--judge %q does not keep docqa alone:\n%s", sel, out)
		}
		if !strings.Contains(out, "match vs docqa · gpt-4o") {
			t.Errorf("--judge %q drops the comparison with match", sel)
		}
	}
	code, out, _ := gavel(t, "stats", path, "--judge", "match", "--format", "json")
	var r stats.Report
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Judges) != 1 || r.Judges[0].Judge != "match" {
		t.Errorf("--judge match --format json: exit %d, %d judges", code, len(r.Judges))
	}
	if all == "" {
		t.Error("no text")
	}
}

func TestStatsExitCodes(t *testing.T) {
	path := statsSession(t)
	notSession := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notSession, []byte("hello, this is not a session"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"help", []string{"stats", "--help"}, 0, ""},
		{"text", []string{"stats", path}, 0, ""},
		{"two sessions", []string{"stats", path, path}, 2, "stats takes [SESSION], but got 2 arguments"},
		{"no demo session yet", []string{"stats"}, 2, "run `gavel` to label the demo"},
		{"missing session", []string{"stats", "nope.gavel"}, 1, "there is no session at nope.gavel"},
		{"not a session", []string{"stats", notSession}, 1, "is not a Gavel session"},
		{"bad format", []string{"stats", path, "--format", "xml"}, 2, `unknown --format "xml": use text, json or markdown`},
		{"negative resamples", []string{"stats", path, "--resamples", "-1"}, 2, "--resamples -1 is out of range"},
		{"bad seed", []string{"stats", path, "--seed", "x"}, 2, "invalid argument"},
		{"unknown judge", []string{"stats", path, "--judge", "judgy"}, 2, `no judge "judgy" in ` + path + `: its judges are "match", "docqa · gpt-4o"`},
		{"bad parse-errors", []string{"stats", path, "--parse-errors", "ignore"}, 2, `unknown --parse-errors "ignore": use exclude or fail`},
		{"parse-errors fail", []string{"stats", path, "--parse-errors", "FAIL"}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := gavel(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errs)
			}
			if !strings.Contains(errs, tc.msg) {
				t.Errorf("stderr %q lacks %q", errs, tc.msg)
			}
		})
	}
}

// Two runs of one judge share a name: --judge by name asks which.
func TestStatsAmbiguousJudge(t *testing.T) {
	other := docqaRunInfo
	other.Model = "llama3"
	ok := func(i int) *judge.Verdict { return okVerdict("correct", 1) }
	path := buildSession(t, 3, []fixtureRun{{docqaRunInfo, ok}, {other, ok}}, nil, "correct")
	code, _, errs := gavel(t, "stats", path, "--judge", "docqa")
	want := `--judge "docqa" matches 2 judges in ` + path + `: "docqa · gpt-4o", "docqa · llama3"; pass the full label, e.g. --judge "docqa · gpt-4o"`
	if code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d: %s\nwant %s", code, errs, want)
	}
	if code, _, errs := gavel(t, "stats", path, "--judge", "docqa · llama3"); code != 0 {
		t.Errorf("by label: exit %d: %s", code, errs)
	}
	if code, _, errs := gavel(t, "stats", path, "--judge", "LLAMA3"); code != 0 {
		t.Errorf("by model: exit %d: %s", code, errs)
	}
}

// --judge finds a run by the name after " · " (an imported column, a
// model), whole and ignoring case: "GPT-4" is not "GPT-4 Turbo".
func TestStatsJudgeByModel(t *testing.T) {
	info := func(model string) judge.Info {
		return judge.Info{Name: "imported", Model: model, Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}
	}
	ok := func(i int) *judge.Verdict { return okVerdict("correct", float64(i%2)) }
	path := buildSession(t, 4, []fixtureRun{{info("GPT-4"), ok}, {info("GPT-4 Turbo"), ok}, {info("Llama3-70B"), ok}}, nil, "correct")
	tests := []struct {
		judge string
		code  int
		kept  string // the judge of the report, or a part of the message
	}{
		{"GPT-4", 0, "imported · GPT-4"},
		{"gpt-4", 0, "imported · GPT-4"},
		{"imported · GPT-4", 0, "imported · GPT-4"},
		{"imported · gpt-4", 0, "imported · GPT-4"},
		{"gpt-4 turbo", 0, "imported · GPT-4 Turbo"},
		{"llama3-70b", 0, "imported · Llama3-70B"},
		{"imported", 2, `--judge "imported" matches 3 judges in ` + path + `: "imported · GPT-4", "imported · GPT-4 Turbo", "imported · Llama3-70B"; pass the full label`},
		{"GPT", 2, `no judge "GPT" in ` + path + `: its judges are "imported · GPT-4", "imported · GPT-4 Turbo", "imported · Llama3-70B"`},
		{"Turbo", 2, `no judge "Turbo"`},
	}
	for _, tc := range tests {
		code, out, errs := gavel(t, "stats", path, "--judge", tc.judge, "--format", "json", "--resamples", "0")
		if code != tc.code {
			t.Errorf("--judge %q: exit %d, want %d: %s", tc.judge, code, tc.code, errs)
			continue
		}
		if code != 0 {
			if !strings.Contains(errs, tc.kept) {
				t.Errorf("--judge %q: stderr %q lacks %q", tc.judge, errs, tc.kept)
			}
			continue
		}
		var r stats.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Judges) != 1 || r.Judges[0].Judge != tc.kept {
			var got []string
			for _, j := range r.Judges {
				got = append(got, j.Judge)
			}
			t.Errorf("--judge %q keeps %q, want %q", tc.judge, got, tc.kept)
		}
	}
}

// --parse-errors fail counts a binary judge's parse error as NO: on
// judgedCSV (a YES/yes, b NO/no, c unreadable/yes, d YES/no) the judge's
// pass rate falls from 2 of 3 to 2 of 4, and item c joins the comparison
// with the humans, as a disagreement.
func TestStatsParseErrors(t *testing.T) {
	session := importedSession(t, t.TempDir())
	report := func(args ...string) stats.Report {
		t.Helper()
		code, out, errs := gavel(t, append([]string{"stats", session, "--format", "json", "--resamples", "0"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
		var r stats.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Judges) != 1 || len(r.Judges[0].Dimensions) != 1 {
			t.Fatalf("%q: %d judges", args, len(r.Judges))
		}
		return r
	}
	tests := []struct {
		args      []string
		mode      string
		passRate  float64
		n         int
		agreement float64
	}{
		{nil, "exclude", 2.0 / 3, 3, 2.0 / 3},
		{[]string{"--parse-errors", "exclude"}, "exclude", 2.0 / 3, 3, 2.0 / 3},
		{[]string{"--parse-errors", "fail"}, "fail", 0.5, 4, 0.5},
	}
	for _, tc := range tests {
		r := report(tc.args...)
		f := r.Judges[0].Dimensions[0].Overall
		if r.ParseErrors != tc.mode {
			t.Errorf("%q: parse_errors %q, want %q", tc.args, r.ParseErrors, tc.mode)
		}
		if f.Judging.ParseErrors != 1 {
			t.Errorf("%q: %d parse errors counted, want 1 whatever the mode", tc.args, f.Judging.ParseErrors)
		}
		if f.Corrected == nil || !approx(f.Corrected.ObservedPassRate.Value, tc.passRate) {
			t.Errorf("%q: the judge's pass rate is %+v, want %.3f", tc.args, f.Corrected, tc.passRate)
		}
		if f.VsHumans.N != tc.n || !approx(f.VsHumans.PercentAgreement.Value, tc.agreement) {
			t.Errorf("%q: vs humans n = %d, agreement %v; want %d, %.3f", tc.args, f.VsHumans.N, f.VsHumans.PercentAgreement.Value, tc.n, tc.agreement)
		}
	}
}

func approx(got, want float64) bool { return got > want-1e-9 && got < want+1e-9 }

// The edge cases give defined, documented results in every format: "—"
// with a reason in text and Markdown, null with a reason in JSON.
func TestStatsEdgeCases(t *testing.T) {
	ok := func(v func(i int) float64) func(int) *judge.Verdict {
		return func(i int) *judge.Verdict { return okVerdict("correct", v(i)) }
	}
	label := func(v func(i int) float64) map[string]fixtureLabel {
		return map[string]fixtureLabel{"ana": func(i int) (float64, string, bool) { return v(i), "order", true }}
	}
	alt := func(i int) float64 { return float64(i % 2) }
	yes := func(int) float64 { return 1 }
	tests := []struct {
		name   string
		n      int
		run    func(int) *judge.Verdict
		labels map[string]fixtureLabel
		text   []string
		check  func(t *testing.T, a stats.Figures)
	}{
		{"n = 0", 6, ok(alt), nil,
			[]string{"Judge vs human  (n = 0)", "No item has both an ok verdict and a human label yet"},
			func(t *testing.T, f stats.Figures) {
				a := f.VsHumans
				if a.N != 0 || a.PercentAgreement.Defined() || a.CohenKappa.Reason != "no item has both an ok verdict and a human label" {
					t.Errorf("n = 0: %+v", a)
				}
				if f.Corrected == nil || !f.Corrected.ObservedPassRate.Defined() || f.Corrected.PassRate.Defined() {
					t.Errorf("n = 0: the judge's own pass rate is defined, the corrected one is not: %+v", f.Corrected)
				}
			}},
		{"single class", 6, ok(yes), label(yes),
			[]string{"percent agreement       100.0%", "Cohen's kappa           — (", "Gwet's AC1              1.000"},
			func(t *testing.T, f stats.Figures) {
				a := f.VsHumans
				if a.N != 6 || a.PercentAgreement.Value != 1 || a.GwetAC1.Value != 1 || a.CohenKappa.Defined() || a.CohenKappa.Reason == "" || a.AlphaNominal.Defined() {
					t.Errorf("single class: %+v", a)
				}
			}},
		{"perfect agreement", 6, ok(alt), label(alt),
			[]string{"percent agreement       100.0%", "Cohen's kappa           1.000", "false-pass rate         0.0%"},
			func(t *testing.T, f stats.Figures) {
				a := f.VsHumans
				if a.N != 6 || a.CohenKappa.Value != 1 || a.GwetAC1.Value != 1 || a.AlphaNominal.Value != 1 || a.ScoreBias.Value != 0 {
					t.Errorf("perfect: %+v", a)
				}
			}},
		{"all unparseable", 6, func(int) *judge.Verdict { return &judge.Verdict{Status: judge.StatusParseError, Raw: "??"} }, label(alt),
			[]string{"parse errors 6 (100.0%)", "judged 6 · ok 0", "Judge vs human  (n = 0)"},
			func(t *testing.T, f stats.Figures) {
				if f.Judging.ParseErrors != 6 || f.Judging.ParseErrorRate.Value != 1 || f.VsHumans.N != 0 || f.VsHumans.CohenKappa.Defined() {
					t.Errorf("all unparseable: %+v", f)
				}
				if f.Corrected == nil || f.Corrected.Judged != 0 || f.Corrected.ObservedPassRate.Defined() {
					t.Errorf("all unparseable: corrected %+v", f.Corrected)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := buildSession(t, tc.n, []fixtureRun{{matchRunInfo, tc.run}}, tc.labels, "correct")
			code, text, errs := gavel(t, "stats", path)
			if code != 0 {
				t.Fatalf("text: exit %d: %s", code, errs)
			}
			for _, w := range tc.text {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			code, js, errs := gavel(t, "stats", path, "--format", "json")
			if code != 0 {
				t.Fatalf("json: exit %d: %s", code, errs)
			}
			var r stats.Report
			if err := json.Unmarshal([]byte(js), &r); err != nil {
				t.Fatal(err)
			}
			tc.check(t, r.Judges[0].Dimensions[0].Overall)
			// Every null carries its reason.
			var generic any
			json.Unmarshal([]byte(js), &generic)
			checkNullsHaveReasons(t, generic, "")
			code, md, errs := gavel(t, "stats", path, "--format", "markdown")
			if code != 0 {
				t.Fatalf("markdown: exit %d: %s", code, errs)
			}
			checkTables(t, md)
			for _, out := range []string{text, js, md} {
				if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
					t.Errorf("output holds NaN or Inf:\n%s", out)
				}
			}
		})
	}
}

// checkNullsHaveReasons walks decoded JSON: an Estimate or Interval whose
// value is null must say why.
func checkNullsHaveReasons(t *testing.T, v any, path string) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		if val, ok := v["value"]; ok && val == nil {
			if r, _ := v["reason"].(string); r == "" {
				t.Errorf("%s is null without a reason", path)
			}
		}
		for k, x := range v {
			checkNullsHaveReasons(t, x, path+"."+k)
		}
	case []any:
		for i, x := range v {
			checkNullsHaveReasons(t, x, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// The screen and `gavel stats` print the same figures: for every judge of
// a session, the statistics screen's lines (read off the screen by
// scrolling, as a person would) are the text `gavel stats --judge` prints.
func TestStatsTextIsTheScreen(t *testing.T) {
	path := statsSession(t)
	s, err := sessions.Open(path, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	items, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	names := sessions.RunNames(runs)
	for k, active := range runs {
		// The screen opens on its first run: put the one to show first.
		var screenRuns []tui.Run
		for _, r := range append([]sessions.Run{active}, append(runs[:k:k], runs[k+1:]...)...) {
			vs, err := s.Verdicts(r.ID)
			if err != nil {
				t.Fatal(err)
			}
			screenRuns = append(screenRuns, tui.Run{Info: r.Info, Key: names[r.ID], Verdicts: vs})
		}
		m := tui.New(tui.Options{Store: s, Annotator: "ana", Dataset: "fixture.jsonl", Items: items, Runs: screenRuns, Stats: statsOf(s)})
		screen := screenStatsLines(t, m, 80, 24)
		code, text, errs := gavel(t, "stats", path, "--judge", names[active.ID])
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if want := trimLines(text); screen != want {
			t.Errorf("judge %s: the screen shows\n%s\n\n`gavel stats` prints\n%s", names[active.ID], screen, want)
		}
	}
}

// After labelling in the demo with the keys, `gavel stats` on its session
// prints the figures the statistics screen shows, and it does so while
// the review is still open.
func TestStatsAfterLabellingTheDemo(t *testing.T) {
	e, _, errb, _ := testEnv(t)
	path := filepath.Join(t.TempDir(), "demo.gavel")
	var screen, text string
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m = runCommand(t, m, m.Init(), 0)
		waitVerdicts(t, path, 60)
		m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
		for _, k := range []string{"y", "n", "y", "y", "n", "right", "n", "y"} {
			m = send(t, m, keyPress(k))
		}
		screen = screenStatsLines(t, m, 80, 24)
		code, out, errs := gavel(t, "stats", path)
		if code != 0 {
			t.Errorf("gavel stats during the review: exit %d: %s", code, errs)
		}
		text = out
		return m, nil
	}
	if code := execute(context.Background(), e, []string{"--session", path, "--annotator", "tester"}); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errb)
	}
	if !strings.Contains(screen, "Judge vs human  (n = 7)") || !strings.Contains(screen, "labelled 7 of 60") {
		t.Errorf("the screen does not cover the seven labels:\n%s", screen)
	}
	if want := trimLines(text); screen != want {
		t.Errorf("the screen shows\n%s\n\n`gavel stats` prints\n%s", screen, want)
	}
	// And after the review closed, the same again.
	_, after, _ := gavel(t, "stats", path)
	if after != text {
		t.Error("`gavel stats` after the review differs from during it")
	}
}

// waitVerdicts waits until the session holds n current verdicts of its
// first run, reading it as `gavel stats` does.
func waitVerdicts(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if s, err := sessions.Open(path, sessions.Options{ReadOnly: true}); err == nil {
			runs, _ := s.Runs()
			done := false
			if len(runs) > 0 {
				vs, _ := s.Verdicts(runs[0].ID)
				done = len(vs) == n
			}
			s.Close()
			if done {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the session never had %d verdicts", n)
}

// screenStatsLines opens the statistics screen of m at w×h and reads
// every line of it by scrolling down one line at a time, as a person
// would; it returns them with trailing spaces trimmed.
func screenStatsLines(t *testing.T, m tea.Model, w, h int) string {
	t.Helper()
	m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = send(t, m, keyPress("s"))
	inside := func(m tea.Model) []string {
		rows := strings.Split(ansi.Strip(m.View().Content), "\n")
		rows = rows[2 : h-3] // below the header and the top border, above the bottom border, status and hint lines
		for i, r := range rows {
			r = strings.TrimPrefix(r, "│ ")
			r = strings.TrimSuffix(r, "│")
			rows[i] = strings.TrimRight(r, " ")
		}
		return rows
	}
	lines := inside(m)
	prev := strings.Join(lines, "\n")
	for range 1000 {
		m = send(t, m, keyPress("j"))
		rows := inside(m)
		cur := strings.Join(rows, "\n")
		if cur == prev {
			break
		}
		lines = append(lines, rows[len(rows)-1])
		prev = cur
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // a short report leaves the box's last rows empty
	}
	if s := strings.Join(lines, "\n"); strings.Contains(s, "Computing…") || strings.Contains(s, "could not be computed") {
		t.Fatalf("the statistics screen has no report:\n%s", s)
	}
	return strings.Join(lines, "\n")
}

func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// send delivers one message to a screen and runs the commands it returns
// to completion, feeding their messages back as Bubble Tea would. A
// command still waiting after a moment (a verdict stream, a timer) is left
// behind.
func send(t *testing.T, m tea.Model, msg tea.Msg) tea.Model {
	t.Helper()
	m, cmd := m.Update(msg)
	return runCommand(t, m, cmd, 0)
}

// runCommand runs cmd as Bubble Tea would: the commands of a batch at
// once, each message fed to the model as it arrives and the command it
// returns run in turn, until no command has anything to say for a moment
// (stillFor). A command still waiting then (a verdict stream) is left
// behind. The commands of a batch wait side by side, so that several that
// never end cost one wait, not one each. A timer that starts itself again
// (the server's health check, every second) is followed a few ticks
// (maxTicks), not for ever; depth bounds any other chain.
func runCommand(t *testing.T, m tea.Model, cmd tea.Cmd, depth int) tea.Model {
	t.Helper()
	return runCommandFor(t, m, cmd, depth, stillFor)
}

// runCommandFor is runCommand waiting up to still for each message: for
// a command known to take longer than stillFor (a new session written
// behind the screen, under the race detector).
func runCommandFor(t *testing.T, m tea.Model, cmd tea.Cmd, depth int, still time.Duration) tea.Model {
	t.Helper()
	type result struct {
		msg   tea.Msg
		depth int
		ticks int // how many times in a row this chain came back late with its parent's message
	}
	type chain struct {
		parent tea.Msg
		depth  int
		ticks  int
	}
	results := make(chan result, 16)
	pending := 0
	start := func(cmd tea.Cmd, c chain) {
		if cmd == nil || c.depth > 20 || c.ticks >= maxTicks {
			return
		}
		pending++
		began := time.Now()
		go func() {
			msg := cmd()
			ticks := 0
			if c.parent != nil && time.Since(began) >= tickAfter && fmt.Sprintf("%T", msg) == fmt.Sprintf("%T", c.parent) {
				ticks = c.ticks + 1
			}
			results <- result{msg, c.depth, ticks}
		}()
	}
	start(cmd, chain{depth: depth})
	for pending > 0 {
		var r result
		select {
		case r = <-results:
		case <-time.After(still):
			return m
		}
		pending--
		switch msg := r.msg.(type) {
		case nil, tea.QuitMsg:
		case tea.BatchMsg:
			for _, c := range msg {
				start(c, chain{depth: r.depth + 1})
			}
		default:
			var next tea.Cmd
			m, next = m.Update(msg)
			start(next, chain{parent: msg, depth: r.depth + 1, ticks: r.ticks})
		}
	}
	return m
}

// stillFor is how long runCommand waits for a command's message before it
// takes the rest as waiting for good.
const stillFor = 2 * time.Second

// A command that answers its own kind of message after tickAfter or more
// is a timer; runCommand follows maxTicks of its ticks.
const (
	tickAfter = 500 * time.Millisecond
	maxTicks  = 3
)

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}
