package sessions

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenCreatesSession(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(path string) error
	}{
		{"missing file", func(string) error { return nil }},
		{"zero-length file", func(p string) error { return os.WriteFile(p, nil, 0o644) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := sessionPath(t)
			if err := tc.prepare(path); err != nil {
				t.Fatal(err)
			}
			s := openStore(t, path, "ann")
			if got := pragmaInt(t, s.w, "user_version"); got != int64(schemaVersion) {
				t.Errorf("user_version = %d, want %d", got, schemaVersion)
			}
			if got := pragmaInt(t, s.w, "application_id"); got != applicationID {
				t.Errorf("application_id = %#x, want %#x", got, applicationID)
			}
			if got := pragmaInt(t, s.w, "synchronous"); got != 2 {
				t.Errorf("synchronous = %d on the writer, want 2 (FULL)", got)
			}
			if got := pragmaInt(t, s.w, "foreign_keys"); got != 1 {
				t.Errorf("foreign_keys = %d, want 1", got)
			}
			if got := pragmaInt(t, s.db, "query_only"); got != 1 {
				t.Errorf("query_only = %d on the readers, want 1", got)
			}
			var mode string
			if err := s.w.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
				t.Errorf("journal_mode = %q, %v; want wal", mode, err)
			}
			for _, view := range []string{"current_labels", "current_verdicts", "current_verdict_values", "current_notes"} {
				if _, err := s.db.Exec("SELECT * FROM " + view); err != nil {
					t.Errorf("view %s: %v", view, err)
				}
			}
			if _, ok, err := s.Dataset(); ok || err != nil {
				t.Errorf("Dataset() on a new session = %v, %v; want false, nil", ok, err)
			}
		})
	}
}

// schemaObjects lists the session's tables, indexes and views.
func schemaObjects(t *testing.T, path string) string {
	t.Helper()
	rows, err := rawDB(t, path).Query("SELECT type || ' ' || name FROM sqlite_master ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return strings.Join(names, "\n")
}

func TestReopenIsIdempotent(t *testing.T) {
	s, path := newSession(t)
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := schemaObjects(t, path)
	for range 3 {
		s := openStore(t, path, "ann")
		labels, err := s.Labels("ann")
		if err != nil || len(labels) != 1 {
			t.Fatalf("after reopening: labels %v, %v; want the one label", labels, err)
		}
		if got := pragmaInt(t, s.w, "user_version"); got != int64(schemaVersion) {
			t.Errorf("user_version = %d after reopening", got)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if after := schemaObjects(t, path); after != before {
		t.Errorf("reopening changed the schema:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestMigrationsRunInOrderOnce(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })

	path := sessionPath(t)
	s := openStore(t, path, "ann")
	s.Close()

	// A later Gavel adds a step: an older session is upgraded once.
	migrations = append(append([]migration(nil), saved...),
		migration{name: "test step", sql: "CREATE TABLE test_step (x INTEGER); INSERT INTO test_step VALUES (1);"})
	schemaVersion = len(migrations)
	for range 2 {
		s := openStore(t, path, "ann")
		s.Close()
	}
	db := rawDB(t, path)
	var n int
	if err := db.QueryRow("SELECT count(*) FROM test_step").Scan(&n); err != nil || n != 1 {
		t.Errorf("new step ran %d times (%v), want once", n, err)
	}
	if got := pragmaInt(t, db, "user_version"); got != int64(schemaVersion) {
		t.Errorf("user_version = %d, want %d", got, schemaVersion)
	}

	// A failing step leaves the session at the last good version.
	migrations = append(migrations, migration{name: "broken", sql: "CREATE TABLE broken (; nonsense"})
	schemaVersion = len(migrations)
	if _, err := Open(path, Options{Annotator: "ann"}); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("broken migration: err = %v, want one naming the step", err)
	}
	if got := pragmaInt(t, rawDB(t, path), "user_version"); got != int64(schemaVersion-1) {
		t.Errorf("after a failed step user_version = %d, want %d", got, schemaVersion-1)
	}
}

// A read-only command upgrades an older session it may write, and reads
// one it may not through an upgraded copy
// (TestOlderSessionUnwritableReadThroughCopy checks that as root).
func TestOlderSessionReadOnly(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	path := sessionPath(t)
	openStore(t, path, "ann").Close()
	migrations = append(append([]migration(nil), saved...), migration{name: "later", sql: "CREATE TABLE later (x)"})
	schemaVersion = len(migrations)
	s, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of an older, writable session: %v", err)
	}
	s.Close()
	if got := pragmaInt(t, rawDB(t, path), "user_version"); got != int64(schemaVersion) {
		t.Errorf("user_version = %d after a read-only open, want %d", got, schemaVersion)
	}

	if os.Geteuid() == 0 {
		t.Skip("root writes read-only files; the refusal is checked as a normal user")
	}
	migrations = append(migrations, migration{name: "later still", sql: "CREATE TABLE later2 (x)"})
	schemaVersion = len(migrations)
	dir := filepath.Dir(path)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(path, 0o644) })
	s, err = Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of an older session that cannot be written: %v", err)
	}
	if n := s.Notice(); !strings.Contains(n, "upgraded copy") {
		t.Errorf("notice %q, want it to say the session is read through an upgraded copy", n)
	}
	s.Close()
	if got := pragmaInt(t, rawDB(t, path), "user_version"); got != int64(schemaVersion-1) {
		t.Errorf("user_version = %d after reading a file that cannot be written, want %d (unchanged)", got, schemaVersion-1)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := sessionPath(t)
	openStore(t, path, "ann").Close()
	if _, err := rawDB(t, path).Exec(fmt.Sprintf("PRAGMA user_version = %d", schemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("session %s was written by a newer Gavel (schema v%d; this Gavel reads up to v%d): upgrade Gavel",
		path, schemaVersion+1, schemaVersion)
	for _, opts := range []Options{{Annotator: "ann"}, {ReadOnly: true}} {
		_, err := Open(path, opts)
		if !errors.Is(err, ErrNewerSchema) || err.Error() != want {
			t.Errorf("Open(%+v) = %v\nwant %s", opts, err, want)
		}
	}
}

func TestForeignFilesRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		make    func(t *testing.T, path string)
		wantMsg string
	}{
		{"sqlite database of another program", func(t *testing.T, p string) {
			db := rawDB(t, p)
			if _, err := db.Exec("CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x')"); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}, "is not a Gavel session: it is an SQLite database of another program (it holds tables but no Gavel mark)"},
		{"sqlite database with another application id", func(t *testing.T, p string) {
			db := rawDB(t, p)
			if _, err := db.Exec("PRAGMA application_id = 1234"); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}, "is not a Gavel session: it is an SQLite database of another program (application id 0x000004d2)"},
		{"text file", func(t *testing.T, p string) {
			os.WriteFile(p, []byte("id,question\n1,hello\n"), 0o644)
		}, "is not a Gavel session: it is not an SQLite database"},
		{"binary garbage", func(t *testing.T, p string) {
			os.WriteFile(p, bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 5000), 0o644)
		}, "is not a Gavel session: it is not an SQLite database"},
		{"folder", func(t *testing.T, p string) { os.Mkdir(p, 0o755) },
			"is not a Gavel session: it is a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := sessionPath(t)
			tc.make(t, path)
			var before []byte
			if st, err := os.Stat(path); err == nil && !st.IsDir() {
				before, _ = os.ReadFile(path)
			}
			for _, opts := range []Options{{Annotator: "ann"}, {ReadOnly: true}} {
				s, err := Open(path, opts)
				if err == nil {
					s.Close()
					t.Fatalf("Open(%+v) accepted it", opts)
				}
				if !errors.Is(err, ErrNotSession) || !strings.HasPrefix(err.Error(), path+" ") ||
					!strings.Contains(err.Error(), tc.wantMsg) {
					t.Errorf("Open(%+v) = %v\nwant %q", opts, err, path+" "+tc.wantMsg)
				}
			}
			if before != nil {
				after, _ := os.ReadFile(path)
				if !bytes.Equal(before, after) {
					t.Error("refusing the file changed it")
				}
			}
		})
	}
}

