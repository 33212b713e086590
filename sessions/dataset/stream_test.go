package dataset

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// smallChunks cuts streamed files into chunks of about 64 bytes, so that
// a few hundred rows make many chunks, packed out of order by the cores.
func smallChunks(t testing.TB) {
	old := streamChunk
	streamChunk = 64
	t.Cleanup(func() { streamChunk = old })
}

// streamRows writes n JSONL rows; row(i) may replace the i-th (from 1).
func streamRows(n int, row func(i int) string) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		if r := row(i); r != "" {
			b.WriteString(r)
		} else {
			fmt.Fprintf(&b, `{"id": "r%d", "question": "q%d?", "answer": "a%d", "prediction": "p%d", "category": "c%d"}`, i, i, i%7, i%5, i%3)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// sameAsLoad streams data to its end and checks that the stream handed
// out the items Load gives, in pages that are prefixes of them, and ends
// with Load's dataset or Load's error; then does the same with the
// stream told to store Fields (storedSameAsLoad). It returns the first
// stream.
func sameAsLoad(t *testing.T, name string, data []byte, opts Options) *Stream {
	t.Helper()
	s := streamSameAsLoad(t, name, data, opts, false)
	streamSameAsLoad(t, name, data, opts, true)
	return s
}

// storedPrefix marks the Fields that storeForTest gives.
const storedPrefix = "stored:"

// storeForTest is a StoreFields encoder: the row, marked.
func storeForTest() func(*judge.Item) string {
	return func(it *judge.Item) string { return storedPrefix + string(it.Fields) }
}

// streamSameAsLoad is sameAsLoad for one way of streaming: with stored,
// StoreFields is called at once, and the items after the first chunk
// must hold Fields as storeForTest gives them, those of the first chunk
// the rows, and everything else as Load reads it.
func streamSameAsLoad(t *testing.T, name string, data []byte, opts Options, stored bool) *Stream {
	t.Helper()
	want, wantErr := LoadBytes(name, data, opts)
	s, err := streamData(name, "", bytes.Clone(data), opts)
	if err != nil {
		if wantErr == nil || err.Error() != wantErr.Error() {
			t.Fatalf("OpenStream: %v; Load: %v", err, wantErr)
		}
		return nil
	}
	if stored {
		s.StoreFields(storeForTest)
	}
	var pages [][]byteItem
	for n := 3; ; n += 97 {
		items, done, err := s.Items(n)
		pages = append(pages, itemsOf(items))
		if err != nil || done {
			break
		}
		if len(items) != n {
			t.Fatalf("Items(%d) returned %d items and not done", n, len(items))
		}
	}
	got, err := s.Wait()
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("stream ended with %v; Load: %v", err, wantErr)
	}
	if err != nil {
		return s
	}
	for _, p := range pages {
		if !reflect.DeepEqual(p, itemsOf(got.Items[:len(p)])) {
			t.Fatalf("a page handed out differs from the final items")
		}
	}
	if stored {
		got = unstored(t, got, s.Streams())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("streamed dataset differs from Load's (stored %v):\n got %+v\nwant %+v", stored, summary(got), summary(want))
		for i := range min(len(got.Items), len(want.Items)) {
			if !reflect.DeepEqual(got.Items[i], want.Items[i]) {
				t.Errorf("the first item that differs, %d:\n got %+v\nwant %+v", i, itemsOf(got.Items[i:i+1]), itemsOf(want.Items[i:i+1]))
				break
			}
		}
	}
	return s
}

