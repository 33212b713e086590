package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

var (
	docqaInfo  = judge.Info{Name: "docqa", Model: "gpt-4o", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}
	likertInfo = judge.Info{Name: "likert", Dimensions: []judge.Dimension{{Name: "quality", Scale: judge.Likert}}}
)

// statsFixture is 40 items rated by three judges (two binary, one
// Likert), with parse errors, samples, a re-judge, three segments and two
// annotators, most labels reached through a filter.
func statsFixture() stats.Input {
	in := stats.Input{Judges: []stats.JudgeSpec{
		{Key: "match", Dimensions: matchInfo.Dimensions},
		{Key: "docqa · gpt-4o", Dimensions: docqaInfo.Dimensions},
		{Key: "likert", Dimensions: likertInfo.Dimensions},
	}}
	for i := range 40 {
		u := stats.Unit{ItemID: fmt.Sprintf("q%d", i+1), Segments: map[string]string{"category": []string{"a", "b", "c"}[i%3]}}
		u.Verdicts = []stats.Verdict{
			{Judge: "match", Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)}},
			{Judge: "docqa · gpt-4o", Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 3 % 2)},
				Samples: []map[string]float64{{"correct": 1}, {"correct": float64(i % 2)}}},
			{Judge: "likert", Status: judge.StatusOK, Values: map[string]float64{"quality": float64(1 + i%5)}},
		}
		if i%7 == 0 {
			u.Verdicts[0].Status, u.Verdicts[0].Values = judge.StatusParseError, nil
		}
		if i == 1 {
			u.Verdicts = append(u.Verdicts, stats.Verdict{Judge: "match", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}})
		}
		if i < 20 {
			via := "filter:disagreements"
			if i < 5 {
				via = "random"
			}
			u.Labels = []stats.Label{{Annotator: "ana", Values: map[string]float64{"correct": float64(i % 4 % 2), "quality": float64(1 + i%4)}, Provenance: via}}
			if i < 10 {
				u.Labels = append(u.Labels, stats.Label{Annotator: "bob", Values: map[string]float64{"correct": float64(i % 5 % 2), "quality": float64(1 + i%3)}, Provenance: "random"})
			}
		}
		in.Units = append(in.Units, u)
	}
	return in
}

// statsModel opens the review screen on items with the given runs (the
// first active), its statistics computed from in, and shows the
// statistics screen.
func statsModel(t *testing.T, in stats.Input, runs []Run, w, h int) *Model {
	t.Helper()
	items := testItems(max(len(in.Units), 1))
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "test.jsonl", Items: items, Runs: runs,
		Stats: func() (stats.Report, error) { return stats.Compute(in, stats.Options{Seed: 1}), nil }})
	m = update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = waitStats(t, press(t, m, "s"))
	if m.stats.report == nil {
		t.Fatal("no report after pressing s")
	}
	return m
}

// scrollAll pages through the statistics screen from the top to the
// bottom, checking that every frame fits the terminal, and returns every
// line the screen showed.
func scrollAll(t *testing.T, m *Model, w, h int) []string {
	t.Helper()
	m = press(t, m, "pgup", "pgup", "pgup")
	var seen []string
	last := -1
	for range 200 {
		s := plain(m)
		checkFits(t, s, w, h)
		for _, bad := range []string{"NaN", "Inf", "%!"} {
			if strings.Contains(s, bad) {
				t.Errorf("the screen shows %q:\n%s", bad, s)
			}
		}
		lines := strings.Split(s, "\n")
		for _, l := range lines[2 : len(lines)-3] { // inside the box
			l = strings.TrimSuffix(strings.TrimPrefix(l, "│ "), "│")
			seen = append(seen, strings.TrimRight(l, " "))
		}
		if m.stats.scroll == last {
			return seen
		}
		last = m.stats.scroll
		m = press(t, m, "pgdown")
	}
	t.Fatal("the statistics screen never reached its end")
	return nil
}

func threeRuns() []Run {
	return []Run{{Info: matchInfo, Key: "match"}, {Info: docqaInfo, Key: "docqa · gpt-4o"}, {Info: likertInfo, Key: "likert"}}
}

