package tui

import tea "charm.land/bubbletea/v2"

// The runs' verdicts are read one run at a time, the active run first: a
// run's Load returns every verdict whole (a million take ~200 MB, with
// the session's look-ups beside them) before the screen packs them into
// its records, so two runs read at once held both runs' at the peak of a
// review's memory.

// nextLoad starts reading the verdicts of the next run that waits for
// them, once every item is read and no other run's are being read.
func (m *Model) nextLoad() tea.Cmd {
	if m.reading || m.loading() {
		return nil
	}
	for k := range m.runs {
		i := (m.act + k) % len(m.runs)
		if r := m.runs[i]; r.loading && r.load != nil {
			m.reading = true
			return loadRun(i, r.load)
		}
	}
	return nil
}
