package judge

import (
	"reflect"
	"testing"
)

func TestRows(t *testing.T) {
	correct := Dimension{Name: "correct", Scale: Binary}
	score := Dimension{Name: "score", Scale: Likert}
	rubric := Item{ID: "r", Rubric: []string{"cites a source", "is polite"}}
	tests := []struct {
		name string
		info Info
		item Item
		want []Row
	}{
		{"whole item", Info{Dimensions: []Dimension{correct}}, Item{ID: "a"}, []Row{{0, correct}}},
		{"two dimensions, in the judge's order", Info{Dimensions: []Dimension{score, correct}}, Item{ID: "a"},
			[]Row{{0, score}, {0, correct}}},
		{"a whole-item judge ignores the rubric", Info{Dimensions: []Dimension{correct}}, rubric, []Row{{0, correct}}},
		{"per criterion: each criterion, each dimension", Info{Dimensions: []Dimension{correct, score}, PerCriterion: true}, rubric,
			[]Row{{1, correct}, {1, score}, {2, correct}, {2, score}}},
		{"per criterion without a rubric: nothing to label", Info{Dimensions: []Dimension{correct}, PerCriterion: true}, Item{ID: "a"},
			[]Row{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Rows(tc.info, tc.item); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Rows = %+v, want %+v", got, tc.want)
			}
		})
	}
}
