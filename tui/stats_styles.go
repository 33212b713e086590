package tui

import "charm.land/lipgloss/v2"

// PlainStyles returns styles that draw nothing: no colour, no bold. The
// statistics renderers (StatsLines, StatsDimensionLines) take it to print
// the screen's exact lines as plain text, as `gavel stats` does.
func PlainStyles() Styles {
	base := lipgloss.NewStyle()
	return Styles{
		App: base, Header: base, Muted: base, Strong: base,
		Border: base, BorderFocus: base, Title: base, TitleFocus: base,
		Think: base, Highlight: base, Yes: base, No: base, Partial: base,
		Error: base, Agree: base, Disagree: base, Pending: base, Warning: base,
		Key: base, KeyDesc: base,
		Cell: func(float64) lipgloss.Style { return base },
	}
}
