package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// View draws the whole screen. Only the root model returns a tea.View; the
// screens below it return strings.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "gavel · " + SanitizeLine(m.dataset)
	return v
}

func (m Model) render() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	if m.width < minWidth || m.height < minHeight {
		msg := fmt.Sprintf("The terminal is %d×%d; Gavel needs at least %d×%d.\nMake the window larger, or press q to quit.", m.width, m.height, minWidth, minHeight)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, ansi.Wordwrap(msg, m.width, ""))
	}
	if m.showHelp {
		return m.helpView()
	}
	var body string
	switch {
	case len(m.items) == 0:
		body = lipgloss.Place(m.width, m.height-chromeRows, lipgloss.Center, lipgloss.Center, "The dataset has no items.")
	case m.screen == screenStats:
		body = m.statsView(m.width, m.height-chromeRows)
	case m.screen == screenList:
		body = m.listView(m.width, m.height-chromeRows)
	default:
		body = m.reviewBody()
	}
	return strings.Join([]string{m.headerLine(), body, m.statusLine(), m.hintLine()}, "\n")
}

// reviewBody draws the four panes where layout placed them.
func (m *Model) reviewBody() string {
	rects := m.layout()
	type placed struct {
		r     rect
		lines []string
	}
	var ps []placed
	for p := range numPanes {
		rc := rects[p]
		inner := rc.w - 4
		title := paneTitles[p]
		if p == paneVerdict {
			if r := m.run(); r != nil {
				title = "Verdict · " + SanitizeLine(r.info.Name)
			}
		}
		off := clampOffset(m.scroll[p], m.paneLenAt(p, inner), rc.h-2)
		s := box(m.styles, title, m.paneLines(p, inner), off, rc.w, rc.h, p == m.focus)
		ps = append(ps, placed{rc, strings.Split(s, "\n")})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].r.x < ps[j].r.x })
	rows := make([]string, m.height-chromeRows)
	for y := range rows {
		var b strings.Builder
		for _, p := range ps {
			if sy := y + 1 - p.r.y; sy >= 0 && sy < len(p.lines) && sy < p.r.h {
				b.WriteString(p.lines[sy])
			}
		}
		rows[y] = b.String()
	}
	return strings.Join(rows, "\n")
}

// headerLine: what is open on the left, where the reviewer is on the
// right. When space runs short the dataset's name is cut first, so the
// judge being reviewed stays in view.
func (m *Model) headerLine() string {
	st := m.styles
	var tail string
	if r := m.run(); r != nil {
		tail = st.Muted.Render(" · judge ") + SanitizeLine(r.name())
		if len(m.runs) > 1 {
			tail += st.Muted.Render(fmt.Sprintf(" (%d/%d)", m.act+1, len(m.runs)))
		}
	}
	if m.annotator != "" {
		tail += st.Muted.Render(" · ") + SanitizeLine(m.annotator)
	}
	right := ""
	if len(m.items) > 0 {
		it := m.items[m.cur]
		right = fmt.Sprintf("item %d/%d · %s", m.cur+1, len(m.items), SanitizeLine(it.ID))
		if m.filtered() {
			what := m.sel.filter.name
			if m.sel.filter.id == "all" {
				what = m.sel.order.String()
			}
			right = st.Warning.Render(fmt.Sprintf("%d/%d %s · ", m.sel.pos+1, len(m.sel.items), ansi.Truncate(what, 24, "…"))) + right
		}
		if m.blind {
			right = st.Warning.Render("blind · ") + right
		}
		if seg := segmentText(it.Segments); seg != "" {
			right += st.Muted.Render(" · " + SanitizeLine(seg))
		}
		if m.reviewed[m.cur] {
			right += st.Agree.Render(" ✓")
		}
	}
	app := st.App.Render("gavel") + " "
	room := m.width - ansi.StringWidth(app) - ansi.StringWidth(tail) - ansi.StringWidth(right) - 1
	name := ansi.Truncate(SanitizeLine(m.dataset), max(room, 8), "…")
	return spread(app+st.Header.Render(name)+tail, right, m.width)
}

