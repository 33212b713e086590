package dataset

import (
	"reflect"
	"testing"
)

func TestNearest(t *testing.T) {
	ids := []string{"tq_0001", "tq_0002", "tq_0010", "tq_0100", "other", "TQ_0001-b"}
	tests := []struct {
		word string
		n    int
		want []string
	}{
		{"tq_0003", 3, []string{"tq_0001", "tq_0002", "tq_0010"}},
		{"tq_0003", 1, []string{"tq_0001"}},
		{"tq_001", 5, []string{"tq_0001", "tq_0010", "tq_0002", "tq_0100"}},
		{"othr", 3, []string{"other"}},
		{"0001", 3, []string{"tq_0001", "TQ_0001-b"}},             // too far to be a typo: the ids that hold it
		{"tq_0001", 3, []string{"tq_0002", "tq_0010", "tq_0100"}}, // itself is no suggestion
		{"zzz", 3, []string{}},
		{"", 3, []string{}},
	}
	for _, tc := range tests {
		if got := Nearest(tc.word, ids, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Nearest(%q, %d) = %q, want %q", tc.word, tc.n, got, tc.want)
		}
	}
}
