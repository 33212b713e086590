package main

import (
	"fmt"
	"slices"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/catalog"
)

// swapNotes says, for --swap, what will not be judged in both orders and
// why, rather than let the flag do nothing in silence: a judge that
// states no preference (it rates one prediction), or a dataset without a
// single pair.
func swapNotes(swap bool, judges []judge.Judge, items []judge.Item, dataset string) []string {
	if !swap {
		return nil
	}
	var notes []string
	if !slices.ContainsFunc(items, judge.Item.Pairwise) {
		return []string{fmt.Sprintf("--swap: no item of %s holds two responses (response_a and response_b; --map names them): every item is judged in one order", dataset)}
	}
	for _, j := range judges {
		if info := j.Info(); !info.Prefers() {
			notes = append(notes, fmt.Sprintf("--swap: %s rates a single answer, not a preference between two responses: it judges each item in one order", info.Name))
		}
	}
	return notes
}

// skippedUnit is what a run's skipped count counts: items, or with both
// orders judged, tasks (an item without its pair is skipped twice).
func skippedUnit(bothOrders bool) string {
	if bothOrders {
		return "task"
	}
	return "item"
}

// skippedWhy says what a skipped item lacked, by what the judge's prompt
// needs.
func skippedWhy(en catalog.Entry) string {
	if slices.Contains(en.Inputs, "response_a") || slices.Contains(en.Inputs, "response_b") {
		return "the item lacks one of the two responses the prompt compares"
	}
	return "the item lacks the gold answer or prediction the prompt needs"
}
