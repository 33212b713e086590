package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

// reopenFixture writes a 25-item dataset file and opens a session on it
// (which records the file's stamp), then closes it.
func reopenFixture(t *testing.T) (file, session string) {
	t.Helper()
	dir := t.TempDir()
	file = filepath.Join(dir, "evals.jsonl")
	session = filepath.Join(dir, "evals.gavel")
	var b strings.Builder
	for i := range 25 {
		fmt.Fprintf(&b, `{"id":"i%02d","question":"q%d","answer":"%d","prediction":"%d"}`+"\n", i, i, i, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(file, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := OpenReview(session, "ann", ds)
	if err != nil {
		t.Fatal(err)
	}
	rv.Store.Close()
	return file, session
}

// An unchanged file reopens from the session, a page at a time, and the
// background check agrees.
func TestReopenUnchangedReadsPages(t *testing.T) {
	file, session := reopenFixture(t)
	rv, ok, err := ReopenUnchanged(session, "ann", file, 10)
	if err != nil || !ok {
		t.Fatalf("ReopenUnchanged: ok %v, err %v", ok, err)
	}
	defer rv.Store.Close()
	if len(rv.Items) != 10 || !rv.Partial || !rv.Unchecked {
		t.Fatalf("first page: %d items, partial %v, unchecked %v", len(rv.Items), rv.Partial, rv.Unchecked)
	}
	pages := 0
	for {
		done, err := rv.LoadMore(10)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if done {
			break
		}
	}
	if pages != 2 || len(rv.Items) != 25 || rv.Partial {
		t.Fatalf("after %d pages: %d items, partial %v", pages, len(rv.Items), rv.Partial)
	}
	for i, it := range rv.Items {
		if want := fmt.Sprintf("i%02d", i); it.ID != want || it.Prediction != fmt.Sprint(i) {
			t.Errorf("item %d is %s (prediction %q), want %s", i, it.ID, it.Prediction, want)
		}
	}
	if n, err := rv.CheckFile(file); n != "" || err != nil {
		t.Errorf("CheckFile on the same file: %q, %v", n, err)
	}
}

// A file whose size or time changed is read again (no shortcut); one
// whose content changed under the same size and time is caught by the
// background check, which clears the stamp so the next open reads it.
func TestReopenUnchangedRefusesChangedFile(t *testing.T) {
	file, session := reopenFixture(t)
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	later := st.ModTime().Add(time.Second)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ReopenUnchanged(session, "ann", file, 10); ok || err != nil {
		t.Fatalf("a touched file reopened on its stamp (ok %v, err %v)", ok, err)
	}
	if err := os.Chtimes(file, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}

	// Same size and time, other bytes.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-3] = '9'
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	rv, ok, err := ReopenUnchanged(session, "ann", file, 10)
	if err != nil || !ok {
		t.Fatalf("same stamp not trusted: ok %v, err %v", ok, err)
	}
	n, err := rv.CheckFile(file)
	if err != nil || !strings.Contains(n, "evals.jsonl has changed") || !strings.Contains(n, "Quit and reopen") {
		t.Errorf("CheckFile on changed bytes: %q, %v", n, err)
	}
	rv.Store.Close()
	if _, ok, err := ReopenUnchanged(session, "ann", file, 10); ok || err != nil {
		t.Errorf("after a mismatch the stamp still opens the session (ok %v, err %v)", ok, err)
	}
}

// No session, or a session made from another file: no shortcut, and no
// session file is created.
func TestReopenUnchangedNeedsTheSession(t *testing.T) {
	file, session := reopenFixture(t)
	other := filepath.Join(t.TempDir(), "none.gavel")
	if _, ok, err := ReopenUnchanged(other, "ann", file, 10); ok || err != nil {
		t.Errorf("missing session: ok %v, err %v", ok, err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a session file was created: %v", err)
	}
	copyFile := filepath.Join(t.TempDir(), "evals.jsonl")
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(copyFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ReopenUnchanged(session, "ann", copyFile, 10); ok || err != nil {
		t.Errorf("another path: ok %v, err %v", ok, err)
	}
}
