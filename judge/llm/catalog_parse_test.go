package llm

import (
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestCatalogParse(t *testing.T) {
	c := NewCatalog()
	tests := []struct {
		judge, raw string
		status     judge.Status
		dim        string
		value      float64
	}{
		{"docqa", "reason: the dates match\nresult: YES", judge.StatusOK, "correct", 1},
		{"docqa", "I am not sure.", judge.StatusParseError, "", 0},
		{"same-event", "**NO**", judge.StatusOK, "correct", 0},
		{"rubric", "```json\n{\"score\": 0.5, \"reason\": \"partly\"}\n```", judge.StatusOK, "score", 0.5},
		{"quality", `{"completeness_score": 4, "correctness_score": 2}`, judge.StatusOK, "correctness", 2},
	}
	for _, tc := range tests {
		v, err := c.Parse(tc.judge, tc.raw)
		if err != nil {
			t.Fatalf("Parse(%s): %v", tc.judge, err)
		}
		if v.Status != tc.status || (tc.dim != "" && v.Values[tc.dim] != tc.value) || v.Raw != tc.raw {
			t.Errorf("Parse(%s, %q) = %+v", tc.judge, tc.raw, v)
		}
	}
	if _, err := c.Parse("nope", "x"); err == nil {
		t.Error("Parse of an unknown judge did not fail")
	}
}
