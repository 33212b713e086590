package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmptyRoleWarnings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	three := write("three.jsonl", `{"id":"a","question":"q1","gold":"","prediction":"x"}
{"id":"b","question":"q2","gold":"","prediction":""}
{"id":"c","question":"q3","gold":" ","prediction":"y"}
`)
	one := write("one.jsonl", `{"id":"a","question":"q1","gold":"","prediction":"x"}
`)
	// MMLongBench: the gold answer is "answer"; mapping it as the
	// prediction leaves gold with no field at all.
	taken := write("mm.json", `[{"doc_id":"d.pdf","question":"q1","answer":"A"},{"doc_id":"d.pdf","question":"q2","answer":"B"}]`)
	for _, tt := range []struct {
		name, path string
		mapping    map[string]string
		want       []string
	}{
		{"all and some", three, nil, []string{
			`gold (mapped "gold") is empty on all 3 items: --map gold=FIELD names the field that holds the gold answer; rows have keys "id", "question", "gold", "prediction"`,
			`prediction (mapped "prediction") is empty on 1 of 3 items (the first: "b"); judges that need it skip those`,
		}},
		{"one item", one, nil, []string{`gold (mapped "gold") is empty on the only item: --map gold=FIELD`}},
		{"field taken by --map", taken, map[string]string{"prediction": "answer"}, []string{
			`gold is empty on both items: "answer", the field that would hold the gold answer, is mapped to prediction (--map prediction=answer); --map gold=FIELD names the field that holds it; rows have keys "doc_id", "question", "answer"`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := Load(tt.path, Options{Map: tt.mapping})
			if err != nil {
				t.Fatal(err)
			}
			if len(ds.Warnings) != len(tt.want) {
				t.Fatalf("warnings %q, want %d", ds.Warnings, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(ds.Warnings[i], w) {
					t.Errorf("warning %d:\n got: %s\nwant: …%s…", i, ds.Warnings[i], w)
				}
			}
		})
	}
	// Nothing empty: no warning.
	full := write("full.jsonl", `{"id":"a","question":"q","gold":"g","prediction":"p"}`+"\n")
	if ds, err := Load(full, Options{}); err != nil || len(ds.Warnings) != 0 {
		t.Errorf("complete rows: %v, warnings %q", err, ds.Warnings)
	}
}
