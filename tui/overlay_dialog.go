package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// overlayKeys move through an overlay's text and close it.
type overlayKeys struct {
	scrollKeys
	Close key.Binding
}

func defaultOverlayKeys(close ...string) overlayKeys {
	closeKeys := append([]string{"esc"}, close...)
	return overlayKeys{
		scrollKeys: defaultScrollKeys(),
		Close:      key.NewBinding(key.WithKeys(closeKeys...), key.WithHelp(joinKeys(closeKeys), "close")),
	}
}

func joinKeys(ks []string) string {
	s := ""
	for i, k := range ks {
		if i > 0 {
			s += "/"
		}
		s += k
	}
	return s
}

// scroller is the scrolling state of an overlay: the offset and the page
// size of the last frame drawn.
type scroller struct {
	keys   overlayKeys
	offset int
	page   int
}

// scroll handles a key; done is true when it closes the overlay.
func (s *scroller) scroll(msg tea.Msg) (done bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false
	}
	if key.Matches(k, s.keys.Close) {
		return true
	}
	s.offset, _ = s.keys.scroll(k, s.offset, max(s.page-1, 1))
	return false
}

func (s *scroller) bindings() []key.Binding {
	return append(s.keys.bindings(), s.keys.Close)
}

// framed draws lines in a box centred on the terminal, as wide as the
// widest line (up to the terminal) and as tall as the lines (likewise),
// scrolled to the offset, which is kept within the text.
func (s *scroller) framed(st Styles, title string, lines []string, width, height int) string {
	widest := 0
	for _, l := range lines {
		widest = max(widest, ansi.StringWidth(l))
	}
	return s.framedWidest(st, title, lines, widest, width, height)
}

// framedWidest is framed given the width of the widest line, for an
// overlay that keeps it with its lines: measuring every line of a long
// text on every frame costs more than drawing the lines in view (box draws
// only those).
func (s *scroller) framedWidest(st Styles, title string, lines []string, widest, width, height int) string {
	w := min(max(widest+4, 30), width)
	h := min(len(lines)+2, height)
	s.page = h - 2
	s.offset = clampOffset(s.offset, len(lines), h-2)
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box(st, title, lines, s.offset, w, h, true))
}
