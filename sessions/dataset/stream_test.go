package dataset

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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
// with Load's dataset or Load's error.
func sameAsLoad(t *testing.T, name string, data []byte, opts Options) *Stream {
	t.Helper()
	want, wantErr := LoadBytes(name, data, opts)
	s, err := streamData(name, "", bytes.Clone(data), opts)
	if err != nil {
		if wantErr == nil || err.Error() != wantErr.Error() {
			t.Fatalf("OpenStream: %v; Load: %v", err, wantErr)
		}
		return nil
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
	if !reflect.DeepEqual(got, want) {
		t.Errorf("streamed dataset differs from Load's:\n got %+v\nwant %+v", summary(got), summary(want))
	}
	return s
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
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			s := sameAsLoad(t, "rows.jsonl", data, Options{})
			if s != nil && !s.Streams() {
				t.Error("a JSONL file was read whole")
			}
		})
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
		sameAsLoad(t, "fuzz.jsonl", data, Options{})
	})
}
