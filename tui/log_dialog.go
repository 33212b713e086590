package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// logDialog shows the message log, newest last, each message whole.
type logDialog struct {
	log *messageLog
	// hide is the id of the item on screen as a re-test ("" when none):
	// the messages about it (its first note, tags, can't judge) are left
	// out. The dialog is modal, so the re-test stays the same while open.
	hide string
	scroller
}

// newLogDialog opens the log at its end and marks every message read;
// the messages about item hide are left out (see logDialog.hide).
func newLogDialog(l *messageLog, hide string) *logDialog {
	l.read = len(l.entries)
	return &logDialog{log: l, hide: hide, scroller: scroller{keys: defaultOverlayKeys("m", "q"), offset: endOfPane}}
}

func (d *logDialog) update(msg tea.Msg) (tea.Cmd, bool) { return nil, d.scroll(msg) }

func (d *logDialog) overlay(st Styles, width, height int) string {
	inner := max(min(width, 120)-4, 20)
	var lines []string
	if len(d.log.entries) == 0 {
		lines = []string{st.Muted.Render("Nothing said yet.")}
	}
	for _, e := range d.log.entries {
		if d.hide != "" && e.about == d.hide {
			continue
		}
		mark, style := "·", st.KeyDesc
		switch e.sev {
		case sevWarning:
			mark, style = "!", st.Warning
		case sevError:
			mark, style = "✗", st.Error
		}
		prefix := e.at.Format("15:04:05") + " " + mark + " "
		for i, l := range wrapPlain(Sanitize(e.text), inner-len(prefix)) {
			if i == 0 {
				lines = append(lines, st.Muted.Render(e.at.Format("15:04:05")+" ")+style.Render(mark)+" "+l)
			} else {
				lines = append(lines, "           "+l)
			}
		}
	}
	if d.hide != "" {
		// Said whether or not there were any, so that it tells nothing.
		for _, l := range wrapPlain("Messages about the item being re-tested are hidden until it is decided.", inner) {
			lines = append(lines, st.Muted.Render(l))
		}
	}
	lines = padLines(lines, inner)
	return d.framed(st, "Messages · esc closes", lines, width, height)
}

func (d *logDialog) ShortHelp() []key.Binding {
	return []key.Binding{d.keys.Down, d.keys.Up, d.keys.Close}
}

func (d *logDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.bindings()} }

// padLines makes the first line as wide as width, so that a framed box
// takes the width the text was wrapped to.
func padLines(lines []string, width int) []string {
	if len(lines) > 0 {
		if gap := width - ansi.StringWidth(lines[0]); gap > 0 {
			lines[0] += strings.Repeat(" ", gap)
		}
	}
	return lines
}
