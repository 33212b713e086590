package judge

import (
	"maps"
	"testing"
)

func TestSwapTasks(t *testing.T) {
	pref := Info{Name: "pairwise", Dimensions: []Dimension{{Name: "preference", Scale: Pairwise}}}
	notie := Info{Name: "pick", Dimensions: []Dimension{{Name: "pick", Scale: PairwiseNoTie}}}
	yesno := Info{Name: "docqa", Dimensions: []Dimension{{Name: "correct", Scale: Binary}}}
	perCrit := Info{Name: "crit", PerCriterion: true, Dimensions: []Dimension{{Name: "preference", Scale: Pairwise}}}
	pair := Item{ID: "p", ResponseA: "a", ResponseB: "b", Rubric: []string{"x", "y"}}
	onlyA := Item{ID: "a", ResponseA: "a"}
	plain := Item{ID: "q", Prediction: "x"}
	tests := []struct {
		name     string
		info     Info
		it       Item
		swapped  int
		withSwap int
	}{
		{"pairwise judge, pair", pref, pair, 1, 2},
		{"no tie, pair", notie, pair, 1, 2},
		{"one response is still a pair item", pref, onlyA, 1, 2},
		{"pairwise judge, plain item", pref, plain, 0, 1},
		{"binary judge, pair", yesno, pair, 0, 1},
		{"per criterion", perCrit, pair, 2, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sw := SwapTasks(tc.info, tc.it)
			if len(sw) != tc.swapped {
				t.Fatalf("%d swapped tasks, want %d", len(sw), tc.swapped)
			}
			for _, task := range sw {
				if !task.Swapped || task.Item.ID != tc.it.ID {
					t.Errorf("task %+v", task)
				}
			}
			all := TasksFor(tc.info, tc.it, true)
			if len(all) != tc.withSwap {
				t.Errorf("TasksFor(swap) = %d tasks, want %d", len(all), tc.withSwap)
			}
			if n := len(TasksFor(tc.info, tc.it, false)); n != len(Tasks(tc.info, tc.it)) {
				t.Errorf("TasksFor(no swap) = %d tasks", n)
			}
			for i := range Tasks(tc.info, tc.it) {
				if all[i].Swapped {
					t.Errorf("the original order's task %d is swapped", i)
				}
			}
		})
	}
}

func TestShown(t *testing.T) {
	it := Item{ResponseA: "first", ResponseB: "second"}
	if a, b := (Task{Item: it}).Shown(); a != "first" || b != "second" {
		t.Errorf("original order: %q, %q", a, b)
	}
	if a, b := (Task{Item: it, Swapped: true}).Shown(); a != "second" || b != "first" {
		t.Errorf("swapped order: %q, %q", a, b)
	}
}

func TestUnswap(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{PreferA, PreferB}, {PreferB, PreferA}, {PreferTie, PreferTie}, {3, 3},
	} {
		if got := Unswap(tc.in); got != tc.want {
			t.Errorf("Unswap(%g) = %g, want %g", tc.in, got, tc.want)
		}
		if got := Unswap(Unswap(tc.in)); got != tc.in {
			t.Errorf("Unswap twice changes %g to %g", tc.in, got)
		}
	}
	dims := []Dimension{{Name: "preference", Scale: Pairwise}, {Name: "confidence", Scale: Likert}}
	vals := map[string]float64{"preference": PreferA, "confidence": 1}
	UnswapValues(dims, vals)
	if want := map[string]float64{"preference": PreferB, "confidence": 1}; !maps.Equal(vals, want) {
		t.Errorf("values %v, want %v", vals, want)
	}
	UnswapValues(dims, nil) // a verdict without values
}
