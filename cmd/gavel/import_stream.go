package main

import (
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// readImport reads the dataset `gavel import` puts into a session, new
// (newSession) or not.
//
// For a new session the file is read as a stream (dataset.OpenStream)
// that keeps nothing of the file's bytes (Stream.StoreFields): each item's
// texts are copied out of a chunk of a few megabytes, and its row kept in
// the form the session stores it (sessions.ImportFieldsEncoder; a row that
// may be an export's stays whole), which the build writes as it is. Load
// holds the whole file besides the items until the session is written: at
// a million rows the file was half the import's peak memory (1.15 GB for
// a 591 MB file; 0.78 GB read as a stream). A file the stream reads whole
// first (compressed, not JSONL, --skip-bad, standard input…: not
// Stream.FromFile) is read as Load reads it, and so is a file written by
// `gavel export` (told by its first row, as sessions.RestoreExported
// tells it), whose rows the import reads whole.
//
// An existing session compares the file's items with its own, rows
// included (SyncDataset): it gets the items as Load reads them.
//
// A stream that reads its file a chunk at a time, of a file that is no
// export, is returned instead of the dataset (nil then), still parsed:
// the new session's build writes its items as they come
// (sessions.BuildStreamSessionThen), the parse and the writes sharing
// the cores.
func (o importFlags) readImport(path string, newSession bool) (*dataset.Dataset, *dataset.Stream, error) {
	if !newSession {
		ds, err := o.load(path)
		return ds, nil, err
	}
	st, err := o.stream(path)
	if err != nil {
		return nil, nil, err
	}
	// The first chunk keeps its rows as read: its first item tells an
	// export file.
	first, _, err := st.Items(1)
	if err != nil {
		return nil, nil, err
	}
	// A stream of a file read whole first (compressed…) holds all of its
	// text until it ends: copies of the texts would only add to it.
	if probe := (&dataset.Dataset{Items: first}); st.FromFile() && sessions.RestoreExported(probe) == probe {
		st.StoreFields(sessions.ImportFieldsEncoder)
		if st.Streams() {
			return nil, st, nil
		}
	}
	ds, err := st.Wait()
	return ds, nil, err
}

// importStreamed builds the new session at session from the stream st of
// path, writing its items while the file is still parsed, then its
// verdicts and labels (sessions.BuildStreamSessionThen). Its errors are
// those of the import of the dataset read first: the dataset's own (a bad
// row, a duplicate id) before a --scale that names no column, and that
// before the build's.
func (o importFlags) importStreamed(path, session string, st *dataset.Stream, opts sessions.ImportOptions) (*dataset.Dataset, sessions.ImportSummary, error) {
	var sum sessions.ImportSummary
	// The columns are known from the first rows: a --scale that names
	// none is refused before anything is written, once the dataset is
	// known to be readable.
	if err := sessions.CheckImportScales(st.Head(), opts.Scales); err != nil {
		if _, werr := st.Wait(); werr != nil {
			return nil, sum, joinHint(o, path, werr)
		}
		return nil, sum, usageError{err}
	}
	ds, err := sessions.BuildStreamSessionThen(session, st, func(s *sessions.Store, ds *dataset.Dataset) error {
		var err error
		sum, err = sessions.ImportDatasetWith(s, ds, opts)
		return err
	})
	if err != nil && ds == nil {
		return nil, sum, joinHint(o, path, err) // the dataset's own error
	}
	return ds, sum, err
}
