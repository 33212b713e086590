package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions"
)

func mustRun(t *testing.T, argv ...string) string {
	t.Helper()
	code, out, errs := run(t, argv...)
	if code != 0 {
		t.Fatalf("gavel %s: exit %d: %s", strings.Join(argv, " "), code, errs)
	}
	return out
}

// tableDump is every row of every table of a session file but the
// annotator locks and SQLite's own, the derived tables included, each
// value with its storage class and exact bytes or bits; rowid tables with
// their rowids, in rowid order.
func tableDump(t *testing.T, path string) map[string][]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type table struct {
		name string
		wr   bool
		cols []string
	}
	var tables []table
	rows, err := db.Query(`SELECT name, wr FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'locks' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tb table
		if err := rows.Scan(&tb.name, &tb.wr); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tb)
	}
	rows.Close()
	out := map[string][]string{}
	for _, tb := range tables {
		cr, err := db.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, tb.name)
		if err != nil {
			t.Fatal(err)
		}
		for cr.Next() {
			var c string
			cr.Scan(&c)
			tb.cols = append(tb.cols, c)
		}
		cr.Close()
		sel := []string{"NULL"}
		if !tb.wr {
			sel[0] = "_rowid_"
		}
		for _, c := range tb.cols {
			sel = append(sel, fmt.Sprintf(`typeof("%s"), "%[1]s"`, c))
		}
		q := `SELECT ` + strings.Join(sel, ", ") + ` FROM "` + tb.name + `"`
		rs, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, 1+2*len(tb.cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		var lines []string
		for rs.Next() {
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%020v", vals[0])
			for i, c := range tb.cols {
				v := vals[1+2*i+1]
				switch x := v.(type) {
				case float64:
					v = fmt.Sprintf("%v(%#x)", x, math.Float64bits(x))
				case string:
					v = fmt.Sprintf("%+q", x)
				case []byte:
					v = fmt.Sprintf("x%x", x)
				}
				fmt.Fprintf(&b, " %s=%s:%v", c, vals[1+2*i], v)
			}
			lines = append(lines, b.String())
		}
		rs.Close()
		slices.Sort(lines) // rowid order (zero-padded), or key order for the others
		out[tb.name] = lines
	}
	return out
}

func sameTables(t *testing.T, want, got map[string][]string) {
	t.Helper()
	for name, w := range want {
		g := got[name]
		if len(w) != len(g) {
			t.Errorf("table %s: %d rows, the copy %d", name, len(w), len(g))
		}
		for i := range min(len(w), len(g)) {
			if w[i] != g[i] {
				t.Errorf("table %s row %d:\nwant %s\ngot  %s", name, i, w[i], g[i])
				break
			}
		}
	}
	if len(want) != len(got) {
		t.Errorf("%d tables, the copy %d", len(want), len(got))
	}
}

// exports writes gavel export of a session in JSONL and CSV, every item
// and the disagreements, and returns the files' bytes.
func exports(t *testing.T, session, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, args := range [][]string{
		{"--only", "all", "-o", "all.jsonl"}, {"--only", "all", "-o", "all.csv"},
		{"--only", "disagreements", "--format", "csv", "-o", "dis.csv"},
	} {
		file := filepath.Join(dir, args[len(args)-1])
		mustRun(t, append(append([]string{"export", session}, args[:len(args)-1]...), file)...)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(file)] = b
	}
	return out
}

// The TriviaQA file of "Judging the judges" imported whole (eleven judges'
// verdicts, the people's labels), labelled further by two annotators
// (labels, guidelines, notes, "can't judge", tags, re-tests, undos), with
// a split and a plan, copied to PostgreSQL and back: every
// table is the same, the derived ones too, and gavel export writes the
// same bytes in every format and selection, and the copy has the
// original's permissions.
func TestCopyTriviaQARoundTrip(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	src := sharedData(t, "judging_the_judges__TriviaQA_Judges_w_HumanJudgement_V1.csv")
	srv := pgtest.Shared(t)
	dir := t.TempDir()
	session := filepath.Join(dir, "tq.gavel")
	mustRun(t, "import", src, "--session", session)
	s := readSession(t, session)
	ids, err := s.ItemIDs()
	s.Close()
	if err != nil || len(ids) < 100 {
		t.Fatalf("%d items, %v", len(ids), err)
	}
	// A few labels the way a person makes them (gavel label), the rest
	// through the store, which is quicker.
	guidelines := writeFile(t, dir, "guidelines.md", "# TriviaQA\nAny alias is correct. \u202e\n")
	mustRun(t, "label", session, ids[0], "yes", "--annotator", "ana", "--guidelines", guidelines, "--note", "\x1b[31mred\x1b[0m")
	mustRun(t, "label", session, ids[1], "--cant-judge", "gold-wrong", "--note", "the gold is wrong", "--annotator", "ana")
	mustRun(t, "label", session, ids[2], "no", "--annotator", "ana", "--tag", "too strict")
	mustRun(t, "label", session, ids[2], "--undo", "--annotator", "ana")
	for a, who := range []string{"ana", "bo \u202eevil"} {
		st, err := sessions.Open(session, sessions.Options{Annotator: who})
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids[10 : 10+60] {
			act := sessions.Action{Kind: sessions.KindLabel, ItemID: id, Dimension: "correct", Value: float64((i + a) % 2), Via: "order", Shown: sessions.ShownBlind}
			acts := []sessions.Action{act}
			switch i % 6 {
			case 1:
				acts = append(acts, sessions.Action{Kind: sessions.KindNote, ItemID: id, Note: fmt.Sprintf("note %d by %s", i, who), Via: "order"})
			case 2:
				acts = []sessions.Action{{Kind: sessions.KindCantJudge, ItemID: id, Reason: "ambiguous", Via: "order"}}
			case 3:
				acts = append(acts, sessions.Action{Kind: sessions.KindTag, ItemID: id, Tag: "too strict", Value: 1, Via: "order"})
			case 4:
				act.Retest = true
				acts = append(acts, act)
			}
			if _, err := st.Record(acts); err != nil {
				t.Fatal(err)
			}
			if i%10 == 9 {
				if _, err := st.Undo(); err != nil {
					t.Fatal(err)
				}
			}
		}
		st.Close()
	}
	mustRun(t, "split", session, "--seed", "7")
	mustRun(t, "plan", session, "--design", "uniform", "-n", "25", "--seed", "3", "--judge", "GPT-4")

	url := srv.URL(pgtest.Name(t))
	out := mustRun(t, "copy", session, url)
	want := fmt.Sprintf("%s -> %s: %d items, 11 runs, ", session, url, len(ids))
	if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, " actions\n") {
		t.Errorf("summary %q, want it to start %q", out, want)
	}
	back := filepath.Join(dir, "back.gavel")
	mustRun(t, "copy", url, back)

	before := tableDump(t, session)
	for _, tb := range []string{"actions", "past_labels", "decision_log", "verdicts", "verdict_values", "plan_units", "splits", "guidelines", "session_tags"} {
		if len(before[tb]) == 0 {
			t.Errorf("the session has no %s: the test covers less than it says", tb)
		}
	}
	sameTables(t, before, tableDump(t, back))
	wantExports := exports(t, session, t.TempDir())
	for name, b := range exports(t, back, t.TempDir()) {
		if !bytes.Equal(b, wantExports[name]) {
			t.Errorf("gavel export %s differs after the round trip (%d bytes, before %d)", name, len(b), len(wantExports[name]))
		}
	}

	if st, err := os.Stat(back); err != nil || st.Mode().Perm() != mustStat(t, session).Mode().Perm() {
		t.Errorf("the copy's permissions %v, the original's %v", st.Mode().Perm(), mustStat(t, session).Mode().Perm())
	}
}

// Every way of gavel copy gives the same session: file to PostgreSQL,
// --replace over it, PostgreSQL to PostgreSQL, PostgreSQL to file, file
// to file.
func TestCopyEveryWay(t *testing.T) {
	srv := pgtest.Shared(t)
	dir := t.TempDir()
	session := labelSession(t, dir)
	mustRun(t, "label", session, "q1", "yes", "--annotator", "ana", "--note", "fine")
	mustRun(t, "label", session, "q2", "--cant-judge", "ambiguous", "--annotator", "bo")
	before := tableDump(t, session)
	name := pgtest.Name(t)
	url, url2 := srv.URL(name), srv.URL(name+"_2")
	mustRun(t, "copy", session, url)
	mustRun(t, "label", session, "q2", "no", "--annotator", "ana") // not in the copy…
	mustRun(t, "copy", filepath.Join(dir, "label.gavel"), url, "--replace")
	after := tableDump(t, session) // …until --replace
	out := mustRun(t, "copy", url, url2)
	if want := url + " -> " + url2 + ": 3 items, 2 runs, 0 verdicts, 4 actions\n"; out != want {
		t.Errorf("summary %q, want %q", out, want)
	}
	back := filepath.Join(dir, "back.gavel")
	mustRun(t, "copy", url2, back)
	sameTables(t, after, tableDump(t, back))
	if len(after["actions"]) != len(before["actions"])+1 {
		t.Errorf("--replace left the first copy: %d actions, first %d", len(after["actions"]), len(before["actions"]))
	}
	again := filepath.Join(dir, "again.gavel")
	out = mustRun(t, "copy", back, again)
	if want := back + " -> " + again + ": 3 items, 2 runs, 0 verdicts, 4 actions\n"; out != want {
		t.Errorf("summary %q, want %q", out, want)
	}
	sameTables(t, after, tableDump(t, again))
}

func mustStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// What gavel copy refuses, with the exit code and a message that says
// what is wrong and what to do.
func TestCopyRefusesWithClearMessages(t *testing.T) {
	srv := pgtest.Shared(t)
	dir := t.TempDir()
	session := labelSession(t, dir)
	name := pgtest.Name(t)
	url := srv.URL(name)
	mustRun(t, "copy", session, url)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dead := fmt.Sprintf("postgres://ana:hunter2@127.0.0.1:%d/gavel?session=team", port)

	for _, c := range []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"missing source", []string{"copy", filepath.Join(dir, "nope.gavel"), url + "_x"}, 1, []string{"there is no session at", "nope.gavel"}},
		{"existing session", []string{"copy", session, url}, 1, []string{"already exists", "--replace"}},
		{"existing file", []string{"copy", url, session}, 1, []string{"label.gavel already exists", "delete it first"}},
		{"replace a file", []string{"copy", url, filepath.Join(dir, "new.gavel"), "--replace"}, 2, []string{"--replace overwrites a PostgreSQL session only"}},
		{"wrong session name", []string{"copy", srv.URL("no_such"), filepath.Join(dir, "new.gavel")}, 1, []string{`there is no session "no_such"`, "check the name", name}},
		{"no session in the URL", []string{"copy", session, srv.ConnString()}, 2, []string{"names no session", "?session=NAME"}},
		{"bad session name", []string{"copy", session, srv.URL("") + "&session=Bad-Name"}, 2, []string{`session name "Bad-Name" cannot be used`}},
		{"server not answering", []string{"copy", session, dead}, 1, []string{fmt.Sprintf("127.0.0.1:%d is not answering", port), "ana:xxxxx@"}},
		{"same session", []string{"copy", url, url}, 2, []string{"are the same session"}},
		{"one argument", []string{"copy", session}, 2, []string{"copy takes SRC DST, but got 1 argument", "e.g. gavel copy"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, errs)
			}
			if out != "" {
				t.Errorf("stdout %q", out)
			}
			for _, w := range c.wants {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q does not say %q", errs, w)
				}
			}
			if strings.Contains(errs, "hunter2") {
				t.Errorf("the password is printed: %q", errs)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "new.gavel")); err == nil {
		t.Error("a refused copy left a file")
	}
}
