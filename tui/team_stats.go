package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// teamLines is the statistics screen's first part on a team session: each
// person's progress (assigned, claimed, done, from the queue when the
// session has one), then the agreement between people so far on the
// active judge's dimensions, from the report (its full figures are under
// "Between annotators" below).
func (s *statsScreen) teamLines(width int) []render.Line {
	t := s.team
	if t == nil {
		return nil
	}
	muted := func(text string) render.Span { return render.Span{Text: text, Role: render.RoleMuted} }
	plain := func(text string) render.Span { return render.Span{Text: text} }
	title := "Team"
	if t.where != "" {
		title += " · " + SanitizeLine(Clip(t.where, 256))
	}
	out := []render.Line{{{Text: ansi.Truncate(title, width, "…"), Role: render.RoleStrong}}}
	if t.err != nil {
		for _, l := range wrapPlain("⚠ not up to date: the session cannot be read ("+SanitizeLine(Clip(t.err.Error(), 200))+"); trying again every 2 seconds", max(width-2, 10)) {
			out = append(out, render.Line{{Text: "  " + l, Role: render.RoleWarning}})
		}
	}
	rows := t.progress
	queue := false
	for _, p := range rows {
		queue = queue || p.Assigned > 0 || p.Claimed > 0
	}
	switch {
	case len(rows) == 0 && t.at.IsZero():
		out = append(out, render.Line{muted("  Reading the team's progress…")})
	case len(rows) == 0:
		out = append(out, render.Line{muted("  Nobody has decided an item yet.")})
	default:
		nameW := 9
		for _, p := range rows {
			nameW = max(nameW, min(ansi.StringWidth(SanitizeLine(p.Annotator))+len(" (you)"), 24))
		}
		if queue {
			out = append(out, render.Line{muted(fmt.Sprintf("  %s %9s %8s %6s", fixCells("annotator", nameW), "assigned", "claimed", "done"))})
		} else {
			out = append(out, render.Line{muted(fmt.Sprintf("  %s %6s", fixCells("annotator", nameW), "decided"))})
		}
		for _, p := range rows {
			name := SanitizeLine(p.Annotator)
			if p.Annotator == s.annotator {
				name += " (you)"
			}
			name = fixCells(name, nameW)
			if queue {
				line := render.Line{plain(fmt.Sprintf("  %s %9d %8d %6d", name, p.Assigned, p.Claimed, p.Done))}
				if p.Assigned > 0 {
					// Of their share, what is gone: done by them or
					// taken by others (Done counts what they took from
					// others too, so it is not the measure).
					gone := min(max(p.Assigned-p.Left, 0), p.Assigned)
					text := fmt.Sprintf("  %s of their share", stats.FormatPercent(float64(gone)/float64(p.Assigned), 0))
					if p.Taken > 0 {
						text += fmt.Sprintf(" (%d taken by others)", p.Taken)
					}
					line = append(line, muted(text))
				}
				out = append(out, line)
			} else {
				out = append(out, render.Line{plain(fmt.Sprintf("  %s %6d", name, p.Done))})
			}
		}
	}
	out = append(out, s.betweenPeople(width)...)
	return out
}

// betweenPeople is one line per dimension of the active judge: how many
// items two or more people labelled, and how often they agree.
func (s *statsScreen) betweenPeople(width int) []render.Line {
	if s.report == nil {
		return nil
	}
	var dims []string
	if r := s.run(); r != nil {
		for _, d := range r.info.Dimensions {
			dims = append(dims, d.Name)
		}
	}
	var out []render.Line
	for _, h := range s.report.Humans {
		if len(dims) > 0 && !slices.Contains(dims, h.Dimension) {
			continue
		}
		label := "  between people · " + SanitizeLine(Clip(h.Dimension, 64)) + ": "
		text, role := "no item labelled by two people yet", render.RoleMuted
		if len(h.Annotators) >= 2 && h.Pairable > 0 {
			text, role = fmt.Sprintf("%s by two or more, agreement %s", itemCount(h.Pairable), intervalText(h.PercentAgreement, true)), render.RolePlain
			if h.AlphaNominal.Defined() {
				text += ", α " + stats.FormatNumber(h.AlphaNominal.Value, 3)
			}
		}
		if ansi.StringWidth(label+text) <= width {
			out = append(out, render.Line{{Text: label, Role: render.RoleMuted}, {Text: text, Role: role}})
			continue
		}
		out = append(out, render.Line{{Text: ansi.Truncate(label, width, "…"), Role: render.RoleMuted}})
		for _, l := range wrapPlain(text, max(width-4, 10)) {
			out = append(out, render.Line{{Text: "    " + l, Role: role}})
		}
	}
	return out
}

// intervalText is "72.0% [65.1%, 78.2%]", or "—".
func intervalText(i stats.Interval, percent bool) string {
	f := func(v float64) string { return stats.FormatNumber(v, 3) }
	if percent {
		f = func(v float64) string { return stats.FormatPercent(v, 1) }
	}
	if !i.Defined() {
		return stats.Undefined
	}
	s := f(i.Value)
	if i.HasBounds() {
		s += fmt.Sprintf(" [%s, %s]", f(i.Low), f(i.High))
	}
	return s
}

// fixCells pads or cuts text to n cells.
func fixCells(text string, n int) string {
	text = ansi.Truncate(text, n, "…")
	return text + strings.Repeat(" ", max(n-ansi.StringWidth(text), 0))
}
