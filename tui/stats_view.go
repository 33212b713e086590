package tui

import "charm.land/lipgloss/v2"

// statsView is the statistics screen.
func (m *Model) statsView(width, height int) string {
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, "statistics: coming")
}
