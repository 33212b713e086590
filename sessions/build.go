package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// buildPageSize is the page size of a session BuildSession writes. A page
// holds whole rows, so on average half a row per page is lost: with the
// generated 100,000-row file (59 MB, ~650 bytes stored per item) 8 KiB
// pages held 12 items and a 76.8 MB session (schema v5), 16 KiB pages 25
// and 74.2 MB, with times within the noise. Rows of a few kilobytes (long
// chains of thought) also stay off overflow pages.
const buildPageSize = 16384

// BuildSession writes a new session at path holding the dataset info and
// its items, with nothing else (no run, no label, no lock). It is the fast
// way to start a session: a million items take seconds, where InitDataset
// on an open store, with every page going through the WAL, takes minutes.
//
// The session is built in a temporary file in path's folder with SQLite's
// journal off and no fsync, then switched to WAL mode, synced, and put in
// place only when it is whole and only where path is still missing or an
// empty file: a session that appeared at path meanwhile is never replaced.
// So a crash or kill -9 at any moment leaves either no session at path or
// a complete one (and, at worst, a temporary file named
// .NAME.building-* beside it, which the next build of the same session
// removes). Open then opens it as any other session.
//
// The checks are InitDataset's: item ids present and unique, indexes
// unique, info.Items 0 or len(items).
func BuildSession(path string, info DatasetInfo, items []judge.Item) error {
	return BuildSessionThen(path, info, items, nil)
}

// BuildSessionThen is BuildSession that, when then is not nil, runs then
// on the new session before it is put in place: what then writes (an
// import's runs, verdicts and labels) is written with the journal off too,
// and the session appears at path with it or not at all. The store given
// to then writes as no annotator (Record needs one; the import's
// recordGroups names its own) and must not be kept: it is closed when
// then returns. With the journal off a failed transaction cannot be rolled
// back, so an error from then discards the whole session: nothing appears
// at path.
func BuildSessionThen(path string, info DatasetInfo, items []judge.Item, then func(*Store) error) (err error) {
	if path == "" {
		return errors.New("no session file given: pass --session FILE")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("session %s: %w", path, err)
	}
	if err := buildTarget(path, abs); err != nil {
		return err
	}
	// The ids' uniqueness is left to the table's constraints: two maps of
	// a million ids would cost more memory than the rest of the build.
	if info, err = checkItemIDs(path, info, items); err != nil {
		return err
	}
	dir := filepath.Dir(abs)
	removeDeadBuilds(dir, filepath.Base(abs))
	tmp, err := createBuildFile(dir, filepath.Base(abs))
	if err != nil {
		return fmt.Errorf("cannot create session %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			removeBuild(tmp)
		}
	}()
	if err := writeBuild(path, tmp, info, items, then); err != nil {
		if _, cerr := checkDataset(path, info, items); cerr != nil {
			return cerr // a duplicate id or index, said plainly
		}
		return err
	}
	return finishBuild(path, abs, tmp)
}

// finishBuild syncs the finished build tmp and puts it at abs (placeBuild),
// then removes its temporary name.
func finishBuild(path, abs, tmp string) error {
	if err := syncPath(tmp); err != nil {
		return fmt.Errorf("cannot save session %s: %w", path, err)
	}
	if err := placeBuild(path, abs, tmp); err != nil {
		return err
	}
	removeBuild(tmp)
	// The new name reaches the disk with the folder. Some systems cannot
	// sync a folder; the session is whole either way, so that is no error.
	_ = syncPath(filepath.Dir(abs))
	return nil
}

// buildGCPercent is the least GC target (GOGC) while BuildSession writes
// the items: the heap may grow 2 % over what is live, where the default
// lets it double (see buildGCTarget).
const buildGCPercent = 2

// checkItemIDs is the part of checkDataset that needs no memory: the count
// and that every item has an id.
func checkItemIDs(path string, info DatasetInfo, items []judge.Item) (DatasetInfo, error) {
	if info.Items != 0 && info.Items != len(items) {
		return info, fmt.Errorf("session %s: the dataset says %d items but %d were given", path, info.Items, len(items))
	}
	for i := range items {
		if items[i].ID == "" {
			return info, fmt.Errorf("session %s: item at index %d has no id", path, items[i].Index)
		}
	}
	if info.CreatedAt.IsZero() {
		info.CreatedAt = now()
	}
	info.Items = len(items)
	return info, nil
}

