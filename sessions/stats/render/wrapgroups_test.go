package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions/stats"
)

func TestWrapKeepsGroupsWhole(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"docqa vs human · correct (binary)  (n = 3595)", 30, []string{"docqa vs human · correct", "  (binary)  (n = 3595)"}},
		{"agreement 91.1% [90.2%, 92.0%] over the labelled items", 30, []string{"agreement 91.1%", "  [90.2%, 92.0%] over the", "  labelled items"}},
		// Prose in parentheses wider than half the line still wraps.
		{"a note (which says a great deal more than fits on one line) ends", 30, []string{"a note (which says a great", "  deal more than fits on one", "  line) ends"}},
		{"\x1b[1mstyled (n = 12) words\x1b[0m", 14, []string{"\x1b[1mstyled", "  (n = 12)", "  words\x1b[0m"}},
	}
	for _, tc := range tests {
		got := Wrap(tc.in, tc.width)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tc.width || strings.Contains(l, nbsp) {
				t.Errorf("line %q wider than %d or holding a non-breaking space", l, tc.width)
			}
		}
	}
}

// At narrow widths, no line of the report ends inside "(n = …)" or an
// interval, and the report's words are all there, in order.
func TestNarrowReportKeepsGroups(t *testing.T) {
	r := stats.Compute(statsFixture(), stats.Options{Seed: 1})
	// The words, less the distribution bars, whose length follows the width.
	words := func(text string) string {
		var out []string
		for _, w := range strings.Fields(text) {
			if !strings.ContainsAny(w, "█░") {
				out = append(out, w)
			}
		}
		return strings.Join(out, " ")
	}
	// The judge table lays itself out by width (one line per row, or the
	// figures flowing under the name), so the words are compared on the
	// rest of the report.
	detail := func(width int) string {
		var b strings.Builder
		for _, l := range DetailLines(r, width) {
			b.WriteString(l.Plain() + "\n")
		}
		return b.String()
	}
	wide := words(detail(1000))
	open := regexp.MustCompile(`\((n =?)?\s*$|\[[^\]]*$`)
	for _, width := range []int{30, 40, 60} {
		text := TextAt(r, width)
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if ansi.StringWidth(l) > width {
				t.Errorf("width %d: line %d cells wide: %q", width, ansi.StringWidth(l), l)
			}
			if open.MatchString(l) {
				t.Errorf("width %d: line ends inside a group: %q", width, l)
			}
			if strings.HasPrefix(strings.TrimLeft(l, " "), "= ") || strings.HasSuffix(l, "(n") {
				t.Errorf("width %d: \"(n = …)\" split: %q", width, l)
			}
		}
		if words(detail(width)) != wide {
			t.Errorf("width %d: the words changed", width)
		}
	}
	if TextAt(r, TextWidth) != Text(r) {
		t.Error("Text is not TextAt(TextWidth)")
	}
}
