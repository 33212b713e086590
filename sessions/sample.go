package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/plan"
)

// SampleOptions say how to draw a calibration sample.
type SampleOptions struct {
	// N is how many rows to draw; all of them when N is at least the
	// dataset's size.
	N int
	// Stratify names a field to stratify by: a segment field or any field
	// of the rows, dotted paths included ("doc.category"). "" draws a
	// simple random sample.
	Stratify string
	// Seed makes the draw reproducible: the same rows, seed and options
	// always give the same sample.
	Seed uint64
}

// Stratum is one value of the stratification field and how many rows were
// drawn from it.
type Stratum struct {
	// Value is the field's value; "" for rows without it.
	Value string
	Rows  int
	Drawn int
}

// Sample draws opts.N rows at random and returns their positions in
// items, in dataset order. With Stratify, the rows are grouped by the
// field's value and each group gets a share of N proportional to its size
// (largest remainders), with at least one row for every group when N
// allows; the strata are returned sorted by value. The draw depends only
// on the rows' order, the field's values and the options.
func Sample(items []judge.Item, opts SampleOptions) ([]int, []Stratum, error) {
	if opts.N <= 0 {
		return nil, nil, fmt.Errorf("cannot draw %d rows: ask for one or more with -n N", opts.N)
	}
	if len(items) == 0 {
		return nil, nil, errNoRows
	}
	groups := map[string][]int{}
	if opts.Stratify == "" {
		all := make([]int, len(items))
		for i := range all {
			all[i] = i
		}
		groups[""] = all
	} else {
		var err error
		if groups, err = strata(items, opts.Stratify); err != nil {
			return nil, nil, err
		}
	}
	values := sortedKeys(groups)
	sizes := make([]int, len(values))
	for i, v := range values {
		sizes[i] = len(groups[v])
	}
	alloc := allocate(sizes, opts.N)
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	var picked []int
	out := make([]Stratum, len(values))
	for i, v := range values {
		rows := slices.Clone(groups[v])
		// A partial Fisher–Yates shuffle: the first alloc[i] rows are a
		// uniform random sample of the group.
		for k := 0; k < alloc[i]; k++ {
			j := k + rng.IntN(len(rows)-k)
			rows[k], rows[j] = rows[j], rows[k]
		}
		picked = append(picked, rows[:alloc[i]]...)
		out[i] = Stratum{Value: v, Rows: len(rows), Drawn: alloc[i]}
	}
	slices.Sort(picked)
	if opts.Stratify == "" {
		out = nil
	}
	return picked, out, nil
}

// allocate shares n draws among groups of the given sizes in proportion to
// their size, by largest remainders, never more than a group holds, and at
// least one per group when n is at least the number of groups.
func allocate(sizes []int, n int) []int {
	least := 0
	if n >= len(sizes) {
		least = 1
	}
	return plan.AllocateAtLeast(sizes, n, least)
}

// strata groups row positions by the value of field: the segment of that
// name, else the row's field (dotted paths reach nested ones).
func strata(items []judge.Item, field string) (map[string][]int, error) {
	groups := map[string][]int{}
	found := false
	path := strings.Split(field, ".")
	for i, it := range items {
		v, ok := it.Segments[field]
		if !ok {
			v, ok = fieldValue(it.Fields, path)
		}
		found = found || ok
		groups[v] = append(groups[v], i)
	}
	if !found && len(items) > 0 {
		return nil, newError(dataset.ErrFlag, nil, "no row has a field %s to stratify by: %s", strconv.Quote(field), fieldNames(items[0].Fields))
	}
	return groups, nil
}

// fieldValue reads a field of a row as text; ok is false when the row
// does not have it.
func fieldValue(fields json.RawMessage, path []string) (string, bool) {
	if len(fields) == 0 {
		return "", false
	}
	var v any
	if err := json.Unmarshal(fields, &v); err != nil {
		return "", false
	}
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				return "", false
			}
		case []any:
			k, err := strconv.Atoi(p)
			if err != nil || k < 0 || k >= len(x) {
				return "", false
			}
			v = x[k]
		default:
			return "", false
		}
	}
	switch x := v.(type) {
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b), true
	}
	return scalarText(v), true
}

// fieldNames lists a row's top-level fields for a message.
func fieldNames(fields json.RawMessage) string {
	fs, err := orderedFields(fields)
	if err != nil || len(fs) == 0 {
		return "the rows have no named fields"
	}
	names := make([]string, 0, len(fs))
	for i, f := range fs {
		if i == 20 {
			names = append(names, fmt.Sprintf("and %d more", len(fs)-20))
			break
		}
		names = append(names, strconv.Quote(f.name))
	}
	return "the rows have " + strings.Join(names, ", ")
}

// errNoRows is returned for a sample of an empty dataset.
var errNoRows = errors.New("the dataset has no rows to sample")
