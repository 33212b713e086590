package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// gavel review of a new dataset that carries verdict and label columns
// builds its session as gavel import does (openCarrying): the session
// holds what an import of the same file holds, and the message log says
// what was imported.
func TestReviewNewCarriedIsImport(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "graded.jsonl")
	rows := `{"id":"q1","question":"2+2?","answer":"4","prediction":"4","judge_verdict":true,"human_label":true}` + "\n" +
		`{"id":"q2","question":"Capital of France?","answer":"Paris","prediction":"Lyon","judge_verdict":true,"human_label":false}` + "\n" +
		`{"id":"q3","question":"3*3?","answer":"9","prediction":"6","judge_verdict":false,"human_label":false,"category":"math"}` + "\n"
	if err := os.WriteFile(data, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	imported := filepath.Join(dir, "imported.gavel")
	mustRun(t, "import", data, "--session", imported)

	reviewed := filepath.Join(dir, "reviewed.gavel")
	e, _, errb, shown := testEnv(t)
	if code := execute(context.Background(), e, []string{"review", data, "--session", reviewed, "--annotator", "ana"}); code != 0 {
		t.Fatalf("review: exit %d: %s", code, errb)
	}
	m := send(t, (*shown)[len(*shown)-1], tea.WindowSizeMsg{Width: 120, Height: 40})
	m = send(t, m, keyPress("m"))
	s := ansi.Strip(m.View().Content)
	for _, want := range []string{"imported 3 verdicts of 1 judge column", "imported 3 labels of 1 annotator"} {
		if !strings.Contains(s, want) {
			t.Errorf("the message log lacks %q:\n%s", want, s)
		}
	}
	// Built, not filled through the WAL: a build's pages are 16 KiB.
	if got, want := pragma(t, reviewed, "page_size"), pragma(t, imported, "page_size"); got != want || got != "16384" {
		t.Errorf("the reviewed session's page size is %s, the imported one's %s: it was not built as an import", got, want)
	}
	// (The review adds its own judge, match: compared on the imported one.)
	imp := "imported · judge_verdict"
	for _, argv := range [][]string{{"export", "--only", "all", "--judge", imp}, {"export", "--format", "csv", "--only", "all", "--judge", imp}} {
		got := mustOut(t, append([]string{argv[0], reviewed}, argv[1:]...)...)
		want := mustOut(t, append([]string{argv[0], imported}, argv[1:]...)...)
		if got != want {
			t.Errorf("gavel %s of the reviewed session:\n%s\nwant (the imported one's):\n%s", argv[0], got, want)
		}
	}
}

// pragma reads a PRAGMA of the session file at path.
func pragma(t *testing.T, path, name string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A large new dataset that carries verdict and label columns opens its
// screen before they are imported: the session is built behind it as
// gavel import builds one (the same verdicts and labels), and the
// imported judge and annotator reach the screen once it is written. The
// person's own imported labels are their history: a review as one of the
// file's annotators reads the file whole first, as before.
func TestReviewLargeLabelledOpensBeforeImport(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	dir := t.TempDir()
	var b strings.Builder
	for i := range backgroundBuildFrom {
		fmt.Fprintf(&b, `{"id":"i%05d","question":"q%d","answer":"%d","prediction":"%d","judge_verdict":%t,"human_label":%t}`+"\n",
			i, i, i%7, i%5, i%3 == 0, i%4 == 0)
	}
	data := writeFile(t, dir, "graded.jsonl", b.String())
	imported := filepath.Join(dir, "imported.gavel")
	mustRun(t, "import", data, "--session", imported)

	for _, c := range []struct {
		annotator string
		before    bool // the screen opens before the session is written
	}{{"ana", true}, {"human_label", false}} {
		t.Run(c.annotator, func(t *testing.T) {
			session := filepath.Join(t.TempDir(), "reviewed.gavel")
			e, _, errb, _ := testEnv(t)
			var before bool
			var shown tea.Model
			e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
				before = newSession(session)
				// The store arrives once the session is written and its
				// imported labels read: up to a minute under the race
				// detector, beside the other long tests.
				shown = runCommandFor(t, m, m.Init(), 0, time.Minute)
				return shown, nil
			}
			if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", c.annotator}); code != 0 {
				t.Fatalf("review: exit %d: %s", code, errb)
			}
			if before != c.before {
				t.Errorf("the screen opened before the session was written: %v, want %v", before, c.before)
			}
			for _, q := range []string{
				`SELECT group_concat(v.item_id || '=' || vv.value, ',') FROM verdicts v JOIN runs r ON r.id = v.run_id JOIN verdict_values vv ON vv.verdict_id = v.id WHERE r.judge = 'imported' AND r.model = 'judge_verdict'`,
				`SELECT group_concat(item_id || '=' || value || via, ',') FROM current_labels WHERE annotator = 'human_label'`,
			} {
				if got, want := queryString(t, session, q), queryString(t, imported, q); got != want || want == "" {
					t.Errorf("%s\nreviewed session: %.200s…\nimported session: %.200s…", q, got, want)
				}
			}
			if !c.before {
				return
			}
			m := send(t, shown, tea.WindowSizeMsg{Width: 120, Height: 40})
			m = send(t, m, keyPress("J"))
			s := ansi.Strip(m.View().Content)
			for _, want := range []string{"imported · judge_verdict (2/2)", "human human_label  YES", "judge YES"} {
				if !strings.Contains(s, want) {
					t.Errorf("once the session is written, the screen lacks %q:\n%s", want, s)
				}
			}
		})
	}
}

// queryString runs a query that gives one text on the session at path.
func queryString(t *testing.T, path, q string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v sql.NullString
	if err := db.QueryRow(q).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v.String
}

// A column whose values leave its scale in doubt is not imported by a
// review, and the message log says so and how to import it.
func TestReviewNewCarriedSaysWhatIsLeftOut(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "graded.jsonl",
		`{"id":"q1","question":"2+2?","answer":"4","prediction":"4","judge_verdict":true,"human_label":1}`+"\n"+
			`{"id":"q2","question":"3+3?","answer":"6","prediction":"5","judge_verdict":true,"human_label":2}`+"\n")
	e, _, errb, shown := testEnv(t)
	if code := execute(context.Background(), e, []string{"review", data, "--session", filepath.Join(dir, "s.gavel"), "--annotator", "ana"}); code != 0 {
		t.Fatalf("review: exit %d: %s", code, errb)
	}
	m := send(t, (*shown)[len(*shown)-1], tea.WindowSizeMsg{Width: 200, Height: 50})
	m = send(t, m, keyPress("m"))
	s := strings.Join(strings.Fields(ansi.Strip(m.View().Content)), " ")
	for _, want := range []string{"imported 2 verdicts of 1 judge column", "human column human_label is left out", "import the column so, then review"} {
		if !strings.Contains(s, want) {
			t.Errorf("the message log lacks %q:\n%s", want, s)
		}
	}
}
