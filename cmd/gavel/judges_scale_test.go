package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gavel judges NAME names a scale's values, whatever the scale.
func TestJudgesShowsEveryScale(t *testing.T) {
	dir := t.TempDir()
	file := func(name, scale string) string {
		p := filepath.Join(dir, name+".yaml")
		src := "name: " + name + "\nuser: '{question} {prediction}'\noutput: {format: word}\ndimensions: [{name: v, scale: '" + scale + "'}]\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		judge string
		want  []string
	}{
		{"pairwise", []string{"scale:    preference: A / B / tie (pairwise)\n", "inputs:   question, response_a, response_b; and gold when the item has it\n", "[[C]]"}},
		{"docqa", []string{"scale:    correct: YES / NO (binary)\n"}},
		{"quality", []string{"scale:    completeness: 1–5 (likert)\n          correctness: 1–5 (likert)\n"}},
		{"rubric", []string{"scale:    score: 0 / 0.5 / 1 (ternary)\n"}},
		{file("simpleqa", "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED"), []string{"scale:    v: CORRECT / INCORRECT / NOT_ATTEMPTED (nominal)\n", "output:   a bare answer: CORRECT / INCORRECT / NOT_ATTEMPTED\n"}},
		{file("mtbench", "ordinal:1-10"), []string{"scale:    v: 1–10 (ordinal:1-10)\n"}},
		{file("fourpt", "ordinal:1-4:poor,fair,good,excellent"), []string{"scale:    v: 1 poor, 2 fair, 3 good, 4 excellent (ordinal)\n"}},
		{file("pick", "pairwise:notie"), []string{"scale:    v: A / B (pairwise, no tie)\n"}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.judge), func(t *testing.T) {
			e, out, errb, _ := testEnv(t)
			if code := execute(context.Background(), e, []string{"judges", tc.judge}); code != 0 {
				t.Fatalf("exit %d: %s", code, errb)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
