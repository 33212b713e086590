package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// runImportJoin is `gavel import FILE --session S --join`: FILE's verdict
// and label columns go onto the items S already holds, matched by id.
// The session's items are left as they are (FILE need not have a
// question or responses), unlike a plain import, which takes a changed
// file's rows as the session's dataset.
func runImportJoin(e env, path string, o importFlags, opts sessions.ImportOptions) error {
	if o.session == "" {
		return usagef("--join adds the columns of %s to the items of an existing session: name it with --session FILE", path)
	}
	if _, err := os.Stat(o.session); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--join: %s does not exist: make it first from the file that holds the questions and responses (gavel import DATASET --session %s), then join %s to it",
			o.session, o.session, path)
	}
	ds, err := o.read(path, []string{dataset.RoleID})
	if err != nil {
		var u usageError
		if errors.As(err, &u) {
			return err
		}
		return fmt.Errorf("%w (--join matches the rows to the session's items by id)", err)
	}
	if err := sessions.CheckImportScales(ds, opts.Scales); err != nil {
		return usageError{err}
	}
	s, err := sessions.Open(o.session, sessions.Options{Annotator: importAnnotator})
	if err != nil {
		return err
	}
	defer s.Close()
	info, ok, err := s.Dataset()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("--join: %s holds no items yet: import the file that holds the questions and responses first (gavel import DATASET --session %s), then join %s to it",
			o.session, o.session, path)
	}
	sum, err := sessions.ImportDatasetWith(s, ds, opts)
	if err != nil {
		return err
	}
	for _, n := range datasetNotices(ds) {
		fmt.Fprintln(e.stderr, n)
	}
	for _, m := range sum.Skipped {
		fmt.Fprintln(e.stderr, m)
	}
	base := filepath.Base(ds.Name)
	if sum.Unknown == sum.Rows {
		return noSharedIDs(base, o.session, ds, s)
	}
	printImport(e, base, o.session, info.Items, sum)
	if sum.Missing > 0 {
		fmt.Fprintf(e.stdout, "  %d of the session's items %s no row in %s\n", sum.Missing, hasHave(sum.Missing), base)
	}
	if err := s.Close(); err != nil {
		return err
	}
	switch {
	case len(sum.Runs) == 0 && len(sum.Annotators) == 0 && len(sum.Skipped) > 0:
		fmt.Fprintf(e.stderr, "Nothing was imported from %s: see above.\n", base)
	case len(sum.Runs) == 0 && len(sum.Annotators) == 0:
		fmt.Fprintf(e.stderr, "%s carries no verdicts or labels Gavel could read: name its columns with --map verdict=COLUMN,human=COLUMN.\n", base)
	default:
		fmt.Fprintf(e.stderr, "See the agreement with: gavel stats %s\n", shellWordArg(o.session))
	}
	return nil
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// noSharedIDs is the error of a join whose file shares no id with the
// session: the two files name their rows differently (a numbered session
// and a file with its own ids, or the wrong id field).
func noSharedIDs(file, session string, ds *dataset.Dataset, s *sessions.Store) error {
	theirs := ds.Items[0].ID
	ours := ""
	if items, err := s.Items(); err == nil && len(items) > 0 {
		ours = items[0].ID
	}
	return fmt.Errorf("--join: none of the %d ids of %s is an item of %s (its first id is %q, the session's first is %q): map the field that holds the session's ids with --map id=FIELD",
		len(ds.Items), file, session, theirs, ours)
}

// joinHint adds, to the error of a file that cannot be read as a dataset
// of its own (no prediction, no responses), that --join would add its
// columns to the session by id, when the session exists and the file has
// ids.
func joinHint(o importFlags, path string, err error) error {
	if o.session == "" || path == "-" {
		return err
	}
	if st, serr := os.Stat(o.session); serr != nil || st.Size() == 0 {
		return err
	}
	var u usageError
	if errors.As(err, &u) {
		return err
	}
	if _, lerr := o.read(path, []string{dataset.RoleID}); lerr != nil {
		return err
	}
	return fmt.Errorf("%w. To add its verdicts and labels to the items of %s by id, add --join", err, o.session)
}
