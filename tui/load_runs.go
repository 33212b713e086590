package tui

import tea "charm.land/bubbletea/v2"

// The runs' verdicts are read one run at a time, the active run first,
// and packed into the run's records as they are read, off the screen's
// goroutine (loadRun; a Run's LoadEach hands them over chunk by chunk,
// never a million whole verdicts at once): the screen then adopts the
// records whole. Two runs read at once would hold both runs' session
// look-ups at the peak of a review's memory.

// nextLoad starts reading the verdicts of the next run that waits for
// them, once every item is read and no other run's are being read.
func (m *Model) nextLoad() tea.Cmd {
	if m.reading || m.loading() {
		return nil
	}
	for k := range m.runs {
		i := (m.act + k) % len(m.runs)
		if r := m.runs[i]; r.loading && (r.load != nil || r.loadEach != nil) {
			m.reading = true
			return loadRun(i, r)
		}
	}
	return nil
}
