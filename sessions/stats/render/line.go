package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Role says what a piece of a line is, so that the screen can style it
// (a muted label, a section title, a shaded cell) while `gavel stats`
// prints the same text plain.
type Role int

const (
	RolePlain   Role = iota // figures and prose: no style
	RoleMuted               // labels, units, explanations
	RoleStrong              // section titles
	RoleHeader              // a judge and dimension heading
	RoleWarning             // warnings and notes
	// RoleCell is a confusion-matrix count, shaded by Span.Share, its
	// share of the items compared.
	RoleCell
	// RoleCellDiagonal is a count on the matrix's diagonal, where judge
	// and reference agree: shaded like RoleCell, and bold.
	RoleCellDiagonal
	RoleBarFull  // the filled part of a distribution bar
	RoleBarEmpty // the rest of the bar
)

var roleNames = [...]string{
	RolePlain: "plain", RoleMuted: "muted", RoleStrong: "strong", RoleHeader: "header", RoleWarning: "warning",
	RoleCell: "cell", RoleCellDiagonal: "cell-diagonal", RoleBarFull: "bar-full", RoleBarEmpty: "bar-empty",
}

// String is the role's name, the class of its HTML span.
func (r Role) String() string {
	if r < 0 || int(r) >= len(roleNames) {
		return "plain"
	}
	return roleNames[r]
}

// Span is a piece of a line with one role. Share is the cell's share of
// the items (0 to 1) for RoleCell and RoleCellDiagonal, and 0 otherwise.
// Target, when set, names the items the figure counts, for a screen that
// opens them.
type Span struct {
	Text   string
	Role   Role
	Share  float64
	Target *Target
}

// Target is the items behind a figure: those where the judge's current
// verdict on the dimension is Verdict while the humans' label (the single
// label, or the annotators' majority) is Human. Values are the scale's
// codes (judge.Scale.Values). A confusion cell is one target; the
// false-pass rate counts judge YES (1) where the human said NO (0), the
// false-fail rate the other way round.
type Target struct {
	Judge     string
	Dimension string
	Human     float64
	Verdict   float64
}

// Line is one line of the text report.
type Line []Span

// Plain is the line's text without roles.
func (l Line) Plain() string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Width is how many terminal cells the line takes.
func (l Line) Width() int { return ansi.StringWidth(l.Plain()) }

func plain(s string) Span  { return Span{Text: s} }
func muted(s string) Span  { return Span{Text: s, Role: RoleMuted} }
func strong(s string) Span { return Span{Text: s, Role: RoleStrong} }

// text is a line of one span.
func text(role Role, s string) Line { return Line{{Text: s, Role: role}} }

// Wrap word-wraps one line of text wider than width, indenting the
// continuation lines under the line's own indentation, so that nothing
// the statistics say is cut off on a narrow screen. It measures cells,
// not bytes, and keeps ANSI escape sequences whole, so the screen can
// wrap its own styled messages the same way as the report's lines.
func Wrap(s string, width int) []string {
	if ansi.StringWidth(s) <= width {
		return []string{s}
	}
	plain := ansi.Strip(s)
	lead := len(plain) - len(strings.TrimLeft(plain, " "))
	ind := min(lead+2, width/2)
	limit := max(width-ind, 10)
	kept := keepGroups(s, limit)
	parts := strings.Split(ansi.Wrap(kept, limit, ""), "\n")
	for i, p := range parts {
		if kept != s {
			p = strings.NewReplacer(nbsp, " ", nbhy, "-").Replace(p)
		}
		if i > 0 {
			p = strings.Repeat(" ", ind) + strings.TrimLeft(p, " ")
		}
		parts[i] = strings.TrimRight(p, " ")
	}
	return parts
}

// nbsp and nbhy are the non-breaking space and hyphen keepGroups puts
// in, and Wrap takes out again.
const (
	nbsp = "\u00a0"
	nbhy = "\u2011"
)

// maxGroup is the widest bracketed group kept on one line.
const maxGroup = 32

// keepGroups makes the spaces and hyphens inside short bracketed groups,
// such as "(n = 3595)" and "[-0.12, 0.45]", non-breaking, so that Wrap
// breaks before or after them, never inside; and a minus sign before a
// digit, so that "-7.7" stays whole. A group wider than maxGroup or than
// half the line (prose in parentheses) stays breakable. s is returned as
// is when it has nothing to keep, or already holds a non-breaking space
// or hyphen (which could not be told apart afterwards).
func keepGroups(s string, limit int) string {
	if !strings.ContainsAny(s, "([-") || strings.Contains(s, nbsp) || strings.Contains(s, nbhy) {
		return s
	}
	type open struct {
		at    int
		close byte
	}
	var stack []open
	keep := make([]bool, len(s))
	found := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			keep[i], found = true, true
		case c == '(' || c == '[' && (i == 0 || s[i-1] != 0x1b):
			closer := byte(')')
			if c == '[' {
				closer = ']'
			}
			stack = append(stack, open{i, closer})
		case c == ')' || c == ']':
			k := len(stack) - 1
			for k >= 0 && stack[k].close != c {
				k--
			}
			if k < 0 {
				continue
			}
			from := stack[k].at
			stack = stack[:k]
			if w := ansi.StringWidth(s[from : i+1]); w <= maxGroup && w <= limit/2+2 {
				for j := from; j <= i; j++ {
					if s[j] == ' ' || s[j] == '-' {
						keep[j], found = true, true
					}
				}
			}
		}
	}
	if !found {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case keep[i] && s[i] == '-':
			b.WriteString(nbhy)
		case keep[i]:
			b.WriteString(nbsp)
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// fit wraps every line wider than width as Wrap does, keeping each
// piece's role.
func fit(lines []Line, width int) []Line {
	out := make([]Line, 0, len(lines))
	for _, l := range lines {
		if l.Width() <= width {
			out = append(out, l)
			continue
		}
		out = append(out, split(l, Wrap(l.Plain(), width))...)
	}
	return out
}

// split cuts l into the lines Wrap made of its text. Wrap only drops
// spaces and adds indentation, so each wrapped line's text is found in
// l's text after the previous one; the spans are cut at the same places.
func split(l Line, wrapped []string) []Line {
	full := l.Plain()
	out := make([]Line, 0, len(wrapped))
	at := 0
	for _, w := range wrapped {
		body := strings.TrimLeft(w, " ")
		indent := w[:len(w)-len(body)]
		var line Line
		if indent != "" && body != "" {
			line = append(line, plain(indent))
		}
		k := strings.Index(full[at:], body)
		if k < 0 || strings.Trim(full[at:at+k], " ") != "" {
			// Not where it should be (a wrapping rule this code does not
			// know): keep the text, lose the roles.
			out = append(out, append(line, plain(body)))
			continue
		}
		start := at + k
		at = start + len(body)
		out = append(out, append(line, cut(l, start, at)...))
	}
	return out
}

// cut is the part of l's spans between two byte offsets of its text.
func cut(l Line, from, to int) Line {
	var out Line
	pos := 0
	for _, s := range l {
		n := len(s.Text)
		if a, b := max(from, pos), min(to, pos+n); a < b {
			s.Text = s.Text[a-pos : b-pos]
			out = append(out, s)
		}
		pos += n
	}
	return out
}
