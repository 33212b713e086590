package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// `gavel review S.gavel`: a session holds its items, so it can be
// reviewed without the dataset file it was made from (moved, on another
// machine, or sent by a colleague with the session).

// LooksLikeSession reports whether the file at path is a Gavel session by
// its first bytes: an SQLite database marked with Gavel's application id.
// A session still being made has its mark only in the write-ahead log
// until SQLite copies it back, so an SQLite file without any mark and
// with a -wal beside it counts too; Open then says for sure.
func LooksLikeSession(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 100)
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	if !bytes.HasPrefix(head, []byte("SQLite format 3\x00")) {
		return false
	}
	switch string(head[68:72]) {
	case "Gavl": // applicationID, big-endian
		return true
	case "\x00\x00\x00\x00":
		_, err := os.Stat(path + "-wal")
		return err == nil
	}
	return false
}

// ReopenStored opens the session at path for annotator on the items it
// holds, without reading its dataset file: the first page of at most
// first items at once, the rest by LoadMore, as ReopenUnchanged does. A
// session without items (its dataset never written in) is refused.
func ReopenStored(path, annotator string, first int) (*Review, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, newError(fs.ErrNotExist, nil, "session %s does not exist", path)
		}
		return nil, err
	}
	s, err := Open(path, Options{Annotator: annotator})
	if err != nil {
		return nil, err
	}
	info, ok, err := s.Dataset()
	if err == nil && !ok {
		err = fmt.Errorf("session %s holds no items yet: review the dataset it is for with gavel review DATASET --session %s", path, path)
	}
	var r *Review
	if err == nil {
		r, err = storedReview(s, info, first)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return r, nil
}
