package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gavel-dev/gavel/judge"
)

// ReopenUnchanged opens the existing session at path for annotator when
// the dataset file still has the size and modification time recorded
// with its hash: the review then shows the session's own items without
// reading the file, and CheckFile compares the hash in the background.
// Only the first page of items (first of them) is read; LoadMore reads
// the rest. ok is false, with nothing left open, when the session does
// not exist, holds no dataset or no stamp, was made from another path, or
// the file's stamp differs: the caller then reads the file and calls
// OpenReview.
func ReopenUnchanged(path, annotator, file string, first int) (r *Review, ok bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, false, nil
	}
	now, err := StatFile(abs)
	if err != nil {
		return nil, false, nil // the slow path says what is wrong with the file
	}
	s, err := Open(path, Options{Annotator: annotator})
	if err != nil {
		return nil, false, err
	}
	r, ok, err = reopen(s, abs, now, first)
	if !ok || err != nil {
		s.Close()
		return nil, false, err
	}
	return r, true, nil
}

func reopen(s *Store, abs string, now FileStamp, first int) (*Review, bool, error) {
	info, ok, err := s.Dataset()
	if err != nil || !ok || info.Path != abs {
		return nil, false, err
	}
	was, ok, err := s.DatasetFile()
	if err != nil || !ok || was.Size != now.Size || !was.MTime.Equal(now.MTime) {
		return nil, false, err
	}
	r, err := storedReview(s, info, first)
	if err != nil {
		return nil, false, err
	}
	r.Unchecked = true
	return r, true, nil
}

// storedReview is the review of s on the items it holds: the first page
// of at most first items, the rest read by LoadMore.
func storedReview(s *Store, info DatasetInfo, first int) (*Review, error) {
	items, err := s.storedItemsAfter(FirstItems, first)
	if err != nil {
		return nil, err
	}
	return &Review{Store: s, Info: info, Items: items, Partial: len(items) == first, storedFields: true}, nil
}

// LoadMore reads the next page of at most limit items into Items and
// reports whether every item is now read (Partial is then false).
// ResumeRun and TasksToDo need every item: call them only after.
func (r *Review) LoadMore(limit int) (done bool, err error) {
	if !r.Partial {
		return true, nil
	}
	after := int64(FirstItems)
	if n := len(r.Items); n > 0 {
		after = int64(r.Items[n-1].Index)
	}
	page, err := r.Store.storedItemsAfter(after, limit)
	if err != nil {
		return false, err
	}
	if want := len(r.Items) + len(page); cap(r.Items) < r.Info.Items && want < r.Info.Items {
		// Grow once to the session's count rather than doubling: a
		// million items are a few hundred megabytes of headers.
		r.Items = append(make([]judge.Item, 0, r.Info.Items), r.Items...)
	}
	r.Items = append(r.Items, page...)
	if len(page) < limit {
		r.Partial = false
	}
	return !r.Partial, nil
}

// CheckFile hashes the dataset file and compares it with the hash the
// session holds: "" when they agree; otherwise what the person should be
// told, and the recorded stamp is cleared so that the next open compares
// the file by content (and takes in its changes). It reads the whole file,
// so the review screen runs it in the background.
func (r *Review) CheckFile(file string) (string, error) {
	sum, err := FileSHA256(file)
	if err != nil {
		return "", err
	}
	if sum == r.Info.SHA256 {
		return "", nil
	}
	if err := r.Store.ForgetDatasetFile(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s has changed since this session took it in, though its size and time are the same: the screen shows the session's items. Quit and reopen to take in the changes (your labels are kept).", filepath.Base(file)), nil
}

// recordStamp records the dataset file's stamp after its hash was taken
// (new session, changed content, or the same content read again), unless
// it is already the one recorded. A failure only costs the next open its
// shortcut, so it is not an error.
func (r *Review) recordStamp(path string) {
	if path == "" {
		return
	}
	now, err := StatFile(path)
	if err != nil {
		return
	}
	if was, ok, err := r.Store.DatasetFile(); err == nil && ok && was.Size == now.Size && was.MTime.Equal(now.MTime) {
		return
	}
	_ = r.Store.RecordDatasetFile(now)
}
