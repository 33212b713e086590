package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles holds every style the screens use, by meaning rather than by
// colour, so that one constructor can adapt them to light and dark
// terminals. Meaning never rests on colour alone: verdicts also say YES or
// NO in words, agreement carries ✓ or ✗, so NO_COLOR terminals lose nothing.
type Styles struct {
	App         lipgloss.Style // the "gavel" mark in the header
	Header      lipgloss.Style
	Muted       lipgloss.Style
	Strong      lipgloss.Style
	Border      lipgloss.Style // pane borders
	BorderFocus lipgloss.Style
	Title       lipgloss.Style // pane titles
	TitleFocus  lipgloss.Style
	Think       lipgloss.Style // <think> traces, shown dimmed
	Highlight   lipgloss.Style // the answer the judge extracted
	Yes         lipgloss.Style
	No          lipgloss.Style
	Partial     lipgloss.Style // middle values of ternary and Likert scales
	Error       lipgloss.Style // parse and API errors
	Agree       lipgloss.Style
	Disagree    lipgloss.Style
	Pending     lipgloss.Style // not yet committed to the session
	Warning     lipgloss.Style
	Key         lipgloss.Style // a key in hints and help
	KeyDesc     lipgloss.Style
	BarFull     color.Color // progress bar
	BarEmpty    color.Color
	Cell        func(share float64) lipgloss.Style // confusion-matrix cells, by share of n
	Focus       lipgloss.Style                     // the statistics figure tab moved to
}

// NewStyles builds the styles for a dark or a light background.
func NewStyles(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	accent := ld(lipgloss.Color("#5A3FC0"), lipgloss.Color("#B39DFF"))
	muted := ld(lipgloss.Color("#6B6B6B"), lipgloss.Color("#8A8A8A"))
	faint := ld(lipgloss.Color("#9A9A9A"), lipgloss.Color("#5C5C5C"))
	green := ld(lipgloss.Color("#1A7F37"), lipgloss.Color("#56D364"))
	red := ld(lipgloss.Color("#CF222E"), lipgloss.Color("#FF7B72"))
	amber := ld(lipgloss.Color("#9A6700"), lipgloss.Color("#E3B341"))
	hlBg := ld(lipgloss.Color("#FFF1A8"), lipgloss.Color("#4D3F00"))
	hlFg := ld(lipgloss.Color("#000000"), lipgloss.Color("#FFFFFF"))
	cellLow := ld(lipgloss.Color("#EAEAF2"), lipgloss.Color("#2A2840"))
	cellMid := ld(lipgloss.Color("#C9C0F0"), lipgloss.Color("#4A3F8F"))
	cellHigh := ld(lipgloss.Color("#9C8AE6"), lipgloss.Color("#7057D9"))
	base := lipgloss.NewStyle()
	return Styles{
		App:         base.Bold(true).Foreground(accent),
		Header:      base.Bold(true),
		Muted:       base.Foreground(muted),
		Strong:      base.Bold(true),
		Border:      base.Foreground(faint),
		BorderFocus: base.Foreground(accent),
		Title:       base.Foreground(muted),
		TitleFocus:  base.Bold(true).Foreground(accent),
		Think:       base.Foreground(faint).Italic(true),
		Highlight:   base.Bold(true).Foreground(hlFg).Background(hlBg),
		Yes:         base.Bold(true).Foreground(green),
		No:          base.Bold(true).Foreground(red),
		Partial:     base.Bold(true).Foreground(amber),
		Error:       base.Bold(true).Foreground(red),
		Agree:       base.Foreground(green),
		Disagree:    base.Bold(true).Foreground(red),
		Pending:     base.Foreground(amber),
		Warning:     base.Foreground(amber),
		Key:         base.Bold(true).Foreground(accent),
		KeyDesc:     base.Foreground(muted),
		BarFull:     accent,
		BarEmpty:    faint,
		Focus:       base.Bold(true).Reverse(true),
		Cell: func(share float64) lipgloss.Style {
			switch {
			case share >= 0.3:
				return base.Bold(true).Background(cellHigh)
			case share >= 0.1:
				return base.Background(cellMid)
			}
			return base.Background(cellLow)
		},
	}
}

// lipglossStyle is a short name for the style type used across the views.
type lipglossStyle = lipgloss.Style