func segmentText(segs map[string]string) string {
	if len(segs) == 0 {
		return ""
	}
	keys := make([]string, 0, len(segs))
	for k := range segs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = segs[k]
	}
	return strings.Join(parts, " · ")
}

// statusLine: review progress and running agreement on the left, judging
// progress and whether everything is saved on the right.
func (m *Model) statusLine() string {
	st := m.styles
	frac := 0.0
	if m.nApplic > 0 {
		frac = float64(m.nReviewed) / float64(m.nApplic)
	}
	left := fmt.Sprintf("reviewed %d/%d ", m.nReviewed, m.nApplic) + m.bar(frac)
	if m.nCompared > 0 {
		left += fmt.Sprintf(" · agreement %d/%d = %.0f%%", m.nAgree, m.nCompared, 100*float64(m.nAgree)/float64(m.nCompared))
	}
	var right []string
	if r := m.run(); r != nil && r.loading {
		right = append(right, st.Muted.Render("reading verdicts…"))
	}
	if r := m.run(); r != nil && r.judging() {
		p := r.progress()
		frac = 0
		if p.Total > 0 {
			frac = float64(p.Done) / float64(p.Total)
		}
		s := fmt.Sprintf("judging %d/%d ", p.Done, p.Total) + m.bar(frac)
		if p.Errors > 0 {
			s += st.Error.Render(fmt.Sprintf(" · %d errors", p.Errors))
		}
		if p.Tokens > 0 {
			s += st.Muted.Render(" · " + compact(p.Tokens) + " tokens")
		}
		right = append(right, s)
	}
	switch {
	case m.save.err != nil:
		right = append(right, st.Error.Render("✗ not saved"))
	case m.save.inflight || len(m.save.queue) > 0:
		right = append(right, st.Pending.Render("saving…"))
	case m.nReviewed > 0 || len(m.labels.groups) > 0:
		right = append(right, st.Agree.Render("✓ saved"))
	}
	return spread(left, strings.Join(right, st.Muted.Render(" · ")), m.width)
}

// bar is a small progress bar for the status line.
func (m *Model) bar(frac float64) string {
	b := progress.New(progress.WithWidth(min(16, max(m.width/10, 6))), progress.WithoutPercentage(),
		progress.WithColors(m.styles.BarFull), progress.WithFillCharacters('█', '░'))
	return b.ViewAs(frac)
}

// hintLine shows the note editor, a message, or the main keys.
func (m *Model) hintLine() string {
	st := m.styles
	switch {
	case m.noting:
		return st.Key.Render("note ") + m.note.View()
	case m.searching:
		return st.Key.Render("search ") + m.query.View()
	case m.confirm != nil:
		return ansi.Truncate(st.Warning.Render(m.confirm.question), m.width, "…")
	case m.save.err != nil && m.flash == "":
		return ansi.Truncate(st.Error.Render("Not saved: "+SanitizeLine(m.save.err.Error())+" — retrying; labels on screen are not in the session yet."), m.width, "…")
	case m.flash != "":
		s := st.Warning
		if m.flashError {
			s = st.Error
		}
		return ansi.Truncate(s.Render(SanitizeLine(m.flash)), m.width, "…")
	}
	bindings := m.keys.ShortHelp()
	if m.screen == screenStats {
		bindings = []keyBinding{m.keys.Back, m.keys.Down, m.keys.PageDown, m.keys.Help, m.keys.Quit}
	}
	var parts []string
	width := 0
	for _, b := range bindings {
		k, d := hint(b)
		part := st.Key.Render(k) + " " + st.KeyDesc.Render(d)
		w := ansi.StringWidth(part) + 3
		if width+w > m.width {
			break
		}
		width += w
		parts = append(parts, part)
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// spread puts left and right on one line of the given width, cutting the
// left part first when they do not fit.
func spread(left, right string, width int) string {
	rw := ansi.StringWidth(right)
	if rw > width {
		return ansi.Truncate(right, width, "…")
	}
	left = ansi.Truncate(left, max(width-rw-1, 0), "…")
	gap := width - ansi.StringWidth(left) - rw
	return left + strings.Repeat(" ", max(gap, 0)) + right
}

func compact(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
