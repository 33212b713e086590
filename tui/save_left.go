package tui

// SaveLeft writes, once the program has ended, the decisions queued while
// a new dataset's session was being written when the screen closed before
// it was (a signal ended the program: the screen waits for the session
// only when the person quits): ready gives the written session's store,
// as Options.StoreReady does, and is called only when there is something
// to write. They are written in the order made, as the screen would have
// written them, and leave UnsavedItems. It writes nothing when the screen
// had its store (a write in flight then may still land). It returns how
// many decisions it wrote and the error that stopped it; what is left
// stays unsaved.
func (m *Model) SaveLeft(ready func() (Recorder, error)) (int, error) {
	if m.store != nil || m.save.inflight || len(m.save.queue) == 0 {
		return 0, nil
	}
	store, err := ready()
	if err != nil {
		return 0, err
	}
	n := 0
	for len(m.save.queue) > 0 {
		if err := m.save.queue[0].write(store); err != nil {
			m.save.err = err
			return n, err
		}
		m.save.queue = m.save.queue[1:]
		n++
	}
	return n, nil
}
