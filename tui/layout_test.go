package tui

import (
	"reflect"
	"testing"
)

func TestDistribute(t *testing.T) {
	tests := []struct {
		name    string
		total   int
		need    []int
		elastic int
		want    []int
	}{
		{"everything fits, rest to elastic", 20, []int{4, 4, 4}, 2, []int{4, 4, 12}},
		{"a long pane takes what the others leave", 20, []int{30, 4, 4}, 2, []int{12, 4, 4}},
		{"water-filling shares evenly", 15, []int{10, 10, 10}, 2, []int{5, 5, 5}},
		{"small needs are met before big ones grow", 16, []int{4, 20, 20}, 2, []int{4, 6, 6}},
		{"never below the minimum", 6, []int{10, 10, 10}, 2, []int{3, 3, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := distribute(tc.total, tc.need, tc.elastic)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("distribute(%d, %v, %d) = %v, want %v", tc.total, tc.need, tc.elastic, got, tc.want)
			}
		})
	}
}
