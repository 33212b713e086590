package tui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// A filter picks the items to review. The review screen and the list move
// within the filtered items, and labels made there record the filter as
// how the item was reached, so that statistics can tell a hand-picked
// sample from an unbiased one.
type filter struct {
	// id names the filter in labels' provenance ("filter:<id>").
	id string
	// name is what the screen calls it.
	name  string
	match func(m *Model, i int) bool
}

// lowConfidence is the confidence below which a verdict counts as unsure.
const lowConfidence = 0.7

// staticFilters are the filters f cycles through, before the segment
// filters.
var staticFilters = []filter{
	{id: "all", name: "all items", match: func(*Model, int) bool { return true }},
	{id: "unreviewed", name: "unreviewed", match: func(m *Model, i int) bool { return m.applicable[i] && !m.reviewed[i] }},
	{id: "disagreements", name: "judge ≠ you", match: func(m *Model, i int) bool { return m.agreement[i] == 0 }},
	{id: "judges-differ", name: "judge ≠ judge", match: (*Model).judgesDiffer},
	{id: "low-confidence", name: fmt.Sprintf("confidence < %.0f%%", lowConfidence*100), match: (*Model).lowConfidence},
	{id: "errors", name: "parse or API errors", match: (*Model).hasError},
	{id: "judge-top", name: "judge says YES / top score", match: func(m *Model, i int) bool { return m.judgeAt(i, true) }},
	{id: "judge-bottom", name: "judge says NO / bottom score", match: func(m *Model, i int) bool { return m.judgeAt(i, false) }},
}

// filters lists the static filters, then one per value of each segment
// field (up to a few dozen), in a stable order.
func (m *Model) filters() []filter {
	out := slices.Clone(staticFilters)
	values := map[string]map[string]bool{}
	for _, it := range m.items {
		for k, v := range it.Segments {
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			if len(values[k]) < 40 {
				values[k][v] = true
			}
		}
		if len(values) > 0 && len(m.items) > 20000 {
			break // enough to name the segments of a large dataset
		}
	}
	fields := make([]string, 0, len(values))
	for k := range values {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	for _, k := range fields {
		vals := make([]string, 0, len(values[k]))
		for v := range values[k] {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		for _, v := range vals {
			field, value := k, v
			out = append(out, filter{id: "segment:" + k + "=" + v, name: k + " = " + v,
				match: func(m *Model, i int) bool { return m.items[i].Segments[field] == value }})
		}
	}
	return out
}

// searchFilter keeps the items whose text holds the query, ignoring case.
func searchFilter(query string) filter {
	q := strings.ToLower(query)
	return filter{id: "search", name: fmt.Sprintf("text %q", query), match: func(m *Model, i int) bool {
		it := m.items[i]
		for _, s := range []string{it.ID, it.Question, it.Gold, it.Prediction} {
			if strings.Contains(strings.ToLower(s), q) {
				return true
			}
		}
		return false
	}}
}

func (m *Model) judgesDiffer(i int) bool {
	if len(m.runs) < 2 {
		return false
	}
	for _, rw := range m.rows(i) {
		var seen []float64
		for _, r := range m.runs {
			if r.info.PerCriterion != m.run().info.PerCriterion {
				continue
			}
			if v, ok := r.judgeValue(i, rw); ok {
				seen = append(seen, v)
			}
		}
		for _, v := range seen {
			if v != seen[0] {
				return true
			}
		}
	}
	return false
}

func (m *Model) confidence(i int) (float64, bool) {
	lowest, has := 1.0, false
	for _, v := range m.run().verdicts[i] {
		if v.Confidence != nil {
			lowest, has = min(lowest, *v.Confidence), true
		}
	}
	return lowest, has
}

func (m *Model) lowConfidence(i int) bool {
	c, ok := m.confidence(i)
	return ok && c < lowConfidence
}

func (m *Model) hasError(i int) bool {
	for _, v := range m.run().verdicts[i] {
		if !v.OK() {
			return true
		}
	}
	return false
}

// judgeAt reports whether the judge gave the top (or bottom) value of the
// scale on any row of the item.
func (m *Model) judgeAt(i int, top bool) bool {
	for _, rw := range m.rows(i) {
		v, ok := m.run().judgeValue(i, rw)
		vals := rw.dim.Scale.Values()
		if ok && len(vals) > 0 && ((top && v == vals[len(vals)-1]) || (!top && v == vals[0])) {
			return true
		}
	}
	return false
}

// An order is how the filtered items follow each other.
type order int

const (
	orderDataset order = iota
	orderLeastConfident
	orderRandom
	numOrders
)

// randomSeed seeds the random order: the same session shows the same
// sequence, and the provenance "random" is an honest random sample.
const randomSeed = 1

func (o order) String() string {
	switch o {
	case orderLeastConfident:
		return "least confident first"
	case orderRandom:
		return fmt.Sprintf("random (seed %d)", randomSeed)
	}
	return "dataset order"
}

// selection is the current filter and order and the items they give, so
// that moving between items never rescans the dataset.
type selection struct {
	filter filter
	order  order
	items  []int // indices into Model.items
	pos    int   // the position of the item on screen within items
}

// reselect recomputes the selection's items for a new filter or order,
// keeping the current item on screen when it is still selected.
func (m *Model) reselect() {
	sel := &m.sel
	sel.items = sel.items[:0]
	for i := range m.items {
		if sel.filter.match == nil || sel.filter.match(m, i) {
			sel.items = append(sel.items, i)
		}
	}
	switch sel.order {
	case orderLeastConfident:
		sort.SliceStable(sel.items, func(a, b int) bool {
			ca, oka := m.confidence(sel.items[a])
			cb, okb := m.confidence(sel.items[b])
			if oka != okb {
				return oka // items with a confidence first
			}
			return ca < cb
		})
	case orderRandom:
		r := rand.New(rand.NewPCG(randomSeed, uint64(len(m.items))))
		r.Shuffle(len(sel.items), func(a, b int) { sel.items[a], sel.items[b] = sel.items[b], sel.items[a] })
	}
	sel.pos = 0
	for p, i := range sel.items {
		if i == m.cur {
			sel.pos = p
			break
		}
	}
	if len(sel.items) > 0 {
		m.goTo(sel.items[sel.pos])
	}
}

// provenance is how items are being reached, recorded with each label.
func (m *Model) provenance() string {
	switch {
	case m.sel.filter.id != "" && m.sel.filter.id != "all":
		return "filter:" + m.sel.filter.id
	case m.sel.order == orderRandom:
		return "random"
	case m.sel.order == orderLeastConfident:
		return "filter:least-confident"
	}
	return "order"
}

// step moves by delta within the selection.
func (m *Model) step(delta int) {
	if len(m.sel.items) == 0 {
		m.setFlash("No item matches the filter " + m.sel.filter.name + ": press f for another.")
		return
	}
	p := m.sel.pos + delta
	if p < 0 || p >= len(m.sel.items) {
		m.setFlash(fmt.Sprintf("That is the %s item of %d (%s).", map[bool]string{true: "first", false: "last"}[p < 0], len(m.sel.items), m.sel.filter.name))
		return
	}
	m.sel.pos = p
	m.goTo(m.sel.items[p])
}

// selected reports whether the dataset's whole order is shown, for the
// header.
func (m *Model) filtered() bool {
	return (m.sel.filter.id != "" && m.sel.filter.id != "all") || m.sel.order != orderDataset
}
