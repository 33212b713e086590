package sessions

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/gavel-dev/gavel/internal/perfdata"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// storedRows writes rows of every kind elision meets: the generated rows
// of the performance script, and rows with escapes (Python's ensure_ascii
// among them), a NaN, a nested object, an empty gold, a rubric and a
// segment, all past the first page.
func storedRows(t testing.TB, n int) string {
	t.Helper()
	var b bytes.Buffer
	if err := perfdata.Write(&b, perfdata.Options{Rows: n, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		id := fmt.Sprintf("extra-%d", i)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, `{"id": %q, "question": "caf\u00e9 \"%d\"\nnext", "answer": "na\u00efve", "prediction": "x\ty", "category": "lang", "difficulty": "hard"}`+"\n", id, i)
		case 1:
			fmt.Fprintf(&b, `{"id": %q, "question": "q", "answer": "", "prediction": NaN, "category": "math", "difficulty": "easy", "meta": {"src": "web", "n": %d}}`+"\n", id, r.IntN(9))
		case 2:
			fmt.Fprintf(&b, `{"difficulty": "easy", "prediction": "%d", "answer": "%d", "id": %q, "question": "reordered", "category": "math"}`+"\n", i, i, id)
		case 3:
			fmt.Fprintf(&b, `{"id": %q, "question": "q\u2019s", "answer": "a", "prediction": "p", "category": "lang", "difficulty": "hard", "extra": "not mapped %d"}`+"\n", id, i)
		default:
			fmt.Fprintf(&b, `{"id": %q, "question": "%s", "answer": "a", "prediction": "a", "category": "lang", "difficulty": "easy"}`+"\n", id, "\\ud83d\\ude00 emoji")
		}
	}
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// streamStored reads path as the review screen reads a new dataset: a
// stream told to keep Fields in the stored form.
func streamStored(t testing.TB, path string) *dataset.Dataset {
	t.Helper()
	st, err := dataset.OpenStream(path, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.StoreFields(StoredFieldsEncoder)
	ds, err := st.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// Items streamed with StoredFieldsEncoder are Load's items once
// WholeFields gives their rows back, and a session built from them holds
// exactly what one built from Load's items holds.
func TestStoredFieldsEncoderRoundTrip(t *testing.T) {
	path := storedRows(t, 3000)
	got := streamStored(t, path)
	want, err := dataset.Load(path, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.FieldsStored || len(got.Items) != len(want.Items) {
		t.Fatalf("FieldsStored %v, %d items; Load has %d", got.FieldsStored, len(got.Items), len(want.Items))
	}
	stored := 0
	for i := range got.Items {
		if !bytes.Equal(got.Items[i].Fields, want.Items[i].Fields) {
			stored++
		}
		if w := WholeFields(got.Items[i]); !reflect.DeepEqual(w, want.Items[i]) {
			t.Fatalf("item %d with its row given back:\n got %+v\nwant %+v", i, w, want.Items[i])
		}
	}
	if stored < len(got.Items)/2 {
		t.Errorf("only %d of %d items hold their row in the stored form", stored, len(got.Items))
	}
	dir := t.TempDir()
	read := func(ds *dataset.Dataset) ([]judge.Item, []judge.Item) {
		p := filepath.Join(dir, fmt.Sprintf("s%p.gavel", ds))
		info := DatasetInfo{Path: path, SHA256: ds.SHA256, Format: ds.Format, Mapping: ds.Mapping, Items: len(ds.Items)}
		if err := BuildSession(p, info, ds.Items); err != nil {
			t.Fatal(err)
		}
		s, err := Open(p, Options{Annotator: "tester"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		whole, err := s.ItemsAfter(FirstItems, len(ds.Items))
		if err != nil {
			t.Fatal(err)
		}
		kept, err := s.storedItemsAfter(FirstItems, len(ds.Items))
		if err != nil {
			t.Fatal(err)
		}
		return whole, kept
	}
	gotWhole, gotKept := read(got)
	wantWhole, wantKept := read(want)
	if !reflect.DeepEqual(gotWhole, wantWhole) || !reflect.DeepEqual(gotKept, wantKept) {
		t.Error("the session built from the streamed items differs from the one built from Load's")
	}
	if !reflect.DeepEqual(gotWhole, want.Items) {
		t.Error("the session's items differ from Load's")
	}
}

// liveHeapPerFileByte reads path with read and returns the heap its
// result holds, per byte of the file, measured with runtime.ReadMemStats
// after collections (never with a clock).
func liveHeapPerFileByte(t testing.TB, path string, read func() *dataset.Dataset) float64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ds := read()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(ds)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(st.Size())
}

// A new dataset read for the review screen holds about its items' texts
// and slots, not the file's bytes besides: on the performance script's
// rows (~590 bytes, ~480 of them texts) Load holds 1.8–2× the file
// (the file, the unescaped texts, the items), the stream told to store
// Fields about 1.1× (the texts, the items, and the first page's 2,000 rows
// as read: 4 % of these 50,000); the check is at 1.25×.
func TestStreamStoredHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 30 MB of generated rows")
	}
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := perfdata.Write(f, perfdata.Options{Rows: 50_000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	load := liveHeapPerFileByte(t, path, func() *dataset.Dataset {
		ds, err := dataset.Load(path, dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	})
	stream := liveHeapPerFileByte(t, path, func() *dataset.Dataset { return streamStored(t, path) })
	t.Logf("live heap per file byte: Load %.2f, stream storing Fields %.2f", load, stream)
	if load < 1.25 {
		t.Fatalf("Load holds %.2f× the file: the measure misses what Load keeps (the file's bytes)", load)
	}
	if stream >= 1.25 {
		t.Errorf("the stream storing Fields holds %.2f× the file (under 1.25× expected): something keeps the file's bytes", stream)
	}
}

// BenchmarkStreamStored is a new dataset read as the review screen reads
// it (OpenStream, StoreFields, Wait) on 100,000 generated rows; it
// reports the heap the items hold per byte of the file (heap/file).
func BenchmarkStreamStored(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rows.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := perfdata.Write(f, perfdata.Options{Rows: 100_000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	var ratio float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		ratio = liveHeapPerFileByte(b, path, func() *dataset.Dataset { return streamStored(b, path) })
	}
	b.ReportMetric(ratio, "heap/file")
}

// rowJudge records the row each task's item holds when judged.
type rowJudge struct {
	mu   sync.Mutex
	rows map[string]string
}

func (j *rowJudge) Info() judge.Info { return binaryInfo("rows", "rows-1") }

func (j *rowJudge) Judge(_ context.Context, t judge.Task) judge.Verdict {
	j.mu.Lock()
	j.rows[t.Item.ID] = string(t.Item.Fields)
	j.mu.Unlock()
	return judge.Verdict{ItemID: t.Item.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}
}

// A review opened on streamed items (the new-dataset screen's session,
// written from them) keeps them, and its judges get every item's row
// whole, as after a reopen.
func TestReviewOnStoredFieldsJudgesWholeRows(t *testing.T) {
	path := storedRows(t, 2500)
	ds := streamStored(t, path)
	want, err := dataset.Load(path, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(t.TempDir(), "s.gavel")
	info := DatasetInfo{Path: path, SHA256: ds.SHA256, Format: ds.Format, Mapping: ds.Mapping, Items: len(ds.Items)}
	if err := BuildSession(session, info, ds.Items); err != nil {
		t.Fatal(err)
	}
	rv, err := OpenReview(session, "ann", ds)
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	if &rv.Items[0] != &ds.Items[0] {
		t.Error("the review read its items back instead of keeping the streamed ones")
	}
	j := &rowJudge{rows: map[string]string{}}
	st, err := rv.StartRun(context.Background(), j, judge.PoolOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Judging == nil {
		t.Fatal("nothing to judge")
	}
	for range st.Judging.Batches() {
	}
	for _, it := range want.Items {
		if got := j.rows[it.ID]; got != string(it.Fields) {
			t.Fatalf("item %s was judged with the row %q, want %q", it.ID, got, it.Fields)
		}
	}
}
