package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/tui"
)

// openCarrying opens the review's session on ds. A new session of a
// dataset that carries verdict or label columns is first built whole,
// those columns imported, as `gavel import` builds it
// (sessions.BuildDatasetSessionThen: journal off, in a temporary file put
// in place when complete): opened first and filled through the WAL, a
// labelled 100,000-row file took 4.6 s to its first screen, and a million
// rows minutes. OpenReview then finds it all there; the notices say what
// was imported, as ImportCarried's do. (A large one opens its screen
// first: startCarryingBuild.)
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
	dropImported(ds)
	rv, err := sessions.OpenReview(session, annotator, ds)
	if err != nil {
		return nil, err
	}
	rv.NoteImported(sum)
	return rv, nil
}

// dropImported lets go of the text of ds's verdict and label columns once
// they are imported into its session, which holds them from then on: a
// string a row and column (two columns of a million rows: 32 MB) that the
// review, holding ds, kept to its end.
func dropImported(ds *dataset.Dataset) {
	if len(ds.Imported) == 0 {
		return
	}
	cols := slices.Clone(ds.Imported) // not the head's, which may share them
	for c := range cols {
		cols[c].Values = nil
	}
	ds.Imported = cols
}

// carriesOthers reports whether a large new dataset that carries verdict
// or label columns can open its screen before they are imported
// (startCarryingBuild): unless the person is one of the annotators the
// file carries (their imported labels are their history, which the
// screen opens with) or opens on the adjudication queue (made of the
// imported labels).
func carriesOthers(head *dataset.Dataset, o reviewFlags) bool {
	if o.adjudicate {
		return false
	}
	for _, c := range head.Imported {
		if c.Role == "human" && c.Field == o.annotator {
			return false
		}
	}
	return true
}

// startCarryingBuild writes in the background the session of a large new
// dataset that carries verdict or label columns, while the screen shows
// its first items: its items as the stream parses them, then those
// columns imported, as `gavel import` builds a session
// (sessions.BuildStreamSessionThen, in a temporary file put in place when
// whole). The runs and labels imported reach the screen with the store
// (tui.LateArrivals): a labelled 100,000-row file took 4.4 s to its first
// screen when they were imported before it.
func startCarryingBuild(ctx context.Context, path, annotator string, st *dataset.Stream) *sessionBuild {
	b := &sessionBuild{done: make(chan struct{}), carrying: true}
	go func() {
		defer close(b.done)
		var sum sessions.ImportSummary
		ds, err := sessions.BuildStreamSessionThen(path, st, func(s *sessions.Store, ds *dataset.Dataset) error {
			var err error
			sum, err = sessions.ImportDataset(s, ds, nil)
			return err
		})
		if ds == nil {
			b.err = datasetError{err}
			return
		}
		b.ds = ds
		if err != nil {
			b.err = err
			return
		}
		dropImported(ds)
		// The review's memory limit, from now on, unless it held the
		// build already (buildsUnderLimit).
		limitMemory(len(ds.Items), fileSize(ds))
		rv, err := sessions.OpenReview(path, annotator, ds)
		if err != nil {
			b.err = err
			return
		}
		rv.NoteImported(sum)
		if b.arrivals, err = arrivals(ctx, rv, annotator); err != nil {
			rv.Store.Close()
			b.err = err
			return
		}
		b.rv = rv
	}()
	return b
}

// arrivals is what a session just built from a dataset's columns holds
// that the screen opened without: its runs (only imported ones: the
// judges named here wait for the session to make theirs) and the labels
// of every annotator but this one.
func arrivals(ctx context.Context, rv *sessions.Review, annotator string) (tui.Arrivals, error) {
	var a tui.Arrivals
	runs, err := rv.Store.Runs()
	if err != nil {
		return a, err
	}
	names := sessions.RunNames(runs)
	for _, r := range runs {
		a.Runs = append(a.Runs, sessionRun(ctx, rv, r, names[r.ID]))
	}
	if a.Others, err = othersOf(rv.Store, annotator); err != nil {
		return a, err
	}
	a.OthersCantJudge, err = cantJudgesExcept(rv.Store, annotator)
	return a, err
}

// othersOf reads the current labels of every annotator but annotator as
// the review screen keeps them, each added as it is read: never all held
// as sessions.Labels (a million took ~130 MB so, beside the items).
func othersOf(s *sessions.Store, annotator string) (*tui.OtherLabels, error) {
	o := &tui.OtherLabels{}
	if err := s.LabelsExceptEach(annotator, o.Add); err != nil {
		return nil, err
	}
	return o, nil
}

// arrivingStore is the recorder of a session built from a dataset's
// columns: it brings the screen what was imported.
type arrivingStore struct {
	stampingStore
	arrivals tui.Arrivals
}

func (s arrivingStore) Arrivals() tui.Arrivals { return s.arrivals }

// carriedNotice says, as the screen opens, which of the file's columns
// are still being imported.
func carriedNotice(head *dataset.Dataset) string {
	var judges, people []string
	for _, c := range head.Imported {
		switch c.Role {
		case "verdict":
			judges = append(judges, safetext.SanitizeLine(c.Field))
		case "human":
			people = append(people, safetext.SanitizeLine(c.Field))
		}
	}
	var what []string
	if len(judges) > 0 {
		what = append(what, "the verdicts of "+strings.Join(judges, ", "))
	}
	if len(people) > 0 {
		what = append(what, "the labels of "+strings.Join(people, ", "))
	}
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("importing %s from the file: they show once the session is written", strings.Join(what, " and "))
}
