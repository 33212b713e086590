package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// newSession reports whether no session exists at path yet: a review
// then reads the dataset as a stream (reviewStream).
func newSession(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// reviewStream reviews a dataset whose session does not exist yet. The
// file is parsed in the background (dataset.Stream) and the screen opens
// as soon as its first page is parsed: a million rows parse in seconds,
// the first page in milliseconds. The other items reach the screen in
// pages as they are parsed, and the session is written once the last one
// is, the checks that need every row passed (a bad row further on, a
// duplicate id): until then labels wait in the screen's queue, as they
// wait for any session written in the background. The items after the
// first page keep nothing of the file's bytes (dataset.Stream.StoreFields):
// their texts, and their rows in the form the session stores them, as a
// reopened review holds its items. The verdict and label columns a
// dataset carries are imported as the session is written
// (startCarryingBuild) and reach the screen with it. A dataset that
// cannot open that way — small, carrying labels of this very annotator or
// reviewed on the adjudication queue (carriesOthers), a `gavel export`
// file, pairs with the default judge, a judge file whose fields every
// item is checked for, or a format that is not read as a stream — is read
// whole first, as before.
func reviewStream(ctx context.Context, e env, path string, o reviewFlags) error {
	st, err := o.data.stream(path)
	if err != nil {
		return err
	}
	first, _, err := st.Items(firstPage)
	if err != nil {
		return err // a bad row among the first: said as if read whole
	}
	cfg := o.runner.config(e.getenv)
	js, err := resolveJudges(o.judges, cfg)
	if err != nil {
		st.Close() // nothing more of the file is read
		return err
	}
	if o.annotator == "" {
		if o.annotator, err = e.annotatorDefault(); err != nil {
			st.Close()
			return err
		}
	}
	if err := o.checkAdjudicateNew(st.Head(), shellWordArg(path), "gavel review "+shellWordArg(path)+" --session "+shellWordArg(o.session)); err != nil {
		st.Close()
		return err
	}
	if !opensBeforeRead(st, first, js, o) {
		ds, err := st.Wait()
		if err != nil {
			return err
		}
		return review(ctx, e, ds, o, nil)
	}
	head := st.Head()
	// The rest of the file is read keeping nothing of its bytes: each
	// item's texts are copied out and its row kept in the form the
	// session stores it (as a reopened review holds it), so that the
	// screen holds about the size of the texts, not the file besides.
	// Columns to import are read as `gavel import` reads them, a row
	// that may be an export's whole.
	var carrying *dataset.Stream
	if len(head.Imported) > 0 {
		st.StoreFields(sessions.ImportFieldsEncoder)
		carrying = st
	} else {
		st.StoreFields(sessions.StoredFieldsEncoder)
	}
	tuneGC(st.Lines())
	if size := fileSize(head); carrying == nil || buildsUnderLimit(size) {
		limitMemory(st.Lines(), size)
	} // else once the session is written (startCarryingBuild)
	nd := newDataset{
		head:     head,
		first:    first,
		more:     streamPages(st),
		count:    st.Lines(),
		whole:    st.Wait,
		carrying: carrying,
		late: func(ds *dataset.Dataset) []string {
			// What the end of the file added to the warnings, then
			// what review tells of the judges and the items.
			notes := slices.Clone(ds.Warnings[len(head.Warnings):])
			warnings, _ := checkJudgeFields(js.entries, ds) // built-in judges: warnings only
			return append(notes, warnings...)
		},
	}
	return reviewNew(ctx, e, nd, o, js, cfg)
}

// opensBeforeRead reports whether the screen can open on the stream's
// first page, the session written once the stream ends: the conditions
// of buildsInBackground, decided on the first page where they can be (a
// `gavel export` file is told by its first row, as RestoreExported tells
// it), and judges whose checks of the items (checkJudgeFields) give
// warnings only — the built-in ones — so that the screen never opens on a
// dataset the judges refuse.
func opensBeforeRead(st *dataset.Stream, first []judge.Item, js judgeSet, o reviewFlags) bool {
	if !st.Streams() || st.Lines() < backgroundBuildFrom {
		return false
	}
	if len(st.Head().Imported) > 0 && !carriesOthers(st.Head(), o) {
		return false
	}
	probe := &dataset.Dataset{Items: first}
	if sessions.RestoreExported(probe) != probe {
		return false
	}
	if o.defaultJudge && allPairs(first) {
		return false // the whole dataset decides (pairsWithoutJudge)
	}
	for _, en := range js.entries {
		if en.Source != "built-in" {
			return false
		}
	}
	return true
}

// streamPages hands the screen the stream's items page by page after its
// first, each call waiting until the next page is parsed.
func streamPages(st *dataset.Stream) func() ([]judge.Item, bool, error) {
	n := firstPage
	return func() ([]judge.Item, bool, error) {
		n += nextPage
		return st.Items(n)
	}
}

// fileSize is the size of the dataset's file, the measure of a review's
// memory (limitMemory); 0, for no limit, when the file is compressed (its
// items take many times its size) or unknown.
func fileSize(ds *dataset.Dataset) int64 {
	if ds.Path == "" || ds.Compression != "" {
		return 0
	}
	st, err := os.Stat(ds.Path)
	if err != nil {
		return 0
	}
	return st.Size()
}