func TestDamagedFileGivesClearError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(b []byte) []byte
	}{
		{"pages overwritten", func(b []byte) []byte {
			for i := 4096; i < len(b); i++ {
				b[i] = byte(i * 7)
			}
			return b
		}},
		{"cut in half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"cut inside the header", func(b []byte) []byte { return b[:50] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, path := newSession(t)
			s.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1}})
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.corrupt(b), 0o644); err != nil {
				t.Fatal(err)
			}
			err = useSession(path)
			t.Log(err)
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "is damaged") {
				t.Errorf("damaged session: %v; want a clear 'is damaged' error", err)
			}
		})
	}
}

// useSession opens a session and reads everything in it, returning the
// first error.
func useSession(path string) error {
	s, err := Open(path, Options{Annotator: "ann"})
	if err != nil {
		return err
	}
	defer s.Close()
	if _, _, err := s.Dataset(); err != nil {
		return err
	}
	if _, err := s.Items(); err != nil {
		return err
	}
	runs, err := s.Runs()
	if err != nil {
		return err
	}
	for _, r := range runs {
		if _, err := s.Verdicts(r.ID); err != nil {
			return err
		}
	}
	if _, err := s.Labels(""); err != nil {
		return err
	}
	if _, err := s.Notes(""); err != nil {
		return err
	}
	_, err = s.Actions("")
	return err
}

func TestOpenArguments(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		path string
		opts Options
		want string
		is   error
	}{
		{"no path", "", Options{Annotator: "a"}, "no session file given", nil},
		{"no annotator", filepath.Join(dir, "a.gavel"), Options{}, "an annotator name is required", nil},
		{"blank annotator", filepath.Join(dir, "a.gavel"), Options{Annotator: "  "}, "an annotator name is required", nil},
		{"missing folder", filepath.Join(dir, "nope", "a.gavel"), Options{Annotator: "a"}, "does not exist", nil},
		{"read-only missing file", filepath.Join(dir, "b.gavel"), Options{ReadOnly: true}, "there is no session at", fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(tc.path, tc.opts)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "b.gavel")); err == nil {
		t.Error("a read-only open created the file")
	}
}

