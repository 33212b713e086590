package llm

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestCheckFields(t *testing.T) {
	items := []judge.Item{
		{ID: "a", Fields: json.RawMessage(`{"context":"x","doc":{"title":"t"},"question":"q"}`)},
		{ID: "b", Fields: json.RawMessage(`{"doc":{"title":null}}`)},
		{ID: "c", Fields: json.RawMessage(`{"context":"","doc":{}}`)},
	}
	tests := []struct {
		inputs []string
		want   []FieldCheck
	}{
		{[]string{"question", "gold", "prediction", "id", "criterion", "rubric"}, nil},
		{[]string{"question", "context"}, []FieldCheck{{Field: "context", Missing: 1, Items: 3, FirstMissing: "b"}}},
		{[]string{"doc.title"}, []FieldCheck{{Field: "doc.title", Missing: 1, Items: 3, FirstMissing: "c"}}},
		{[]string{"fields.question", "nope"}, []FieldCheck{
			{Field: "fields.question", Missing: 2, Items: 3, FirstMissing: "b"},
			{Field: "nope", Missing: 3, Items: 3, FirstMissing: "a"},
		}},
	}
	for _, tc := range tests {
		if got := CheckFields(tc.inputs, items); !slices.Equal(got, tc.want) {
			t.Errorf("CheckFields(%v) = %+v, want %+v", tc.inputs, got, tc.want)
		}
	}
	if got := RowFields(items, false); !slices.Equal(got, []string{"context", "doc", "question"}) {
		t.Errorf("RowFields = %v", got)
	}
	if got := RowFields(items, true); !slices.Equal(got, []string{"context", "doc", "doc.title", "question"}) {
		t.Errorf("RowFields(nested) = %v", got)
	}
}

func TestSuggestField(t *testing.T) {
	cands := []string{"Context", "doc.title", "prediction", "question", "gold_answer", "id"}
	tests := map[string]string{
		"context":     "Context",
		"predicton":   "prediction",
		"questoin":    "question",
		"doc.titel":   "doc.title",
		"gold-answer": "gold_answer",
		"xyz":         "",
		"di":          "",
		"summary":     "",
		"question":    "",
	}
	for name, want := range tests {
		if got := SuggestField(name, cands); got != want {
			t.Errorf("SuggestField(%q) = %q, want %q", name, got, want)
		}
	}
}