// unstored returns a copy of a dataset streamed with storeForTest, with
// the rows in Fields again, after checking that the stored ones follow
// the first chunk's whole ones and that FieldsStored says whether there
// are any.
func unstored(t *testing.T, ds *Dataset, streams bool) *Dataset {
	t.Helper()
	out := *ds
	out.Items = slices.Clone(ds.Items)
	storedFrom := -1
	for i := range out.Items {
		it := &out.Items[i]
		f, ok := bytes.CutPrefix(it.Fields, []byte(storedPrefix))
		switch {
		case ok && storedFrom < 0:
			storedFrom = i
		case !ok && storedFrom >= 0:
			t.Fatalf("item %d holds its row after item %d held the stored form", i, storedFrom)
		}
		if ok {
			it.Fields = f
		}
	}
	if !streams && storedFrom >= 0 {
		t.Errorf("a file read whole holds the stored form from item %d", storedFrom)
	}
	if out.FieldsStored != (storedFrom >= 0) {
		t.Errorf("FieldsStored is %v, but the stored form starts at item %d", out.FieldsStored, storedFrom)
	}
	out.FieldsStored = false
	return &out
}

// smallFirst makes the first chunk n lines long.
func smallFirst(t testing.TB, n int) {
	old := streamFirstRows
	streamFirstRows = n
	t.Cleanup(func() { streamFirstRows = old })
}