func TestReadOnly(t *testing.T) {
	s, path := newSession(t)
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "q2", Dimension: "correct", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	// While the writer is open, a reader sees what it committed.
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if labels, err := ro.Labels(""); err != nil || len(labels) != 1 {
		t.Fatalf("read-only Labels = %v, %v", labels, err)
	}
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if labels, _ := ro.Labels(""); len(labels) != 2 {
		t.Errorf("read-only store does not see a new label: %v", labels)
	}
	for name, write := range map[string]func() error{
		"Record": func() error {
			_, err := ro.Record([]Action{{Kind: KindNote, ItemID: "q1", Note: "x"}})
			return err
		},
		"Undo":        func() error { _, err := ro.Undo(); return err },
		"EnsureRun":   func() error { _, err := ro.EnsureRun(binaryInfo("match", "")); return err },
		"InitDataset": func() error { return ro.InitDataset(DatasetInfo{}, nil) },
		"SaveVerdicts": func() error {
			return ro.SaveVerdicts(1, sampleVerdicts())
		},
	} {
		if err := write(); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only store: %v, want ErrReadOnly", name, err)
		}
	}
	// After the writer is gone, a read-only open still works.
	s.Close()
	ro2, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro2.Close()
	if items, err := ro2.Items(); err != nil || len(items) != 4 {
		t.Errorf("Items after the writer closed: %d, %v", len(items), err)
	}
	// An empty file is not a session to read.
	empty := filepath.Join(t.TempDir(), "empty.gavel")
	os.WriteFile(empty, nil, 0o644)
	if _, err := Open(empty, Options{ReadOnly: true}); !errors.Is(err, ErrNotSession) {
		t.Errorf("read-only open of an empty file: %v", err)
	}
}

func TestCloseTwice(t *testing.T) {
	s, _ := newSession(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestPathWithSpecialCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my session ?#%&=.gavel")
	s := openStore(t, path, "ann")
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("session not at %q: %v", path, err)
	}
	s = openStore(t, path, "ann")
	if s.Path() != path || s.Annotator() != "ann" {
		t.Errorf("Path, Annotator = %q, %q", s.Path(), s.Annotator())
	}
}

// An older session that cannot be written (a colleague's share, a
// read-only mount) is read through an upgraded copy in the temporary
// folder: the read-only command works, says so, and leaves the file as it
// was; the copy goes when the store closes. Read immutable (its folder
// cannot be written), the copy is made the same way, and the notice keeps
// what that read leaves out.
func TestOlderSessionUnwritableReadThroughCopy(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion, upgradeInPlace = saved, len(saved), upgradeSchema })
	for _, immutable := range []bool{false, true} {
		dir := t.TempDir()
		path := labelledSession(t, dir)
		before := pragmaInt(t, rawDB(t, path), "user_version")
		migrations = append(append([]migration(nil), saved...), migration{name: "later", sql: "CREATE TABLE later (x)"})
		schemaVersion = len(migrations)
		upgradeInPlace = func(string) error { return errors.New("attempt to write a readonly database") }
		if immutable {
			nowhere := filepath.Join(dir, "missing-folder", "x.gavel")
			sqlOpen = func(driver, d string) (*sql.DB, error) {
				if strings.Contains(d, filepath.ToSlash(dir)) && !strings.Contains(d, "immutable=1") && strings.Contains(d, "mode=ro") {
					return sql.Open(driver, "file:"+nowhere+"?mode=ro")
				}
				return sql.Open(driver, d)
			}
		}
		s, err := Open(path, Options{ReadOnly: true})
		sqlOpen = sql.Open
		if err != nil {
			t.Fatalf("immutable %v: read-only open of an older session that cannot be written: %v", immutable, err)
		}
		if got := currentLabels(t, s); got != "ann:q1=1" {
			t.Errorf("immutable %v: labels %q through the copy", immutable, got)
		}
		if n := s.Notice(); !strings.Contains(n, "read through an upgraded copy") || !strings.Contains(n, path) {
			t.Errorf("immutable %v: notice %q", immutable, n)
		}
		copyDir := s.upgradedCopy
		if copyDir == "" || strings.HasPrefix(copyDir, dir) {
			t.Errorf("immutable %v: the copy is at %q, want a temporary folder", immutable, copyDir)
		}
		if err := s.Close(); err != nil {
			t.Errorf("immutable %v: close: %v", immutable, err)
		}
		if _, err := os.Stat(copyDir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("immutable %v: the copy %s is left after Close (%v)", immutable, copyDir, err)
		}
		if got := pragmaInt(t, rawDB(t, path), "user_version"); got != before {
			t.Errorf("immutable %v: the file's schema went from v%d to v%d", immutable, before, got)
		}
		migrations, schemaVersion = saved, len(saved)
	}
}
