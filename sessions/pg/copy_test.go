package pg_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// A session with every kind of row, and odd values, copied to PostgreSQL
// and back: every table equal, value by value and class by class, the
// tables SQLite derives included.
func TestCopyRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := richSession(t)
	st := connect(t)
	sum, err := pg.CopyFromSQLite(ctx, src, st, pg.CopyOptions{CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Count("items") != 30 || sum.Count("actions") == 0 {
		t.Errorf("summary %v", sum.Rows)
	}
	back := filepath.Join(t.TempDir(), "back.gavel")
	sum2, err := pg.CopyToSQLite(ctx, st, back)
	if err != nil {
		t.Fatal(err)
	}
	for k, n := range sum.Rows {
		if sum2.Rows[k] != n {
			t.Errorf("table %s: %d rows in, %d out", k, n, sum2.Rows[k])
		}
	}
	want := dump(t, src)
	got := dump(t, back)
	sameDump(t, want, got)
	for _, tb := range []string{"actions", "past_labels", "decision_log", "verdicts", "plan_units", "guidelines", "item_layouts", "segment_sets"} {
		if len(want[tb]) == 0 {
			t.Errorf("the session has no %s: the test covers less than it says", tb)
		}
	}
}

// files lists a folder's entries.
func files(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func mustFail(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one saying %q", wants)
	}
	t.Log(err)
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// What a copy refuses, and what it leaves when it fails: nothing.
func TestCopyRefusals(t *testing.T) {
	ctx := context.Background()
	src := richSession(t)
	st := connect(t)
	name := st.Target().Session

	_, err := pg.CopyFromSQLite(ctx, filepath.Join(t.TempDir(), "missing.gavel"), st, pg.CopyOptions{})
	mustFail(t, err, "there is no session at", "missing.gavel")

	if _, err := pg.CopyFromSQLite(ctx, src, st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = pg.CopyFromSQLite(ctx, src, st, pg.CopyOptions{})
	mustFail(t, err, "already exists", "--replace", name)

	// --replace: the session is the new copy, whole.
	db := rawDB(t, src)
	if _, err := db.Exec(`INSERT INTO session_tags (name, added_at) VALUES ('added later', '2026-01-01T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	sum, err := pg.CopyFromSQLite(ctx, src, st, pg.CopyOptions{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	var tags int64
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM `+st.Target().Schema+`.session_tags`).Scan(&tags); err != nil || tags != sum.Count("session_tags") || tags != 3 {
		t.Errorf("%d tags after --replace (%v), copied %d", tags, err, sum.Count("session_tags"))
	}

	// An existing file is never overwritten.
	dir := t.TempDir()
	existing := filepath.Join(dir, "there.gavel")
	if err := os.WriteFile(existing, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = pg.CopyToSQLite(ctx, st, existing)
	mustFail(t, err, "already exists", "there.gavel")
	if b, _ := os.ReadFile(existing); string(b) != "mine" {
		t.Errorf("the existing file was changed: %q", b)
	}
	_, err = pg.CopyToSQLite(ctx, st, filepath.Join(dir, "no", "such", "folder.gavel"))
	mustFail(t, err, "does not exist")

	// A session made by another Gavel version.
	if _, err := st.Pool().Exec(ctx, `UPDATE `+st.Target().Schema+`.gavel_meta SET value = '999' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	_, err = pg.CopyToSQLite(ctx, st, filepath.Join(dir, "new.gavel"))
	mustFail(t, err, "made by another Gavel version", "v999")
	if _, err := st.Pool().Exec(ctx, `UPDATE `+st.Target().Schema+`.gavel_meta SET value = $1 WHERE key = 'schema_version'`,
		strconv.Itoa(sessions.SchemaVersion())); err != nil {
		t.Fatal(err)
	}

	// Rows SQLite refuses (a CHECK) fail the copy and leave no file.
	if _, err := st.Pool().Exec(ctx, `UPDATE `+st.Target().Schema+`.actions SET kind = 'bogus' WHERE id = (SELECT max(id) FROM `+st.Target().Schema+`.actions)`); err != nil {
		t.Fatal(err)
	}
	_, err = pg.CopyToSQLite(ctx, st, filepath.Join(dir, "new.gavel"))
	mustFail(t, err, "actions", "CHECK")
	if got := files(t, dir); len(got) != 1 || got[0] != "there.gavel" {
		t.Errorf("the folder holds %q after failed copies", got)
	}

	// A session name that is not there: the message names those that are.
	other, err := pg.Connect(ctx, pgtest.Shared(t).URL(name+"_typo"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = pg.CopyToSQLite(ctx, other, filepath.Join(dir, "new.gavel"))
	mustFail(t, err, "there is no session", name+"_typo", "check the name", name)

	// A schema of that name that is no Gavel session is left alone, even
	// with --replace.
	if _, err := other.Pool().Exec(ctx, `CREATE SCHEMA `+other.Target().Schema+`; CREATE TABLE `+other.Target().Schema+`.precious (x int)`); err != nil {
		t.Fatal(err)
	}
	_, err = pg.CopyFromSQLite(ctx, src, other, pg.CopyOptions{Replace: true})
	mustFail(t, err, "not a Gavel session", "left alone")
	var n int
	if err := other.Pool().QueryRow(ctx, `SELECT count(*) FROM `+other.Target().Schema+`.precious`).Scan(&n); err != nil {
		t.Errorf("the schema's table is gone: %v", err)
	}
}

// A server that does not answer: the message names host and port, says
// it is not answering, and never shows the password.
func TestCopyServerNotAnswering(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now
	url := fmt.Sprintf("postgres://gavel:s3cr%%40t@127.0.0.1:%d/gavel?sslmode=disable&session=team", port)
	st, err := pg.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = pg.CopyFromSQLite(context.Background(), richSession(t), st, pg.CopyOptions{})
	mustFail(t, err, fmt.Sprintf("127.0.0.1:%d is not answering", port), "xxxxx")
	if strings.Contains(err.Error(), "s3cr") {
		t.Errorf("the password is in %q", err)
	}
	_, err = pg.CopyToSQLite(context.Background(), st, filepath.Join(t.TempDir(), "x.gavel"))
	mustFail(t, err, "is not answering")
}

// A team session made by a Gavel of schema v10 (no item_layouts nor
// segment_sets, every item's fields and segments inline) is upgraded by
// the first copy back, which then reads every item as it was.
func TestCopyUpgradesV10(t *testing.T) {
	ctx := context.Background()
	src := richSession(t)
	st := connect(t)
	if _, err := pg.CopyFromSQLite(ctx, src, st, pg.CopyOptions{CreatedBy: "test"}); err != nil {
		t.Fatal(err)
	}
	schema := st.Target().Schema
	for _, stmt := range []string{
		`UPDATE items SET fields = coalesce(fields, (SELECT l.fields FROM item_layouts l WHERE l.id = items.layout)),
			segments = coalesce(segments, (SELECT s.segments FROM segment_sets s WHERE s.id = items.segment_set))`,
		`ALTER TABLE items DROP COLUMN layout, DROP COLUMN segment_set`,
		`DROP TABLE item_layouts, segment_sets`,
		`UPDATE gavel_meta SET value = '10' WHERE key = 'schema_version'`,
	} {
		if _, err := st.Pool().Exec(ctx, `BEGIN; SET LOCAL search_path TO `+schema+`; `+stmt+`; COMMIT`); err != nil {
			t.Fatal(err)
		}
	}
	back := filepath.Join(t.TempDir(), "back.gavel")
	if _, err := pg.CopyToSQLite(ctx, st, back); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := st.Pool().QueryRow(ctx, `SELECT value FROM `+schema+`.gavel_meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(sessions.SchemaVersion()) {
		t.Errorf("schema_version %q %v after the copy back", v, err)
	}
	read := func(path string) []judge.Item {
		s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		items, err := s.Items()
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	if got, want := read(back), read(src); !reflect.DeepEqual(got, want) {
		t.Errorf("items copied back:\n%+v\nwant\n%+v", got, want)
	}
	// And the upgraded session copies back again, and takes a copy in.
	if _, err := pg.CopyToSQLite(ctx, st, filepath.Join(t.TempDir(), "again.gavel")); err != nil {
		t.Error(err)
	}
}
