package sessions

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestAllocate(t *testing.T) {
	tests := []struct {
		sizes []int
		n     int
		want  []int
	}{
		{[]int{50, 30, 20}, 10, []int{5, 3, 2}},
		{[]int{50, 30, 20}, 100, []int{50, 30, 20}},
		{[]int{50, 30, 20}, 500, []int{50, 30, 20}},
		// Every stratum gets one, the rest in proportion.
		{[]int{97, 2, 1}, 10, []int{8, 1, 1}},
		{[]int{1, 1, 1, 97}, 4, []int{1, 1, 1, 1}},
		// Fewer draws than strata: the largest strata first.
		{[]int{1, 5, 3}, 2, []int{0, 1, 1}},
		// Largest remainders: 7 × (5,3,2)/10 = 3.5, 2.1, 1.4.
		{[]int{5, 3, 2}, 7, []int{4, 2, 1}},
		{[]int{3, 3, 3}, 4, []int{2, 1, 1}},
	}
	for _, tc := range tests {
		got := allocate(tc.sizes, tc.n)
		if !slices.Equal(got, tc.want) {
			t.Errorf("allocate(%v, %d) = %v, want %v", tc.sizes, tc.n, got, tc.want)
		}
		sum := 0
		for i, g := range got {
			sum += g
			if g > tc.sizes[i] || g < 0 {
				t.Errorf("allocate(%v, %d): %d from a stratum of %d", tc.sizes, tc.n, g, tc.sizes[i])
			}
		}
		if want := min(tc.n, sumOf(tc.sizes)); sum != want {
			t.Errorf("allocate(%v, %d) draws %d, want %d", tc.sizes, tc.n, sum, want)
		}
	}
}

func sumOf(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}

// sampleRows makes n items; every fifth is "rare", the rest split between
// "a" and "b", with the category both as a segment and as a nested field.
func sampleRows(n int) []judge.Item {
	items := make([]judge.Item, n)
	for i := range items {
		cat := []string{"a", "b"}[i%2]
		if i%5 == 0 {
			cat = "rare"
		}
		items[i] = judge.Item{Index: i, ID: fmt.Sprint(i), Segments: map[string]string{"category": cat},
			Fields: json.RawMessage(fmt.Sprintf(`{"id":%d,"meta":{"level":%q}}`, i, cat))}
	}
	return items
}

func TestSampleReproducible(t *testing.T) {
	items := sampleRows(1000)
	a, _, err := Sample(items, SampleOptions{N: 50, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := Sample(items, SampleOptions{N: 50, Seed: 7})
	c, _, _ := Sample(items, SampleOptions{N: 50, Seed: 8})
	if !slices.Equal(a, b) {
		t.Error("the same seed gave another sample")
	}
	if slices.Equal(a, c) {
		t.Error("another seed gave the same sample")
	}
	if len(a) != 50 || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 50 {
		t.Errorf("sample %v: want 50 distinct rows in dataset order", a)
	}
	all, _, _ := Sample(items[:10], SampleOptions{N: 50, Seed: 7})
	if len(all) != 10 {
		t.Errorf("asking for more rows than there are gave %d, want all 10", len(all))
	}
}

func TestSampleStrata(t *testing.T) {
	items := sampleRows(1000) // rare 200, a 400, b 400
	for _, field := range []string{"category", "meta.level"} {
		t.Run(field, func(t *testing.T) {
			picked, strata, err := Sample(items, SampleOptions{N: 100, Stratify: field, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, i := range picked {
				got[items[i].Segments["category"]]++
			}
			if got["rare"] != 20 || got["a"] != 40 || got["b"] != 40 {
				t.Errorf("drawn per stratum %v, want rare 20, a 40, b 40", got)
			}
			want := []Stratum{{"a", 400, 40}, {"b", 400, 40}, {"rare", 200, 20}}
			if !slices.Equal(strata, want) {
				t.Errorf("strata %+v, want %+v", strata, want)
			}
		})
	}
	// A small sample still reaches every stratum.
	picked, _, _ := Sample(items, SampleOptions{N: 3, Stratify: "category", Seed: 1})
	seen := map[string]bool{}
	for _, i := range picked {
		seen[items[i].Segments["category"]] = true
	}
	if len(seen) != 3 {
		t.Errorf("3 rows from 3 strata reached %v", seen)
	}
}

func TestSampleErrors(t *testing.T) {
	items := sampleRows(10)
	tests := []struct {
		opts SampleOptions
		msg  string
	}{
		{SampleOptions{N: 0}, "-n N"},
		{SampleOptions{N: 5, Stratify: "colour"}, `no row has a field "colour" to stratify by: the rows have "id", "meta"`},
	}
	for _, tc := range tests {
		if _, _, err := Sample(items, tc.opts); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Sample(%+v) err = %v, want %q", tc.opts, err, tc.msg)
		}
	}
	if _, _, err := Sample(nil, SampleOptions{N: 1}); err == nil {
		t.Error("sampling no rows did not fail")
	}
}