// buildTarget refuses a path that already holds something other than an
// empty file, or whose folder is missing.
func buildTarget(path, abs string) error {
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(abs)
		if _, derr := os.Stat(dir); derr != nil {
			return fmt.Errorf("cannot create session %s: folder %s does not exist", path, dir)
		}
		return nil
	case err != nil:
		return fmt.Errorf("cannot create session %s: %w", path, err)
	case st.IsDir():
		return newError(ErrNotSession, nil, "%s is not a Gavel session: it is a folder", path)
	case st.Size() > 0:
		return fmt.Errorf("cannot create session %s: the file already exists; open it, or choose another --session file", path)
	}
	return nil
}

// writeBuild makes the session in the file tmp: the schema by the normal
// migrations, then the dataset in one transaction, then WAL mode, which
// every session uses.
func writeBuild(path, tmp string, info DatasetInfo, items []judge.Item, then func(*Store) error) error {
	// The caller holds the whole dataset, so the default GC target (twice
	// the live heap) would double the memory the build needs: collect
	// more often while the items, and what then adds, are written (their
	// garbage is small).
	gc := -1
	defer func() {
		if gc >= 0 {
			debug.SetGCPercent(gc)
		}
	}()
	return writeBuildWith(path, tmp, func(st *Store) error {
		gc = debug.SetGCPercent(buildGCTarget())
		return st.write("saving the dataset", func(tx *sql.Tx) error {
			return writeDataset(tx, info, items)
		})
	}, then)
}

