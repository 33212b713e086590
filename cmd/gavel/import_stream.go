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
func (o importFlags) readImport(path string, newSession bool) (*dataset.Dataset, error) {
	if !newSession {
		return o.load(path)
	}
	st, err := o.stream(path)
	if err != nil {
		return nil, err
	}
	// The first chunk keeps its rows as read: its first item tells an
	// export file.
	first, _, err := st.Items(1)
	if err != nil {
		return nil, err
	}
	// A stream of a file read whole first (compressed…) holds all of its
	// text until it ends: copies of the texts would only add to it.
	if probe := (&dataset.Dataset{Items: first}); st.FromFile() && sessions.RestoreExported(probe) == probe {
		st.StoreFields(sessions.ImportFieldsEncoder)
	}
	return st.Wait()
}
