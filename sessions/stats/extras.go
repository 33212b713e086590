package stats

import (
	"sort"

	"github.com/gavel-dev/gavel/judge"
)

// MaxExtraValues is the most distinct values a judge's extra field may
// take and still be counted: beyond it the field is free text (a comment,
// an extracted answer), not a category.
const MaxExtraValues = 20

// ExtraField counts the values a judge reported in one field of its own
// beside the verdict — bbh's error_type and reasoning_score, the match
// judge's rule — over the current ok verdicts of its units.
type ExtraField struct {
	Field string `json:"field"`
	// Values are ordered by count, most frequent first, then by value.
	Values []ExtraValue `json:"values"`
}

// ExtraValue is one value of an extra field and how many verdicts gave it.
type ExtraValue struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// repeats reports whether a field's values recur, as categories do; a field
// whose values are mostly distinct (extracted answers, comments) is free
// text even when there are few of them.
func repeats(vals map[string]int) bool {
	total := 0
	for _, n := range vals {
		total += n
	}
	return len(vals) <= 3 || 2*len(vals) <= total
}

// countExtras counts the Extra fields of each unit's current verdict of
// judge key (its last in the original order), among units in scope (criterion units for per-criterion
// judges, item units otherwise) whose current verdict is ok. Fields with
// more than MaxExtraValues distinct values, or whose values are mostly
// distinct, are left out.
func countExtras(units []Unit, key string, perCriterion bool) []ExtraField {
	counts := map[string]map[string]int{}
	for _, u := range units {
		if (u.Criterion > 0) != perCriterion {
			continue
		}
		var cur *Verdict
		for i := range u.Verdicts {
			if u.Verdicts[i].Judge == key && !u.Verdicts[i].Swapped {
				cur = &u.Verdicts[i]
			}
		}
		if cur == nil || cur.Status != judge.StatusOK {
			continue
		}
		for f, v := range cur.Extra {
			if counts[f] == nil {
				counts[f] = map[string]int{}
			}
			if len(counts[f]) <= MaxExtraValues {
				counts[f][v]++
			}
		}
	}
	out := []ExtraField{}
	for f, vals := range counts {
		if len(vals) > MaxExtraValues || !repeats(vals) {
			continue
		}
		ef := ExtraField{Field: f, Values: make([]ExtraValue, 0, len(vals))}
		for v, n := range vals {
			ef.Values = append(ef.Values, ExtraValue{Value: v, Count: n})
		}
		sort.Slice(ef.Values, func(i, j int) bool {
			a, b := ef.Values[i], ef.Values[j]
			if a.Count != b.Count {
				return a.Count > b.Count
			}
			return a.Value < b.Value
		})
		out = append(out, ef)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}
