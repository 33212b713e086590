package render

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions/stats"
)

func TestSelect(t *testing.T) {
	r := stats.Compute(statsFixture(), stats.Options{Seed: 1, Resamples: -1})
	tests := []struct {
		keys               []string
		judges, pairs, hum int
	}{
		{nil, 3, 1, 2},
		{[]string{"match"}, 1, 1, 1},
		{[]string{"likert"}, 1, 0, 1},
		{[]string{"likert", "docqa · gpt-4o"}, 2, 1, 2},
		{[]string{"nobody"}, 0, 0, 0},
	}
	for _, tc := range tests {
		got := Select(r, tc.keys)
		if len(got.Judges) != tc.judges || len(got.JudgePairs) != tc.pairs || len(got.Humans) != tc.hum {
			t.Errorf("Select(%q): %d judges, %d pairs, %d humans; want %d, %d, %d", tc.keys,
				len(got.Judges), len(got.JudgePairs), len(got.Humans), tc.judges, tc.pairs, tc.hum)
		}
		if got.Judges == nil || got.JudgePairs == nil || got.Humans == nil {
			t.Errorf("Select(%q) has a nil list, which JSON would write as null", tc.keys)
		}
	}
}

// Text is Lines at TextWidth, plain: no escape sequence, nothing wider
// than the screen's inside.
func TestTextIsTheLines(t *testing.T) {
	r := stats.Compute(statsFixture(), stats.Options{Seed: 1})
	lines := Lines(r, TextWidth)
	var want strings.Builder
	for _, l := range lines {
		p := l.Plain()
		if strings.ContainsAny(p, "\x1b\x07") {
			t.Fatalf("control character in line %q", p)
		}
		if w := l.Width(); w > TextWidth {
			t.Errorf("line %d cells wide: %q", w, p)
		}
		want.WriteString(p + "\n")
	}
	if got := Text(r); got != want.String() {
		t.Errorf("Text is not the lines' plain text:\n%s", got)
	}
}

// The screen styles by role: check that the pieces it styles carry the
// right one.
func TestLinesRoles(t *testing.T) {
	r := Select(stats.Compute(statsFixture(), stats.Options{Seed: 1}), []string{"match"})
	roleOf := func(text string) []Role {
		var roles []Role
		for _, l := range Lines(r, 200) {
			for _, s := range l {
				if strings.Contains(s.Text, text) {
					roles = append(roles, s.Role)
				}
			}
		}
		return roles
	}
	for text, want := range map[string]Role{
		"match · correct (binary)":    RoleHeader,
		"Judge vs human  (n = ":       RoleStrong,
		"Cohen's kappa   ":            RoleMuted,
		"  Wilson 95%":                RoleMuted,
		"⚠ 75% of the labelled items": RoleWarning,
		"█":                           RoleBarFull,
		"░":                           RoleBarEmpty,
		"match vs docqa · gpt-4o · correct (binary)": RoleHeader,
		"Intervals are 95%: Wilson for rates":        RoleMuted,
	} {
		roles := roleOf(text)
		if len(roles) == 0 {
			t.Errorf("no piece holds %q", text)
		}
		for _, got := range roles {
			if got != want {
				t.Errorf("%q is %v, want %v", text, got, want)
			}
		}
	}
	// Each confusion matrix: its cells' shares add up to one, and the
	// diagonal is apart.
	var sum float64
	diagonal, cells := 0, 0
	for _, l := range Lines(r, 200) {
		if strings.HasPrefix(l.Plain(), "Confusion") {
			sum, diagonal, cells = 0, 0, 0
		}
		for _, s := range l {
			switch s.Role {
			case RoleCellDiagonal:
				diagonal++
				fallthrough
			case RoleCell:
				cells++
				sum += s.Share
			}
		}
		if cells == 4 {
			if diagonal != 2 || sum < 0.999 || sum > 1.001 {
				t.Errorf("a 2×2 matrix with %d diagonal cells and shares adding up to %v", diagonal, sum)
			}
			cells = 0
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 20, []string{"short"}},
		{"  one two three four five six", 16, []string{"  one two", "    three four", "    five six"}},
		{"abcdefghijklmnopqrstuvwxyz", 12, []string{"abcdefghij", "  klmnopqrst", "  uvwxyz"}},
		{"\x1b[1mstyled words wrap too\x1b[0m", 12, []string{"\x1b[1mstyled", "  words wrap", "  too\x1b[0m"}},
	}
	for _, tc := range tests {
		got := Wrap(tc.in, tc.width)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tc.width {
				t.Errorf("line %q wider than %d", l, tc.width)
			}
		}
	}
}

// A wrapped line keeps its text and each piece's role.
func TestFitKeepsRoles(t *testing.T) {
	l := Line{plain("  "), muted("labels reached by"), plain(" order 5, filter:disagreements 15"), {Text: "  shaded", Role: RoleCell, Share: 0.5}}
	for _, width := range []int{12, 20, 30, 40} {
		got := fit([]Line{l}, width)
		want := Wrap(l.Plain(), width)
		if len(got) != len(want) {
			t.Fatalf("width %d: %d lines, Wrap gives %d", width, len(got), len(want))
		}
		for i, g := range got {
			if g.Plain() != want[i] {
				t.Errorf("width %d, line %d: %q, Wrap gives %q", width, i, g.Plain(), want[i])
			}
			for _, s := range g {
				if strings.TrimLeft(s.Text, " ") == "" {
					continue // the indentation of a continuation line
				}
				if !slices.ContainsFunc(l, func(o Span) bool {
					return o.Role == s.Role && o.Share == s.Share && strings.Contains(o.Text, s.Text)
				}) {
					t.Errorf("width %d: %+v is no part of a piece of the line", width, s)
				}
			}
		}
	}
}

// Undefined figures read "—" with a reason, in every format.
func TestEdgeCasesHaveNoNaN(t *testing.T) {
	for name, in := range edgeInputs() {
		r := stats.Compute(in, stats.Options{Seed: 1})
		for format, out := range map[string]string{"text": Text(r), "markdown": Markdown(r), "html": HTML(r)} {
			for _, bad := range []string{"NaN", "Inf", "%!"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s: the %s shows %q:\n%s", name, format, bad, out)
				}
			}
		}
	}
}
