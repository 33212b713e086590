package dataset

import "github.com/gavel-dev/gavel/judge"

// More waits until more than n items are parsed, or the parse has ended,
// and returns every item parsed so far (not only the next one: a writer
// that takes the items as they come asks for what is past what it has),
// whether those are every item of a dataset read without error, and the
// error that ended the parse (the items before the bad row are still
// returned). As with Items, the items returned never change, and asking
// for more than the first page holds starts reading the rest of the file.
func (s *Stream) More(n int) ([]judge.Item, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.ended && s.packed <= n {
		if s.next > 0 {
			s.startRest() // the first page is in, and more is wanted
		}
		s.cond.Wait()
	}
	if s.ended && s.err == nil {
		return s.ds.Items, true, nil
	}
	return s.slots[:s.packed], false, s.err
}
