package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// categoryRows is a JSONL file of n rows: every fourth "rare", the rest
// "common".
func categoryRows(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		cat := "common"
		if i%4 == 0 {
			cat = "rare"
		}
		fmt.Fprintf(&b, `{"id":"r%d","question":"q%d","prediction":"p","category":%q,"meta":{"n":%d}}`+"\n", i, i, cat, i)
	}
	return b.String()
}

func TestSampleCommand(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "evals.jsonl", categoryRows(100))
	code, first, errs := run(t, "sample", data, "-n", "20", "--stratify", "category", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, `Drew 20 of 100 rows (seed 3), by category: "common" 15/75, "rare" 5/25.`) {
		t.Errorf("stderr %q", errs)
	}
	_, again, _ := run(t, "sample", data, "-n", "20", "--stratify", "category", "--seed", "3")
	if again != first {
		t.Error("the same seed gave other rows")
	}
	_, other, _ := run(t, "sample", data, "-n", "20", "--stratify", "category", "--seed", "4")
	if other == first {
		t.Error("another seed gave the same rows")
	}
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	rare := 0
	for _, l := range lines {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("not a JSON row: %q", l)
		}
		if _, ok := row["meta"].(map[string]any); !ok {
			t.Errorf("row %q lost its nested field", l)
		}
		if row["category"] == "rare" {
			rare++
		}
	}
	if len(lines) != 20 || rare != 5 {
		t.Errorf("%d rows, %d rare; want 20 and 5", len(lines), rare)
	}

	// --output writes the same rows to a file, which loads as a dataset.
	out := filepath.Join(dir, "sample.jsonl")
	if code, _, errs := run(t, "sample", data, "-n", "20", "--stratify", "category", "--seed", "3", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(out); string(b) != first {
		t.Error("--output wrote other rows than standard output")
	}
	if code, _, errs := run(t, "import", out, "--session", filepath.Join(dir, "s.gavel")); code != 0 {
		t.Errorf("the sample does not load: %s", errs)
	}
}

func TestSampleCSVRowsAndErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "evals.csv", "question,answer\n\"multi\nline\",a\nq2,b\n")
	code, out, errs := run(t, "sample", data, "-n", "5")
	if code != 0 || out != "{\"id\":1,\"question\":\"multi\\nline\",\"answer\":\"a\"}\n{\"id\":2,\"question\":\"q2\",\"answer\":\"b\"}\n" {
		t.Errorf("exit %d, rows %q, stderr %q", code, out, errs)
	}
	if !strings.Contains(errs, "only 2 rows: all of them") {
		t.Errorf("stderr %q", errs)
	}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"sample", data}, 2, "-n N"},
		{[]string{"sample", data, "-n", "-3"}, 2, "-n N"},
		{[]string{"sample", data, "-n", "1", "--stratify", "colour"}, 2, `no row has a field "colour"`}, // the flag names what the rows lack
		{[]string{"sample", filepath.Join(dir, "nope.jsonl"), "-n", "1"}, 1, "does not exist"},
	}
	for _, tc := range tests {
		code, _, errs := run(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
}