// writeBuildWith makes the session in the file tmp: the schema by the
// normal migrations, then what data writes (the dataset), then what then
// writes, then WAL mode, which every session uses.
func writeBuildWith(path, tmp string, data func(*Store) error, then func(*Store) error) error {
	db, err := sql.Open("sqlite", buildDSN(tmp))
	if err != nil {
		return fmt.Errorf("cannot create session %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	st := &Store{path: path, w: db}
	if err := st.migrate(); err != nil {
		return err
	}
	st.building = true
	if err := data(st); err != nil {
		return err
	}
	if then != nil {
		// Reads go through their own connection, as in an open store;
		// the file's lock, not a WAL, keeps them apart from the writes.
		if st.db, err = sql.Open("sqlite", buildDSN(tmp)); err != nil {
			return fmt.Errorf("cannot create session %s: %w", path, err)
		}
		st.db.SetMaxOpenConns(1)
		// Labels keep past_labels themselves while then runs (see
		// suspendLabelTrigger).
		restore, err := suspendLabelTrigger(db)
		if err != nil {
			return st.wrap(err, "saving the labels")
		}
		// So are the large indexes, made again once, whole (see
		// bulkIndexes).
		reindex, err := suspendBulkIndexes(db)
		if err != nil {
			return st.wrap(err, "saving the labels")
		}
		err = then(st)
		if cerr := st.db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := restore(); err != nil {
			return st.wrap(err, "saving the labels")
		}
		if err := reindex(); err != nil {
			return st.wrap(err, "indexing the labels and verdicts")
		}
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return st.wrap(err, "switching to WAL mode")
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("session %s: SQLite could not use WAL mode here (it kept %q): keep the session on a local disk", path, mode)
	}
	if err := db.Close(); err != nil {
		return st.wrap(err, "closing")
	}
	return nil
}

// buildDSN opens the temporary file of a build: no journal and no fsync
// (nobody else sees the file until it is whole, and a crash leaves only
// the temporary file to throw away), foreign keys off (the rows are
// checked before), and buildPageSize pages, set before the first table.
func buildDSN(tmp string) string {
	p := filepath.ToSlash(tmp)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("page_size(%d)", buildPageSize))
	q.Add("_pragma", "journal_mode(OFF)")
	q.Add("_pragma", "synchronous(OFF)")
	q.Add("_pragma", "foreign_keys(0)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "cache_size(-2048)") // 2 MiB: rows go in in key order
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// placeBuild puts the finished file tmp at abs without ever replacing a
// session: a hard link fails where abs exists. An empty file at abs (made
// by a session opened and left empty) is replaced; where the file system
// has no hard links, abs is checked missing and tmp renamed onto it.
func placeBuild(path, abs, tmp string) error {
	err := os.Link(tmp, abs)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		if _, serr := os.Lstat(abs); !errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("cannot create session %s: %w", path, err)
		}
		if rerr := os.Rename(tmp, abs); rerr != nil {
			return fmt.Errorf("cannot create session %s: %w", path, rerr)
		}
		return nil
	}
	st, serr := os.Stat(abs)
	if serr != nil || st.IsDir() || st.Size() > 0 {
		return fmt.Errorf("cannot create session %s: another session appeared there while this one was built; open it, or choose another --session file", path)
	}
	if rerr := os.Rename(tmp, abs); rerr != nil {
		return fmt.Errorf("cannot create session %s: %w", path, rerr)
	}
	return nil
}

// buildHost names this machine in a build's temporary file name, so that
// on a folder shared between machines only this machine's dead builds are
// removed.
func buildHost() string {
	h, err := os.Hostname()
	if err != nil || h == "" || strings.ContainsAny(h, `/\`) {
		return "localhost"
	}
	return h
}

// createBuildFile makes a new empty file .NAME.building-PID-N.HOST in dir, with
// the permissions SQLite gives a new session (0644 less the umask; a
// temporary file's 0600 would surprise whoever shares the folder).
func createBuildFile(dir, name string) (string, error) {
	for try := 0; ; try++ {
		p := filepath.Join(dir, fmt.Sprintf(".%s.building-%d-%d.%s", name, os.Getpid(), rand.Uint32(), buildHost()))
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return p, f.Close()
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return "", err
		}
	}
}

// removeDeadBuilds deletes the temporary files of earlier builds of the
// same session whose process is gone (killed, or the machine stopped), so
// that a killed build of a large dataset does not keep its disk space. A
// file of a live process, or of this one, is left alone.
func removeDeadBuilds(dir, name string) {
	prefix := "." + name + ".building-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || e.IsDir() {
			continue
		}
		pidText, rest, ok1 := strings.Cut(rest, "-")
		_, host, ok2 := strings.Cut(rest, ".")
		pid, err := strconv.Atoi(pidText)
		if !ok1 || !ok2 || err != nil || host != buildHost() || pid == os.Getpid() || pidAlive(pid) {
			continue
		}
		removeBuild(filepath.Join(dir, e.Name()))
	}
}

// removeBuild deletes a build's temporary file and whatever SQLite left
// beside it.
func removeBuild(tmp string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(tmp + suffix)
	}
}

// syncPath flushes a file or a folder (so that a new name in it is on
// disk) to stable storage.
func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// BuildDatasetSession builds a new session at path (see BuildSession) from
// a loaded dataset, recorded as OpenReview records a new one: a file
// written by `gavel export` gives back its items as they were
// (RestoreExported). OpenReview on the new session then finds the dataset
// already there.
func BuildDatasetSession(path string, ds *dataset.Dataset) error {
	return BuildDatasetSessionThen(path, ds, nil)
}

// BuildDatasetSessionThen is BuildDatasetSession with BuildSessionThen's
// then: `gavel import` writes the file's verdicts and labels into the new
// session before it appears.
func BuildDatasetSessionThen(path string, ds *dataset.Dataset, then func(*Store) error) error {
	ds = RestoreExported(ds)
	info := DatasetInfo{Path: ds.Path, SHA256: ds.SHA256, Format: ds.Format, Mapping: ds.Mapping, Items: len(ds.Items)}
	if info.Path == "" {
		info.Path = ds.Name
	}
	return BuildSessionThen(path, info, ds.Items, then)
}

// IsNewSession reports whether path holds no session yet (it is missing or
// an empty file), so that BuildSession may write one there.
func IsNewSession(path string) bool {
	st, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist) || (err == nil && st.Mode().IsRegular() && st.Size() == 0)
}
