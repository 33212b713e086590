package stats

import (
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// dimKey names a dimension with its scale: labels are read per dimension
// name, and two dimensions compare only on the same scale.
type dimKey struct {
	name  string
	scale judge.Scale
}

// Per-unit selection classes (how a unit's labels were reached), in
// rising order of doubt: a unit takes the class of its most doubtful label.
const (
	selNone uint8 = iota
	selUnbiased
	selOrder
	selUnknown
	selFiltered
)

// Reference codes beside a category index.
const (
	refNone int8 = -1
	refTie  int8 = -2
)

// humanDim is the humans' side of one dimension, per input unit.
type humanDim struct {
	key  dimKey
	cats []float64
	// ref is the category index of the unit's human value (the single
	// label or the majority), refNone or refTie.
	ref []int8
	sel []uint8
	// provStart[u]..provStart[u+1] index prov, the interned provenance of
	// each usable label on unit u.
	provStart []int32
	prov      []uint16
	provNames []string
	report    HumanAgreement
}

// provenanceClass sorts a provenance string into a selection class: a
// seeded random order ("random"), a random sample ("sample") and an
// active labelling plan ("plan", "plan:…") are random; "order" is dataset
// order; "filter:NAME" a filter; anything else (imported labels) unknown.
func provenanceClass(p string) uint8 {
	switch {
	case p == "random" || p == "sample" || p == "plan" || strings.HasPrefix(p, "plan:"):
		return selUnbiased
	case p == "order":
		return selOrder
	case strings.HasPrefix(p, "filter:"):
		return selFiltered
	}
	return selUnknown
}

// labelValue returns the category index of an annotator's value, or -1.
func labelValue(values map[string]float64, name string, cats []float64) int {
	v, ok := values[name]
	if !ok {
		return -1
	}
	return categoryIndex(cats, v)
}

// categoryIndex returns the index of v in cats, or -1. Scales have a
// handful of values, so a scan beats a binary search.
func categoryIndex(cats []float64, v float64) int {
	for i, c := range cats {
		if c == v {
			return i
		}
	}
	return -1
}

// buildHumans reads every label on one dimension: each unit's reference
// value and selection class, and the inter-annotator figures.
func buildHumans(in *Input, key dimKey, notes *notes) *humanDim {
	cats := key.scale.Values()
	n := len(in.Units)
	h := &humanDim{key: key, cats: cats, ref: make([]int8, n), sel: make([]uint8, n), provStart: make([]int32, n+1)}
	provID := map[string]uint16{}
	alpha := newCoincidence(cats)
	var fleiss [][]int
	pairs := map[[2]string]*Confusion{}
	annotators := map[string]bool{}
	counts := make([]int, len(cats))
	type usable struct {
		who string
		cat int
	}
	var labels []usable
	lastProv, lastID := "", uint16(0)
	rep := &h.report
	for u := range in.Units {
		h.provStart[u] = int32(len(h.prov))
		clear(counts)
		labels = labels[:0]
		sel := selNone
		all := in.Units[u].Labels
		for i, l := range all {
			if laterLabelBy(all[i+1:], l.Annotator) {
				continue
			}
			v, has := l.Values[key.name]
			if !has {
				continue
			}
			c := categoryIndex(cats, v)
			if c < 0 {
				notes.add("labels with a value off the " + string(key.scale) + " scale of " + key.name + " were ignored")
				continue
			}
			counts[c]++
			labels = append(labels, usable{l.Annotator, c})
			annotators[l.Annotator] = true
			p := l.Provenance
			if p == "" {
				p = "unknown"
			}
			id, ok := lastID, p == lastProv
			if !ok {
				id, ok = provID[p]
			}
			if !ok && len(h.provNames) < 1<<16-1 {
				id = uint16(len(h.provNames))
				provID[p] = id
				h.provNames = append(h.provNames, p)
			}
			lastProv, lastID = p, id
			h.prov = append(h.prov, id)
			sel = max(sel, provenanceClass(l.Provenance))
		}
		h.sel[u] = sel
		h.ref[u] = majority(counts)
		if len(labels) == 0 {
			continue
		}
		rep.Labelled++
		if h.ref[u] == refTie {
			rep.MajorityTies++
		}
		if len(labels) >= 2 {
			rep.Pairable++
			alpha.addUnit(counts)
			fleiss = append(fleiss, slices.Clone(counts))
			slices.SortFunc(labels, func(a, b usable) int { return strings.Compare(a.who, b.who) })
			for i := range labels {
				for j := i + 1; j < len(labels); j++ {
					k := [2]string{labels[i].who, labels[j].who}
					c, ok := pairs[k]
					if !ok {
						nc := NewConfusion(cats)
						c = &nc
						pairs[k] = c
					}
					// Rows are the second annotator, columns the first;
					// kappa is symmetric, so the choice does not matter.
					c.Counts[labels[j].cat][labels[i].cat]++
				}
			}
		}
	}
	h.provStart[n] = int32(len(h.prov))

	rep.Dimension, rep.Scale = key.name, key.scale
	rep.Annotators = sortedKeys(annotators)
	rep.AlphaNominal = pointOnly(alpha.alpha(Nominal))
	if key.scale.Ordinal() {
		rep.AlphaOrdinal = pointOnly(alpha.alpha(Ordinal))
		rep.AlphaInterval = pointOnly(alpha.alpha(IntervalLevel))
		rep.AlphaRatio = pointOnly(alpha.alpha(Ratio))
		rep.GwetAC2 = undefinedInterval("not computed yet")
	} else {
		rep.AlphaOrdinal = undefinedInterval("not an ordinal scale")
		rep.AlphaInterval, rep.AlphaRatio, rep.GwetAC2 = rep.AlphaOrdinal, rep.AlphaOrdinal, rep.AlphaOrdinal
	}
	rep.FleissKappa = pointOnly(FleissKappa(fleiss))
	rep.GwetAC1 = pointOnly(GwetAC1Multi(fleiss))
	rep.PercentAgreement = undefinedInterval("not computed yet")
	if len(rep.Annotators) < 2 {
		reason := "needs labels from two or more annotators"
		rep.AlphaNominal = undefinedInterval(reason)
		rep.FleissKappa, rep.GwetAC1, rep.PercentAgreement = rep.AlphaNominal, rep.AlphaNominal, rep.AlphaNominal
		if key.scale.Ordinal() {
			rep.AlphaOrdinal, rep.AlphaInterval, rep.AlphaRatio, rep.GwetAC2 = rep.AlphaNominal, rep.AlphaNominal, rep.AlphaNominal, rep.AlphaNominal
		}
	}
	rep.Pairs = []AnnotatorPair{}
	keys := make([][2]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		c := pairs[k]
		rep.Pairs = append(rep.Pairs, AnnotatorPair{A: k[0], B: k[1], N: c.N(), PercentAgreement: c.PercentAgreement(), CohenKappa: pointOnly(c.CohenKappa())})
	}
	return h
}

func laterLabelBy(rest []Label, annotator string) bool {
	for _, l := range rest {
		if l.Annotator == annotator {
			return true
		}
	}
	return false
}

// majority returns the most common category, refTie when two or more share
// the top count, refNone when there are no values. Ties are left out rather
// than broken: any rule (lower, higher, median) would move the judge's
// agreement in a direction chosen by us, not by the annotators.
func majority(counts []int) int8 {
	best, at, tie := 0, -1, false
	for i, x := range counts {
		switch {
		case x > best:
			best, at, tie = x, i, false
		case x == best && x > 0:
			tie = true
		}
	}
	switch {
	case at < 0:
		return refNone
	case tie:
		return refTie
	}
	return int8(at)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
