package main

import (
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// openCarrying opens the review's session on ds. A new session of a
// dataset that carries verdict or label columns is first built whole,
// those columns imported, as `gavel import` builds it
// (sessions.BuildDatasetSessionThen: journal off, in a temporary file put
// in place when complete): opened first and filled through the WAL, a
// labelled 100,000-row file took 4.6 s to its first screen, and a million
// rows minutes. OpenReview then finds it all there; the notices say what
// was imported, as ImportCarried's do.
func openCarrying(session, annotator string, ds *dataset.Dataset) (*sessions.Review, error) {
	if len(ds.Imported) == 0 || !sessions.IsNewSession(session) {
		return sessions.OpenReview(session, annotator, ds)
	}
	var sum sessions.ImportSummary
	err := sessions.BuildDatasetSessionThen(session, ds, func(s *sessions.Store) error {
		var err error
		sum, err = sessions.ImportDataset(s, ds, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	rv, err := sessions.OpenReview(session, annotator, ds)
	if err != nil {
		return nil, err
	}
	rv.NoteImported(sum)
	return rv, nil
}
