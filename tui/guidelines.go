package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// guidelinesDialog shows the annotation guidelines (SPEC "Labelling
// well"): the Markdown a person labels by, not the judge's prompt. It is a
// scrollable overlay, opened by the guidelines key and once by itself when
// the session sees this version for the first time. The text is shown as
// written, Markdown marks included, sanitised: a guidelines file is text
// from a user and may hold escape sequences.
type guidelinesDialog struct {
	title string
	intro string // said above the text when it opened by itself
	text  string // sanitised
	// The lines drawn (intro and text wrapped, the first padded) and the
	// width of the widest, kept for the width and styles they were made
	// with: the text may be a megabyte, and a frame is drawn on every key,
	// so a frame only draws the lines in view (box) and measures none.
	wrapped []string
	widest  int
	wrapW   int
	wrapSt  string // styleMark of the styles they were made with
	scroller
}

// guidelinesBytes caps the text shown (the review refuses a bigger file).
const guidelinesBytes = 1 << 20

func newGuidelinesDialog(g *Guidelines, first bool) *guidelinesDialog {
	title := "Guidelines"
	if p := strings.TrimSpace(g.Path); p != "" {
		title += " · " + SanitizeLine(Clip(p, 128))
	}
	d := &guidelinesDialog{title: title, text: Sanitize(Clip(g.Text, guidelinesBytes)),
		scroller: scroller{keys: defaultOverlayKeys("i", "q")}}
	if first {
		d.intro = "New guidelines for this session: please read them before labelling. i shows them again; esc closes."
	}
	return d
}

func (d *guidelinesDialog) update(msg tea.Msg) (tea.Cmd, bool) { return nil, d.scroll(msg) }

func (d *guidelinesDialog) overlay(st Styles, width, height int) string {
	inner := max(min(width, 104)-4, 20)
	if mark := styleMark(st); d.wrapped == nil || d.wrapW != inner || d.wrapSt != mark {
		d.wrap(st, inner)
		d.wrapW, d.wrapSt = inner, mark
	}
	return d.framedWidest(st, d.title+" · esc closes, j/k scroll", d.wrapped, d.widest, width, height)
}

// wrap makes the lines drawn at inner cells and measures the widest once.
func (d *guidelinesDialog) wrap(st Styles, inner int) {
	var lines []string
	if d.intro != "" {
		for _, l := range wrapPlain(d.intro, inner) {
			lines = append(lines, st.Warning.Render(l))
		}
		lines = append(lines, "")
	}
	lines = padLines(append(lines, d.lines(st, inner)...), inner)
	d.widest = 0
	for _, l := range lines {
		d.widest = max(d.widest, ansi.StringWidth(l))
	}
	d.wrapped = lines
}

// styleMark tells styles apart for a cache of lines rendered with them:
// the terminal's background, learnt after the first frame, changes them.
func styleMark(st Styles) string {
	return st.Warning.Render("x") + st.Strong.Render("x") + st.Muted.Render("x")
}

// lines wraps the text to inner cells, each line on its own so that
// Markdown's line structure (lists, headings) stays; headings are bold.
func (d *guidelinesDialog) lines(st Styles, inner int) []string {
	if strings.TrimSpace(d.text) == "" {
		return []string{st.Muted.Render("The guidelines file is empty.")}
	}
	var out []string
	for _, src := range strings.Split(strings.TrimRight(d.text, "\n"), "\n") {
		heading := strings.HasPrefix(strings.TrimSpace(src), "#")
		wrapped := wrapPlain(src, inner)
		if len(wrapped) == 0 {
			wrapped = []string{""}
		}
		for _, l := range wrapped {
			if heading {
				l = st.Strong.Render(l)
			}
			out = append(out, l)
		}
	}
	return out
}

func (d *guidelinesDialog) ShortHelp() []key.Binding {
	return []key.Binding{d.keys.Down, d.keys.Up, d.keys.PageDown, d.keys.Close}
}

func (d *guidelinesDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.bindings()} }

// openGuidelines shows the guidelines, or says how to give some.
func (s *reviewScreen) openGuidelines() action {
	if s.guidelines == nil {
		s.hint("This session has no guidelines: gavel review … --guidelines FILE shows a Markdown file here (and records its version with each label).")
		return action{}
	}
	return action{open: newGuidelinesDialog(s.guidelines, false)}
}
