package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// streamBuildGCPercent is the GC target (GOGC) while BuildStreamSessionThen
// writes items as the dataset is still parsed. The items grow the live
// heap from nothing to most of the import's memory while each row written
// leaves about 750 bytes of garbage (see buildGCTarget): the default
// (collect when the heap has doubled) would let that garbage reach the
// items' size, and buildGCPercent (2 %) would collect hundreds of times,
// each time marking every item parsed so far.
const streamBuildGCPercent = 25

// BuildStreamSessionThen is BuildDatasetSessionThen on a dataset still
// being parsed: the items are written into the new session page by page
// as the stream hands them out (Stream.More), so that the parse and the
// writes share the cores, then the dataset's row (its item count and
// hash, known only at the end), then then runs on the whole dataset — all
// in the same temporary build as BuildSessionThen's, put in place only
// when whole, so a kill at any moment leaves no half session.
//
// The stream must be one that really streams a file written by something
// other than `gavel export` (RestoreExported gives back its items, read
// whole: BuildDatasetSessionThen).
//
// It returns the whole dataset. When the dataset cannot be read (a bad
// row, a duplicate id, found as late as the last row), the dataset is nil
// and the error is the stream's own, as Stream.Wait returns it, whatever
// the build met first (the items' UNIQUE id, say); otherwise an error
// says what the build could not do, checkDataset's message for an item
// the session cannot hold. Nothing is left at path, nor any temporary
// file, after an error.
func BuildStreamSessionThen(path string, st *dataset.Stream, then func(*Store, *dataset.Dataset) error) (*dataset.Dataset, error) {
	return buildStream(path, st, then)
}

// An itemStream is the part of a *dataset.Stream a build reads.
type itemStream interface {
	Head() *dataset.Dataset
	More(n int) ([]judge.Item, bool, error)
	Wait() (*dataset.Dataset, error)
}

func buildStream(path string, st itemStream, then func(*Store, *dataset.Dataset) error) (ds *dataset.Dataset, err error) {
	var info DatasetInfo
	created := now() // when the build starts, as checkItemIDs stamps it
	// fail gives the stream's error when the dataset cannot be read, as
	// reading it first would have, and the build's error otherwise.
	fail := func(err error) (*dataset.Dataset, error) {
		whole, werr := st.Wait()
		if werr != nil {
			return nil, werr
		}
		return whole, err
	}
	if path == "" {
		return fail(errors.New("no session file given: pass --session FILE"))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fail(fmt.Errorf("session %s: %w", path, err))
	}
	if err := buildTarget(path, abs); err != nil {
		return fail(err)
	}
	dir := filepath.Dir(abs)
	removeDeadBuilds(dir, filepath.Base(abs))
	tmp, err := createBuildFile(dir, filepath.Base(abs))
	if err != nil {
		return fail(fmt.Errorf("cannot create session %s: %w", path, err))
	}
	defer func() {
		if err != nil {
			removeBuild(tmp)
		}
	}()
	gc := -1
	defer func() {
		if gc >= 0 {
			debug.SetGCPercent(gc)
		}
	}()
	data := func(s *Store) error {
		gc = debug.SetGCPercent(streamBuildGCPercent)
		err := s.write("saving the dataset", func(tx *sql.Tx) error {
			var err error
			ds, info, err = writeStreamDataset(tx, path, st, created)
			return err
		})
		if err != nil {
			return err
		}
		// What then writes, with the whole dataset in memory: the
		// target of a build from a dataset read whole.
		debug.SetGCPercent(buildGCTarget())
		return nil
	}
	var thenWith func(*Store) error
	if then != nil {
		thenWith = func(s *Store) error { return then(s, ds) }
	}
	if err := writeBuildWith(path, tmp, data, thenWith); err != nil {
		whole, err := fail(err)
		if whole != nil {
			if _, cerr := checkDataset(path, info, whole.Items); cerr != nil {
				return whole, cerr // a duplicate id or index, said plainly
			}
		}
		return whole, err
	}
	if err := finishBuild(path, abs, tmp); err != nil {
		return ds, err
	}
	return ds, nil
}

// writeStreamDataset writes the items of the stream st page by page as
// they are parsed, then, once the whole dataset is read, its row and
// mapping (writeDataset's rows, in another order). It returns the whole
// dataset and what the dataset row holds, created at created.
func writeStreamDataset(tx *sql.Tx, path string, st itemStream, created time.Time) (*dataset.Dataset, DatasetInfo, error) {
	var info DatasetInfo
	w := newItemWriter(tx, st.Head().Mapping)
	n := 0
	for {
		items, all, err := st.More(n)
		if err != nil {
			return nil, info, err
		}
		page := items[n:]
		for i := range page {
			if page[i].ID == "" {
				return nil, info, fmt.Errorf("session %s: item at index %d has no id", path, page[i].Index)
			}
		}
		if err := w.add(page); err != nil {
			return nil, info, err
		}
		n = len(items)
		if all {
			break
		}
	}
	if err := w.flush(); err != nil {
		return nil, info, err
	}
	ds, err := st.Wait()
	if err != nil {
		return nil, info, err
	}
	if len(ds.Items) != n {
		return nil, info, fmt.Errorf("session %s: %d items were written of the dataset's %d", path, n, len(ds.Items))
	}
	if RestoreExported(ds) != ds {
		return nil, info, fmt.Errorf("session %s: the dataset is a file written by gavel export, whose items are read whole", path)
	}
	info = DatasetInfo{Path: ds.Path, SHA256: ds.SHA256, Format: ds.Format, Mapping: ds.Mapping, Items: n, CreatedAt: created}
	if info.Path == "" {
		info.Path = ds.Name
	}
	if err := writeDatasetInfo(tx, info); err != nil {
		return nil, info, err
	}
	return ds, info, nil
}

// writeDatasetInfo inserts the dataset row and its mapping, as
// writeDataset does before the items.
func writeDatasetInfo(tx *sql.Tx, info DatasetInfo) error {
	if _, err := tx.Exec(`INSERT INTO dataset (id, path, sha256, format, items, created_at) VALUES (1, ?, ?, ?, ?, ?)`,
		info.Path, info.SHA256, info.Format, info.Items, stamp(info.CreatedAt)); err != nil {
		return err
	}
	for role, field := range info.Mapping {
		if _, err := tx.Exec(`INSERT INTO dataset_mapping (role, field) VALUES (?, ?)`, role, field); err != nil {
			return err
		}
	}
	return nil
}