// Every line of the report reaches the screen, at 80×24 and 200×50, by
// paging down; nothing is cut off and no frame overflows.
func TestStatsScreenShowsEverything(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			m := statsModel(t, statsFixture(), threeRuns(), w, h)
			seen := strings.Join(scrollAll(t, m, w, h), "\n")
			for _, l := range m.stats.lines(w - 4) {
				if l = strings.TrimRight(ansi.Strip(l), " "); !strings.Contains(seen, l) {
					t.Errorf("line never shown: %q", l)
				}
			}
			for _, want := range []string{
				"match · correct (binary)", "Judge vs human  (n = ", "Cohen's kappa", "Gwet's AC1", "Krippendorff's alpha",
				"Confusion  (rows: human, columns: judge)", "Judge as a classifier", "false-pass rate", "false-fail rate",
				"Scores on the items both rated", "pass rate: judge", "The pass rate a human would give", "More random labels for a narrower interval",
				"⚠ 75% of the labelled items were reached through a filter",
				"Unbiased part  (5 labelled items reached at random",
				"Consistency", "across re-judges", "(1 of 1 re-judged item)", "across samples",
				"By segment", "category=a",
				"Judge against judge", "match vs docqa · gpt-4o · correct (binary)", "match − docqa · gpt-4o",
				"Between annotators · correct (binary)", "Fleiss' kappa", "ana – bob",
				"Intervals are 95%: Wilson for rates, normal for PPI, otherwise an item",
				"Judges, ranked by Cohen's kappa against the humans",
			} {
				if !strings.Contains(seen, want) {
					t.Errorf("the screen never shows %q", want)
				}
			}
			// Only the active judge's figures and the comparisons that
			// involve it.
			for _, not := range []string{"likert · quality (likert)", "docqa · gpt-4o · correct (binary)\n", "Between annotators · quality"} {
				if strings.Contains(seen+"\n", not) {
					t.Errorf("the screen for match shows %q", not)
				}
			}
		})
	}
}

func TestStatsScreenOrdinalJudge(t *testing.T) {
	runs := threeRuns()
	runs[0], runs[2] = runs[2], runs[0]
	m := statsModel(t, statsFixture(), runs, 100, 30)
	seen := strings.Join(scrollAll(t, m, 100, 30), "\n")
	for _, want := range []string{"likert · quality (likert)", "alpha ordinal", "alpha interval", "linear weighted kappa", "quadratic kappa",
		"Spearman's rho", "Kendall's tau-b", "mean abs. error", "mean signed diff.", "within one step", "mean score: judge", "human 5",
		"Between annotators · quality (likert)"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the ordinal screen never shows %q", want)
		}
	}
	for _, not := range []string{"Judge as a classifier", "Rogan–Gladen"} {
		if strings.Contains(seen, not) {
			t.Errorf("the ordinal screen shows %q", not)
		}
	}
	if !strings.Contains(seen, "No other judge in this session rates the same dimensions") {
		t.Error("the Likert judge has no pair, and the screen does not say why")
	}
}

// edgeInputs are the cases whose figures are partly undefined: each must
// render with "—" and a reason, never NaN.
func edgeInputs() map[string]stats.Input {
	one := func(n int, verdict func(i int) stats.Verdict, label func(i int) *stats.Label) stats.Input {
		in := stats.Input{Judges: []stats.JudgeSpec{{Key: "match", Dimensions: matchInfo.Dimensions}}}
		for i := range n {
			u := stats.Unit{ItemID: fmt.Sprintf("q%d", i+1)}
			if v := verdict(i); v.Judge != "" {
				u.Verdicts = []stats.Verdict{v}
			}
			if l := label(i); l != nil {
				u.Labels = []stats.Label{*l}
			}
			in.Units = append(in.Units, u)
		}
		return in
	}
	ok := func(v float64) stats.Verdict {
		return stats.Verdict{Judge: "match", Status: judge.StatusOK, Values: map[string]float64{"correct": v}}
	}
	lab := func(v float64) *stats.Label {
		return &stats.Label{Annotator: "tester", Values: map[string]float64{"correct": v}, Provenance: "order"}
	}
	return map[string]stats.Input{
		"no items":      one(0, nil, nil),
		"n = 0":         one(6, func(i int) stats.Verdict { return ok(float64(i % 2)) }, func(int) *stats.Label { return nil }),
		"single class":  one(6, func(int) stats.Verdict { return ok(1) }, func(int) *stats.Label { return lab(1) }),
		"perfect":       one(6, func(i int) stats.Verdict { return ok(float64(i % 2)) }, func(i int) *stats.Label { return lab(float64(i % 2)) }),
		"unparseable":   one(6, func(int) stats.Verdict { return stats.Verdict{Judge: "match", Status: judge.StatusParseError} }, func(i int) *stats.Label { return lab(float64(i % 2)) }),
		"no verdicts":   one(4, func(int) stats.Verdict { return stats.Verdict{} }, func(i int) *stats.Label { return lab(1) }),
		"api errors":    one(3, func(int) stats.Verdict { return stats.Verdict{Judge: "match", Status: judge.StatusAPIError} }, func(int) *stats.Label { return nil }),
		"one disagrees": one(2, func(int) stats.Verdict { return ok(1) }, func(i int) *stats.Label { return lab(float64(i)) }),
	}
}

