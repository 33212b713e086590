package main

import (
	"os"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// firstPage is how many items a reopened session reads before its first
// frame: enough for the first screens, a few milliseconds to read.
// nextPage is how many each background read adds after it: taking a
// page in on the screen's loop costs about 1 µs an item (BenchmarkItemsPage),
// well under a frame.
const (
	firstPage = 2000
	nextPage  = 5000
)

// reopenUnchanged opens the session without reading the dataset file
// when the file has the size and time recorded with its hash (and no flag
// asks to read it another way): the screen shows the session's items at
// once, reads the rest in the background and compares the hash there
// (fileChecks). It returns nil when the file has to be read.
func reopenUnchanged(e env, path string, o *reviewFlags) (*sessions.Review, *dataset.Dataset, error) {
	if o.data.mapping != "" || o.data.format != "" {
		return nil, nil, nil // the items may be read differently this time
	}
	if o.annotator == "" {
		a, err := e.annotatorDefault()
		if err != nil {
			return nil, nil, err
		}
		o.annotator = a
	}
	rv, ok, err := sessions.ReopenUnchanged(o.session, o.annotator, path, firstPage)
	if err != nil || !ok {
		return nil, nil, err
	}
	if st, err := os.Stat(path); err == nil {
		limitMemory(rv.Info.Items, st.Size())
	}
	return rv, storedDataset(rv, path), nil
}

// storedDataset is the dataset as the session rv knows it, named name:
// what the rest of review reads of the file (its name, format, mapping)
// without reading the file.
func storedDataset(rv *sessions.Review, name string) *dataset.Dataset {
	return &dataset.Dataset{
		Path:    rv.Info.Path,
		Name:    name,
		Format:  rv.Info.Format,
		Mapping: rv.Info.Mapping,
		SHA256:  rv.Info.SHA256,
		Items:   wholeFields(rv.Items),
	}
}

// wholeFields returns copies of items with their original rows in Fields:
// the first page of a reopened session stands for the dataset where the
// judges' templates are checked against the rows (checkFields).
func wholeFields(items []judge.Item) []judge.Item {
	out := make([]judge.Item, len(items))
	for i, it := range items {
		out[i] = sessions.WholeFields(it)
	}
	return out
}

// moreItems reads the rest of a partly read session for the screen, page
// by page; nil when every item is in.
func moreItems(rv *sessions.Review) func() ([]judge.Item, bool, error) {
	if !rv.Partial {
		return nil
	}
	return func() ([]judge.Item, bool, error) {
		done, err := rv.LoadMore(nextPage)
		return rv.Items, done, err
	}
}

// fileChecks compares the dataset file's hash in the background when the
// session was reopened on its size and time alone.
func fileChecks(rv *sessions.Review, ds *dataset.Dataset) []func() (string, error) {
	if !rv.Unchecked {
		return nil
	}
	return []func() (string, error){func() (string, error) { return rv.CheckFile(ds.Path) }}
}
