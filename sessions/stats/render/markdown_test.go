package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// checkMarkdownTables checks that every table row has as many cells as
// its header, so a name with "|" cannot shift the columns.
func checkMarkdownTables(t *testing.T, md string) {
	t.Helper()
	cells := func(l string) int { return strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") - 1 }
	want := -1
	tables := 0
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			want = -1
			continue
		}
		if want < 0 {
			want = cells(l)
			tables++
			continue
		}
		if got := cells(l); got != want {
			t.Errorf("table row with %d cells, header has %d: %q", got, want, l)
		}
	}
	if tables == 0 {
		t.Error("no table in the Markdown")
	}
}

func TestMarkdown(t *testing.T) {
	r := stats.Compute(statsFixture(), stats.Options{Seed: 1})
	md := Markdown(r)
	checkMarkdownTables(t, md)
	for _, want := range []string{
		"# Agreement statistics", "## match · correct (binary)", "## likert · quality (likert)",
		"### Judge vs human (n = ", "| Statistic | Value | 95% interval | Note |", "| Cohen's kappa |",
		"| Quadratic weighted kappa |", "| Kendall's tau-b |", "### Judge as a classifier", "| False-pass rate |",
		"## Judges, ranked by Cohen's kappa against the humans", "### The pass rate a human would give", "### More random labels", "> **Warning:** 75% of the labelled items", "### Unbiased part", "### Consistency",
		"### By segment", "| category=a |", "## Judge against judge", "## Between annotators", "| ana | bob |",
		"bootstrap with 1000 resamples and seed 1", "(leniency)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

// Names from the session cannot take over the terminal, break a table or
// add markup to a page.
func TestHostileNames(t *testing.T) {
	r := stats.Compute(hostileFixture(), stats.Options{Seed: 1, Resamples: -1})
	for _, l := range Lines(r, TextWidth) {
		if p := l.Plain(); strings.ContainsAny(p, "\x1b\x07\u202e") {
			t.Errorf("control character reaches the text: %q", p)
		}
	}
	md := Markdown(r)
	if strings.ContainsAny(md, "\x1b\x07\u202e") {
		t.Error("control character reaches the Markdown")
	}
	if m := regexp.MustCompile(`[^\\\n][<>]`).FindString(md); m != "" {
		t.Errorf("markup reaches the Markdown unescaped: %q", m)
	}
	checkMarkdownTables(t, md)
}