// squash collapses runs of spaces, so that expectations do not depend on
// column widths.
func squash(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return s
}

func TestStatsScreenEdgeCases(t *testing.T) {
	want := map[string][]string{
		"no items":     {"labelled 0 of 0 (—)", "No item has both an ok verdict and a human label yet", "No other judge in this session rates the same dimensions", "Nobody has labelled this yet."},
		"n = 0":        {"labelled 0 of 6 (0.0%) · judged 6", "No item has both an ok verdict and a human label yet", "the judge says        50.0%", "not estimated: no item is labelled"},
		"single class": {"Judge vs human  (n = 6)", "percent agreement     100.0%", "Cohen's kappa         — (", "Gwet's AC1            1.000", "human YES"},
		"perfect":      {"Cohen's kappa         1.000", "false-pass rate       0.0%", "bias 0.0 pts"},
		"unparseable":  {"parse errors 6 (100.0%)", "judged 6 · ok 0", "No item has both an ok verdict and a human label yet"},
		"no verdicts":  {"labelled 4 of 4 (100.0%) · judged 0", "parse errors 0 (—)"},
		"api errors":   {"API errors 3 (100.0%)"},
	}
	for name, in := range edgeInputs() {
		t.Run(name, func(t *testing.T) {
			runs := []Run{{Info: matchInfo, Key: "match"}}
			m := statsModel(t, in, runs, 80, 24)
			seen := squash(strings.Join(scrollAll(t, m, 80, 24), "\n"))
			for _, w := range want[name] {
				if !strings.Contains(seen, squash(w)) {
					t.Errorf("the screen never shows %q:\n%s", w, seen)
				}
			}
		})
	}
}

// The screen keeps scrolling with j/k and pgdn/pgup, and never past the
// end.
func TestStatsScreenScrolls(t *testing.T) {
	m := statsModel(t, statsFixture(), threeRuns(), 80, 24)
	top := plain(m)
	m = press(t, m, "j", "j")
	if m.stats.scroll != 2 || plain(m) == top {
		t.Fatalf("j did not scroll: offset %d", m.stats.scroll)
	}
	m = press(t, m, "k")
	if m.stats.scroll != 1 {
		t.Errorf("k: offset %d, want 1", m.stats.scroll)
	}
	for range 50 {
		m = press(t, m, "pgdown")
	}
	n := len(m.stats.lines(76))
	if want := n - (24 - chromeRows - 2); m.stats.scroll != want {
		t.Errorf("paged past the end: offset %d, want %d", m.stats.scroll, want)
	}
	if s := plain(m); !strings.Contains(s, "bootstrap with 1000 resamples and seed 1.") {
		t.Errorf("the last page does not end the report:\n%s", s)
	}
	m = press(t, m, "esc")
	if m.screen != screenReview {
		t.Error("esc did not go back to the review screen")
	}
}

// The screen draws the renderer's lines: without its styles they are
// the text `gavel stats` prints, line for line.
func TestStyledStatsLinesAreTheText(t *testing.T) {
	r := stats.Compute(statsFixture(), stats.Options{Seed: 1})
	styled := styledStatsLines(NewStyles(true), r, render.TextWidth)
	lines := render.Lines(r, render.TextWidth)
	if len(styled) != len(lines) {
		t.Fatalf("%d styled lines, %d in the text", len(styled), len(lines))
	}
	for i := range styled {
		if got := ansi.Strip(styled[i]); got != lines[i].Plain() {
			t.Errorf("line %d: styled %q, text %q", i, got, lines[i].Plain())
		}
	}
}

// Names from the session cannot take over the terminal: the only escape
// sequences on the screen are the styles'.
func TestStatsScreenHostileNames(t *testing.T) {
	in := statsFixture()
	in.Judges[0].Key = "ma\x1b[31mtch|x"
	for i := range in.Units {
		in.Units[i].Segments["category"] = "c\x1b]0;pwned\x07|`*"
		for k := range in.Units[i].Verdicts {
			if in.Units[i].Verdicts[k].Judge == "match" {
				in.Units[i].Verdicts[k].Judge = in.Judges[0].Key
			}
		}
	}
	r := stats.Compute(in, stats.Options{Seed: 1, Resamples: -1})
	for _, l := range styledStatsLines(NewStyles(true), r, 76) {
		if p := ansi.Strip(l); strings.ContainsAny(p, "\x1b\x07") {
			t.Errorf("control character reaches the screen: %q", p)
		}
		if strings.Contains(l, "\x07") || strings.Contains(l, "\x1b]") || strings.Contains(l, "\x1b[31m") {
			t.Errorf("a name's escape sequence reaches the screen: %q", l)
		}
	}
}
