package perfdata

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestWrite checks that every row is one JSON object with the columns the
// performance script maps, the labelled columns only when asked, and that
// the same seed gives the same bytes.
func TestWrite(t *testing.T) {
	for _, labelled := range []bool{false, true} {
		var a, b bytes.Buffer
		if err := Write(&a, Options{Rows: 50, Labelled: labelled, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		if err := Write(&b, Options{Rows: 50, Labelled: labelled, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("the same seed gave different rows")
		}
		lines := strings.Split(strings.TrimSuffix(a.String(), "\n"), "\n")
		if len(lines) != 50 {
			t.Fatalf("%d lines, want 50", len(lines))
		}
		for i, l := range lines {
			var row map[string]any
			if err := json.Unmarshal([]byte(l), &row); err != nil {
				t.Fatalf("row %d: %v", i+1, err)
			}
			for _, k := range []string{"id", "question", "answer", "prediction", "category", "difficulty"} {
				if _, ok := row[k].(string); !ok {
					t.Fatalf("row %d: no string %q", i+1, k)
				}
			}
			_, hasVerdict := row["judge_verdict"].(bool)
			_, hasLabel := row["human_label"].(bool)
			if hasVerdict != labelled || hasLabel != labelled {
				t.Fatalf("row %d: labelled=%v but judge_verdict %v, human_label %v", i+1, labelled, hasVerdict, hasLabel)
			}
		}
		if first := lines[0]; !strings.HasPrefix(first, `{"id": "item-0000001"`) {
			t.Fatalf("first row starts %.30s", first)
		}
	}
	var c bytes.Buffer
	if err := Write(&c, Options{Rows: 5, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	var d bytes.Buffer
	Write(&d, Options{Rows: 5, Seed: 1})
	if bytes.Equal(c.Bytes(), d.Bytes()) {
		t.Fatal("seeds 1 and 2 gave the same rows")
	}
}
