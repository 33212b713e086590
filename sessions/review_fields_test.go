package sessions

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// fieldsFixture writes a dataset whose rows' other fields are the same
// but for one row, opens a session on it and closes it.
func fieldsFixture(t *testing.T) (file, session string) {
	t.Helper()
	dir := t.TempDir()
	file = filepath.Join(dir, "evals.jsonl")
	session = filepath.Join(dir, "evals.gavel")
	var b strings.Builder
	for i := range 12 {
		extra := "same"
		if i == 5 {
			extra = "différent"
		}
		fmt.Fprintf(&b, `{"id":"i%02d","question":"question %d?","answer":"%d","prediction":"it is %d","note":%q}`+"\n", i, i, i, i, extra)
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

// A reopened review holds each item's row in its stored form, rows stored
// alike share one text, and WholeFields gives back the original row.
func TestReopenedItemsShareStoredFields(t *testing.T) {
	file, session := fieldsFixture(t)
	rv, ok, err := ReopenUnchanged(session, "ann", file, 4)
	if err != nil || !ok {
		t.Fatalf("ReopenUnchanged: ok %v, err %v", ok, err)
	}
	defer rv.Store.Close()
	for {
		done, err := rv.LoadMore(4)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	whole, err := rv.Store.ItemsAfter(FirstItems, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != len(rv.Items) {
		t.Fatalf("%d items paged, %d read whole", len(rv.Items), len(whole))
	}
	for i, it := range rv.Items {
		if bytes.Contains(it.Fields, []byte(it.Prediction)) {
			t.Errorf("item %s holds its prediction again in Fields: %s", it.ID, it.Fields)
		}
		if got := WholeFields(it).Fields; !bytes.Equal(got, whole[i].Fields) {
			t.Errorf("item %s: WholeFields\n got %s\nwant %s", it.ID, got, whole[i].Fields)
		}
	}
	// Items 0-3 are one page: 0 and 1 store the same text, held once.
	if &rv.Items[0].Fields[0] != &rv.Items[1].Fields[0] {
		t.Error("two items stored alike hold two copies of their stored fields")
	}
	if bytes.Equal(rv.Items[5].Fields, rv.Items[4].Fields) {
		t.Error("the row with another note stores the same text")
	}
	// A whole row is returned as it is.
	if w := WholeFields(whole[3]); &w.Fields[0] != &whole[3].Fields[0] {
		t.Error("WholeFields copied a row that was already whole")
	}
}

// fieldsJudge records the rows its tasks carry.
type fieldsJudge struct {
	mu   sync.Mutex
	rows map[string]string
}

func (f *fieldsJudge) Info() judge.Info { return binaryInfo("rows", "m") }

func (f *fieldsJudge) Judge(_ context.Context, t judge.Task) judge.Verdict {
	f.mu.Lock()
	f.rows[t.Item.ID] = string(t.Item.Fields)
	f.mu.Unlock()
	return judge.Verdict{ItemID: t.Item.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, At: t0}
}

// The judges a reopened review starts see every item's original row.
func TestReopenedReviewJudgesWholeRows(t *testing.T) {
	file, session := fieldsFixture(t)
	ds, err := dataset.Load(file, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, ok, err := ReopenUnchanged(session, "ann", file, 5)
	if err != nil || !ok {
		t.Fatalf("ReopenUnchanged: ok %v, err %v", ok, err)
	}
	defer rv.Store.Close()
	for done := false; !done; {
		if done, err = rv.LoadMore(5); err != nil {
			t.Fatal(err)
		}
	}
	j := &fieldsJudge{rows: map[string]string{}}
	st, err := rv.StartRun(context.Background(), j, judge.PoolOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Judging == nil {
		t.Fatal("nothing to judge")
	}
	waitJudging(t, st.Judging)
	for _, it := range ds.Items {
		if got := j.rows[it.ID]; got != string(it.Fields) {
			t.Errorf("item %s judged with row\n %s\nwant %s", it.ID, got, it.Fields)
		}
	}
}
