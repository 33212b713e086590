package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// maskedRows are a session file's rows of table, sorted, each column as
// its type and value, times and sitting tokens (which differ from one
// process to the next) replaced by whether they are set, and group ids by
// their rank (a team session numbers a group by its first action's id, a
// file counts groups).
func maskedRows(t *testing.T, path, table string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	order := ""
	if table == "actions" {
		order = " ORDER BY id"
	}
	rows, err := db.Query(`SELECT * FROM "` + table + `"` + order)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	groups := map[any]int{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			switch cols[i] {
			case "at", "sitting", "appeared", "first_seen", "added_at", "shown_at":
				v = v != nil
			case "group_id":
				if _, ok := groups[v]; !ok {
					groups[v] = len(groups) + 1
				}
				v = groups[v]
			}
			fmt.Fprintf(&b, "%s=%T %#v | ", cols[i], v, v)
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

var firstSeen = regexp.MustCompile(`("first_seen": )"[^"]*"`)

// gavel label URL records in the team session what it records in a file:
// the same sequence of decisions (labels, a note, tags, a can't judge,
// another annotator, guidelines, an undo) gives the same action rows,
// tags, guidelines, derived current labels and decision log (times and
// sitting tokens masked), and the same gavel export; a reviewer's replica
// pulls them; an unknown id is refused naming the team session, not its
// local copy.
func TestLabelTeam(t *testing.T) {
	srv := pgtest.Shared(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	var rows strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&rows, `{"id":"q%d","question":"%d+%d?","gold":"%d","prediction":"%d"}`+"\n", i, i, i, 2*i, 2*i+i%2)
	}
	data := writeFile(t, dir, "team.jsonl", rows.String())
	file := filepath.Join(dir, "team.gavel")
	mustRun(t, "run", data, "--session", file)
	url := srv.URL(pgtest.Name(t))
	st, err := pg.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := pg.CopyFromSQLite(context.Background(), file, st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	guide := writeFile(t, dir, "guide.md", "# Guidelines\nSay YES when the numbers match.\n")

	ctx := context.Background()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "bo"))
	rv, rep, err := pg.OpenReview(ctx, st, "bo")
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "ana"))

	steps := [][]string{
		{"q1", "YES", "--note", "numbers match", "--tag", "easy", "--guidelines", guide},
		{"q2", "--cant-judge", "ambiguous"},
		{"q1", "NO"},
		{"q1", "--undo"},
		{"q3", "YES", "--tag", "easy", "--annotator", "bo"},
		{"q3", "--untag", "easy", "--annotator", "bo"},
		{"q4", "NO", "--via", "random"},
		{"q1", "--note", ""}, // takes back the note of the first step
	}
	for _, session := range []string{file, url} {
		for _, step := range steps {
			argv := append([]string{"label", session}, step...)
			e, _, errb, _ := testEnv(t)
			get := e.getenv
			e.getenv = func(k string) string {
				if k == "GAVEL_ANNOTATOR" {
					return "ana"
				}
				return get(k)
			}
			if code := execute(ctx, e, argv); code != 0 {
				t.Fatalf("gavel %s: exit %d: %s", strings.Join(argv, " "), code, errb)
			}
			if session == url && strings.Contains(errb.String(), rv.Store.Path()) {
				t.Errorf("gavel label names the local copy: %s", errb)
			}
			if step[1] == "--undo" && !strings.Contains(errb.String(), "Undone on q1 for ana: ") {
				t.Errorf("undo on %s: %s", session, errb)
			}
		}
	}

	back := filepath.Join(dir, "back.gavel")
	if _, err := pg.CopyToSQLite(ctx, st, back); err != nil {
		t.Fatal(err)
	}
	// (decision_log, derived from the actions, holds the sitting tokens
	// and group numbers too.)
	for _, table := range []string{"actions", "session_tags", "guidelines", "current_labels"} {
		got, want := maskedRows(t, back, table), maskedRows(t, file, table)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("table %s of the team session:\n%s\nwant (the file's):\n%s", table, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if n := len(maskedRows(t, file, "actions")); n != 11 {
		t.Errorf("%d actions in the file", n)
	}
	for _, argv := range [][]string{{"export"}, {"export", "--format", "csv"}, {"stats", "--format", "json"}} {
		// The guidelines' first_seen is when each was stored.
		want := firstSeen.ReplaceAllString(mustOut(t, append([]string{argv[0], file}, argv[1:]...)...), "$1")
		got := firstSeen.ReplaceAllString(mustOut(t, append([]string{argv[0], url}, argv[1:]...)...), "$1")
		if got != want {
			t.Errorf("gavel %s of the team session:\n%s\nwant (the file's):\n%s", strings.Join(argv, " "), got, want)
		}
	}
	p, err := rep.Pull(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 11 || p.ActionsBy["ana"] != 8 || p.ActionsBy["bo"] != 3 {
		t.Errorf("bo's replica pulled %d actions (%v)", len(p.Actions), p.ActionsBy)
	}

	code, _, errs := run(t, "label", url, "q9", "YES", "--annotator", "ana")
	if code != 2 || !strings.Contains(errs, st.Target().Shown+` has no item "q9"`) {
		t.Errorf("unknown item: exit %d: %s", code, errs)
	}
	code, _, errs = run(t, "label", url, "q5", "--undo", "--annotator", "ana")
	if code != 1 || !strings.Contains(errs, st.Target().Shown+` has no decision of "ana" on q5 left to undo`) {
		t.Errorf("nothing to undo: exit %d: %s", code, errs)
	}
}
