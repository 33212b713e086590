package dataset

import (
	"bytes"
	"testing"
)

// More hands out, call after call, every item parsed so far past what
// was asked: prefixes of Load's items that only grow, each longer than
// the one before until the last, which holds them all (done) — or, when
// the parse ends on an error, the items before it and Load's error.
func TestStreamMore(t *testing.T) {
	smallChunks(t)
	smallFirst(t, 50)
	cases := []struct {
		name string
		data []byte
	}{
		{"clean", streamRows(3000, func(int) string { return "" })},
		{"blank lines", streamRows(3000, func(i int) string { return map[bool]string{true: " "}[i%97 == 0] })},
		{"first page only", streamRows(30, func(int) string { return "" })},
		{"bad row late", streamRows(3000, func(i int) string { return map[bool]string{true: `{"id": "x", "prediction": `}[i == 2900] })},
		{"duplicate id", streamRows(3000, func(i int) string { return map[bool]string{true: `{"id": "r12", "prediction": "p"}`}[i == 2990] })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wantErr := LoadBytes("rows.jsonl", c.data, Options{})
			s, err := streamData("rows.jsonl", "", bytes.Clone(c.data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !s.Streams() {
				t.Fatal("the rows are not streamed")
			}
			n := 0
			for {
				items, done, err := s.More(n)
				if err != nil {
					if wantErr == nil || err.Error() != wantErr.Error() {
						t.Fatalf("More(%d): %v; Load: %v", n, err, wantErr)
					}
					if len(items) < n {
						t.Fatalf("More(%d) after an error gave %d items", n, len(items))
					}
					break
				}
				if wantErr != nil && done {
					t.Fatalf("More(%d) is done; Load: %v", n, wantErr)
				}
				if len(items) <= n && !done {
					t.Fatalf("More(%d) gave %d items and is not done", n, len(items))
				}
				if wantErr == nil {
					for i := n; i < len(items); i++ {
						if items[i].ID != want.Items[i].ID || items[i].Index != i || string(items[i].Fields) != string(want.Items[i].Fields) {
							t.Fatalf("item %d is %s (index %d), Load's %s", i, items[i].ID, items[i].Index, want.Items[i].ID)
						}
					}
				}
				n = len(items)
				if done {
					if n != len(want.Items) {
						t.Fatalf("done with %d items, Load gives %d", n, len(want.Items))
					}
					break
				}
			}
			ds, err := s.Wait()
			if (err == nil) != (wantErr == nil) || (err == nil && len(ds.Items) != n) {
				t.Fatalf("Wait: %v (Load: %v)", err, wantErr)
			}
		})
	}
}