// gzipped compresses data.
func gzipped(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// byteItem is an item made comparable (Fields as a string).
type byteItem struct {
	Index                              int
	ID, Question, Gold, Prediction     string
	ResponseA, ResponseB, Fields, Segs string
}

func itemsOf(items []judge.Item) []byteItem {
	out := make([]byteItem, len(items))
	for i, it := range items {
		out[i] = byteItem{it.Index, it.ID, it.Question, it.Gold, it.Prediction, it.ResponseA, it.ResponseB, string(it.Fields), fmt.Sprint(it.Segments)}
	}
	return out
}

func summary(ds *Dataset) string {
	return fmt.Sprintf("%d items, format %s, mapping %v, warnings %q, sha %s, imported %d", len(ds.Items), ds.Format, ds.Mapping, ds.Warnings, ds.SHA256, len(ds.Imported))
}

// The stream hands out, page by page, exactly the items Load reads, and
// ends with the same dataset: blank lines, a BOM, invalid UTF-8, Python's
// NaN, an imported verdict column, many chunks parsed on every core.
func TestStreamMatchesLoad(t *testing.T) {
	smallChunks(t)
	cases := map[string][]byte{
		"plain": streamRows(500, func(int) string { return "" }),
		"blank lines and repairs": streamRows(400, func(i int) string {
			switch i % 50 {
			case 7:
				return "   "
			case 8:
				return "\xef\xbb\xbf" + fmt.Sprintf(`{"id": "r%d", "question": "bom", "prediction": "x"}`, i)
			case 9:
				return fmt.Sprintf(`{"id": "r%d", "question": "bad \xff byte", "prediction": NaN}`, i)
			}
			return ""
		}),
		"imported verdicts": streamRows(300, func(i int) string {
			return fmt.Sprintf(`{"id": "r%d", "question": "q", "answer": "a", "prediction": "p", "is_correct": %t}`, i, i%2 == 0)
		}),
		"numbered rows": streamRows(300, func(i int) string { return fmt.Sprintf(`{"q": "q%d", "prediction": "p"}`, i) }),
		"empty gold on some": streamRows(300, func(i int) string {
			return fmt.Sprintf(`{"id": %d, "question": "q", "answer": "%s", "prediction": "p"}`, i, strings.Repeat("a", i%2))
		}),
		"no final newline": bytes.TrimSuffix(streamRows(300, func(int) string { return "" }), []byte("\n")),
		"one row":          streamRows(1, func(int) string { return "" }),
		"gzip":             gzipped(streamRows(500, func(int) string { return "" })),
		"escapes and segments": streamRows(400, func(i int) string {
			return fmt.Sprintf(`{"id": "r%d", "question": "q\n%d \"x\" caf\u00e9", "answer": "a", "prediction": "p%d", "category": "c%d", "rubric": ["be kind", "be brief %d"]}`, i, i, i, i%3, i%2)
		}),
		"many blank lines first": append(bytes.Repeat([]byte("\n"), 700), streamRows(300, func(int) string { return "" })...),
		"bad rows among the first": streamRows(400, func(i int) string {
			return map[bool]string{true: `{"id": "x"`}[i%3 == 0 && i < 30]
		}),
	}
	for name, data := range cases {
		for _, first := range []int{2000, 10} {
			t.Run(fmt.Sprintf("%s/first %d", name, first), func(t *testing.T) {
				smallFirst(t, first)
				s := sameAsLoad(t, "rows.jsonl", data, Options{})
				if s != nil && !s.Streams() && !strings.HasPrefix(name, "bad rows") {
					t.Error("a JSONL file was read whole")
				}
			})
		}
	}
}

// A stream told to store Fields holds, after its first chunk, the form
// it was given for each item, and texts of their own: the chunks it read
// into are read into again (smallChunks makes many), so that a text left
// pointing into one would show another row's bytes.
func TestStreamStoreFields(t *testing.T) {
	smallChunks(t)
	smallFirst(t, 10)
	data := streamRows(500, func(i int) string {
		return fmt.Sprintf(`{"id": "r%d", "question": "q%d", "answer": "a%d", "prediction": "p\n%d", "category": "c%d", "n": %d}`, i, i, i, i, i%4, i)
	})
	s, err := streamData("rows.jsonl", "", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.StoreFields(storeForTest)
	ds, err := s.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !ds.FieldsStored || len(ds.Items) != 500 {
		t.Fatalf("FieldsStored %v, %d items", ds.FieldsStored, len(ds.Items))
	}
	for i, it := range ds.Items {
		n := i + 1
		row := fmt.Sprintf(`{"id": "r%d", "question": "q%d", "answer": "a%d", "prediction": "p\n%d", "category": "c%d", "n": %d}`, n, n, n, n, n%4, n)
		if i >= 10 {
			row = storedPrefix + row
		}
		if it.ID != fmt.Sprintf("r%d", n) || it.Question != fmt.Sprintf("q%d", n) || it.Gold != fmt.Sprintf("a%d", n) ||
			it.Prediction != fmt.Sprintf("p\n%d", n) || it.Segments["category"] != fmt.Sprintf("c%d", n%4) || string(it.Fields) != row {
			t.Fatalf("item %d: %+v", i, itemsOf(ds.Items[i:i+1]))
		}
	}
}

// Close gives up the rest of the file: Wait ends with an error, at once.
func TestStreamClose(t *testing.T) {
	smallChunks(t)
	smallFirst(t, 10)
	s, err := streamData("rows.jsonl", "", streamRows(3000, func(int) string { return "" }), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if items, _, err := s.Items(10); err != nil || len(items) != 10 {
		t.Fatalf("first page: %d items, %v", len(items), err)
	}
	s.Close()
	if ds, err := s.Wait(); err == nil {
		t.Fatalf("Wait after Close read %d items", len(ds.Items))
	}
}

// A stream told to store Fields keeps nothing of the file's bytes once
// parsed: on rows whose bulk is a field no role reads, the heap holds
// about the items alone, where the stream told nothing holds the file (the
// check that the measure sees what it should). Measured with
// runtime.ReadMemStats after collections, never with a clock.
func TestStreamStoredKeepsNoChunk(t *testing.T) {
	smallFirst(t, 10)
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	context := strings.Repeat("a long passage nobody maps; ", 300) // ~8 KB
	data := streamRows(4000, func(i int) string {
		return fmt.Sprintf(`{"id": "r%d", "question": "q%d", "answer": "a", "prediction": "p", "context": "%s"}`, i, i, context)
	})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	size := int64(len(data))
	held := func(store bool) int64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := OpenStream(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if store {
			s.StoreFields(func() func(*judge.Item) string { return func(*judge.Item) string { return "{}" } })
		}
		ds, err := s.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if len(ds.Items) != 4000 {
			t.Fatalf("%d items", len(ds.Items))
		}
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(ds)
		runtime.KeepAlive(s)
		return int64(after.HeapAlloc) - int64(before.HeapAlloc)
	}
	kept := held(false)
	t.Logf("a %d-byte file: read told nothing, %d bytes held after", size, kept)
	if kept < size/2 {
		t.Fatalf("the stream told nothing holds %d bytes of a %d-byte file after it is read: the measure misses the file's bytes", kept, size)
	}
	kept = held(true)
	t.Logf("told to store Fields, %d bytes held after", kept)
	if kept > size/10 {
		t.Errorf("the stream told to store Fields holds %d bytes after reading a %d-byte file (at most %d expected): some item keeps a chunk of the file alive", kept, size, size/10)
	}
}

// What only the whole file can tell ends the stream with Load's error,
// after the rows before it were handed out: a bad row far down, a
// duplicate id, a bad first row.
func TestStreamEndsWithLoadsError(t *testing.T) {
	smallChunks(t)
	cases := map[string][]byte{
		"bad row late":   streamRows(3000, func(i int) string { return map[bool]string{true: `{"id": "x", "prediction": `}[i == 2900] }),
		"duplicate id":   streamRows(3000, func(i int) string { return map[bool]string{true: `{"id": "r12", "prediction": "p"}`}[i == 2990] }),
		"bad first row":  streamRows(300, func(i int) string { return map[bool]string{true: `[1, 2]`}[i == 1] }),
		"row not object": streamRows(3000, func(i int) string { return map[bool]string{true: `"text"`}[i == 2500] }),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := LoadBytes("rows.jsonl", data, Options{}); err == nil {
				t.Fatal("Load accepts the file")
			}
			s := sameAsLoad(t, "rows.jsonl", data, Options{})
			if s == nil {
				return // refused before any row, as Load refuses it
			}
			items, done, err := s.Items(1 << 30)
			if err == nil || done {
				t.Fatalf("Items after the end: done %v, err %v", done, err)
			}
			if name == "bad row late" && len(items) < streamFirstRows {
				t.Errorf("only %d items handed out before the bad row on line 2900", len(items))
			}
		})
	}
}

// Formats that cannot stream, and SkipBad, are read whole, as Load reads
// them.
func TestStreamReadsTheRestWhole(t *testing.T) {
	smallChunks(t)
	harness := streamRows(300, func(i int) string {
		return fmt.Sprintf(`{"doc_id": %d, "doc": {"question": "q%d"}, "target": "t", "resps": [["r"]], "filtered_resps": ["r"], "filter": "%s"}`, i/2, i, []string{"strict", "flexible"}[i%2])
	})
	cases := []struct {
		name string
		data []byte
		opts Options
	}{
		{"rows.csv", []byte("id,question,prediction\n1,q,p\n2,q,p\n"), Options{}},
		{"rows.json", []byte(`[{"id": 1, "prediction": "p"}, {"id": 2, "prediction": "q"}]`), Options{}},
		{"harness.jsonl", harness, Options{}},
		{"rows.jsonl", streamRows(300, func(i int) string { return map[bool]string{true: "{"}[i == 250] }), Options{SkipBad: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := sameAsLoad(t, c.name, c.data, c.opts)
			if s == nil {
				t.Fatal("refused")
			}
			if s.Streams() {
				t.Error("streamed")
			}
		})
	}
}

// The first page is the first streamFirstRows rows, ready before the
// rest: Items(streamFirstRows) returns them, and Lines counts the file's
// lines.
func TestStreamFirstPageAndLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(path, streamRows(5000, func(int) string { return "" }), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStream(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines() != 5000 {
		t.Errorf("Lines() = %d, want 5000", s.Lines())
	}
	items, _, err := s.Items(streamFirstRows)
	if err != nil || len(items) != streamFirstRows || items[0].ID != "r1" || items[streamFirstRows-1].Index != streamFirstRows-1 {
		t.Fatalf("first page: %d items, %v", len(items), err)
	}
	ds, err := s.Wait()
	if err != nil || len(ds.Items) != 5000 || ds.Path != path || ds.SHA256 == "" {
		t.Fatalf("Wait: %v, %+v", err, summary(ds))
	}
	if &ds.Items[0] != &items[0] {
		t.Error("the final items are not the ones handed out")
	}
}

// FuzzStream: whatever the input, the stream ends as Load does.
func FuzzStream(f *testing.F) {
	addCorpus(f, "*.jsonl")
	f.Add(streamRows(40, func(i int) string { return map[bool]string{true: ""}[i == 3] }))
	f.Add([]byte("{\"id\":1,\"prediction\":\"a\"}\n\n{\"id\":1,\"prediction\":\"b\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		smallChunks(t)
		smallFirst(t, 3) // most inputs then have more than the first chunk
		sameAsLoad(t, "fuzz.jsonl", data, Options{})
	})
}

// OpenStream refuses what Load refuses, with Load's message: a missing
// file, a folder, a file over the cap, an empty one, a binary one, damaged
// gzip, a format it cannot tell; and reads what the first rows cannot
// decide (a long JSON document on one line, rows with bad ones first) as
// Load reads it.
func TestStreamOpensAsLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var doc bytes.Buffer
	doc.WriteString("[")
	for i := range 40_000 {
		if i > 0 {
			doc.WriteString(", ")
		}
		fmt.Fprintf(&doc, `{"id": %d, "question": "%s", "prediction": "p"}`, i, strings.Repeat("q", 400))
	}
	doc.WriteString("]")
	gz := gzipped(streamRows(3000, func(int) string { return "" }))
	cases := []struct {
		path string
		opts Options
	}{
		{filepath.Join(dir, "missing.jsonl"), Options{}},
		{dir, Options{}},
		{write("big.jsonl", streamRows(3000, func(int) string { return "" })), Options{MaxBytes: 1000}},
		{write("empty.jsonl", nil), Options{}},
		{write("spaces.jsonl", bytes.Repeat([]byte(" \n"), 5000)), Options{}},
		{write("binary.jsonl", append([]byte{0, 1, 2}, streamRows(10, func(int) string { return "" })...)), Options{}},
		{write("damaged.jsonl.gz", gz[:len(gz)/2]), Options{}},
		{write("rows.gz", gz), Options{}},
		{write("what", []byte("plain words\nmore words\n")), Options{}},
		{write("rows.jsonl", streamRows(3000, func(int) string { return "" })), Options{Format: "yaml"}},
		{write("doc.json", doc.Bytes()), Options{}},
		{write("doc", doc.Bytes()), Options{}},
		{write("skip.jsonl", streamRows(3000, func(i int) string { return map[bool]string{true: "{"}[i == 2500] })), Options{SkipBad: true}},
		{write("first bad.jsonl", streamRows(3000, func(i int) string { return map[bool]string{true: "["}[i < 150] })), Options{}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			want, wantErr := Load(c.path, c.opts)
			s, err := OpenStream(c.path, c.opts)
			var got *Dataset
			if err == nil {
				got, err = s.Wait()
			}
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("stream: %v\nLoad: %v", err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("streamed dataset differs from Load's:\n got %+v\nwant %+v", summary(got), summary(want))
			}
		})
	}
}

// FromFile tells a stream reading its file a chunk at a time from one
// whose file was read whole first: compressed, or a format or option
// that does not stream.
func TestStreamFromFile(t *testing.T) {
	dir := t.TempDir()
	rows := streamRows(3000, func(int) string { return "" })
	cases := []struct {
		name string
		data []byte
		opts Options
		want bool
	}{
		{"rows.jsonl", rows, Options{}, true},
		{"small.jsonl", streamRows(10, func(int) string { return "" }), Options{}, true},
		{"rows.jsonl.gz", gzipped(rows), Options{}, false},
		{"skip.jsonl", rows, Options{SkipBad: true}, false},
		{"rows.csv", []byte("id,question,prediction\n1,q,p\n2,q,p\n"), Options{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := OpenStream(p, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.FromFile(); got != c.want {
				t.Errorf("FromFile() = %v, want %v", got, c.want)
			}
			s.Wait()
		})
	}
}
