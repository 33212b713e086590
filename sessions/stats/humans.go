package stats

import (
	"cmp"
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
	// selPlanned: drawn by an active labelling plan, a stratified one
	// whose strata are sampled at unequal rates, or a plan whose design is
	// not known: at random but with unequal probabilities:
	// fair only once weighted, so it feeds Report.Plan alone.
	selPlanned
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
	// ref is the category index of the unit's human value (its latest
	// adjudication, else the single label or the majority), refNone or
	// refTie.
	ref []int8
	sel []uint8
	// provStart[u]..provStart[u+1] index prov, the interned provenance of
	// each usable label on unit u.
	provStart []int32
	prov      []uint16
	provNames []string
	report    HumanAgreement
}

// ProvenanceScript is the provenance of a label written by a script
// (`gavel label --via script`, its default).
const ProvenanceScript = "script"

// ProvenanceAdjudication is the provenance of an adjudicator's label: made
// on an item where people disagree, after seeing their labels (`gavel
// review --adjudicate`, `gavel label --via adjudication`). It is no
// rater's label: it sets the unit's reference and stays out of every
// figure between people and out of the unit's selection class.
const ProvenanceAdjudication = "adjudication"

// provenanceClass sorts a provenance string into a selection class: a
// seeded random order ("random"), a random sample ("sample"), a team's
// queue ("queue": gavel assign deals each person's items in a seeded
// random order, and the shared ones are a seeded random share) and a
// labelling plan ("plan", "plan:…") are random; "order" is dataset
// order; "filter:NAME" a filter; anything else (imported labels) unknown.
// "script" (gavel label's default) counts as a filter: a script picks its
// items for reasons of its own, so its labels are kept out of the unbiased
// sample as surely as a filter's. A plan's labels are told apart by
// planClasses, which knows the plans' designs.
func provenanceClass(p string) uint8 {
	switch {
	case p == "random" || p == "sample" || p == "queue" || p == "plan" || strings.HasPrefix(p, "plan:"):
		return selUnbiased
	case p == "order":
		return selOrder
	case strings.HasPrefix(p, "filter:") || p == ProvenanceScript || p == ProvenanceAdjudication:
		// An adjudication counts only where it stands alone (its raters'
		// labels undone since): reached through the queue of
		// disagreements, it is hand-picked.
		return selFiltered
	}
	return selUnknown
}

// planClasses returns the selection class of a label's provenance, given
// the session's plans: "plan:ID" of a uniform plan, or of a stratified
// plan whose strata are sampled at rates within 10 % of each other, is a
// fair random sample (as a seeded random order); of an active plan, a
// stratified plan with unequal rates (DesignStratifiedUnequal, or read
// from Input.Plan's units: plan_fair.go), or a plan whose design the
// input does not give, it is selPlanned — drawn with unequal
// probabilities, so only the plan's weighted estimates may use it
// (Input.PlanDesigns).
func planClasses(in *Input) func(string) uint8 {
	designs := map[string]string{}
	for id, d := range in.PlanDesigns {
		designs[planProvenance(id)] = d
	}
	if pl := in.Plan; pl != nil {
		designs[planProvenance(pl.ID)] = planDesignForClasses(pl)
	}
	return func(p string) uint8 {
		if len(p) < 6 || p[:5] != "plan:" {
			return provenanceClass(p)
		}
		switch designs[p] {
		case "uniform", "stratified":
			return selUnbiased
		}
		return selPlanned
	}
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

// buildHumansWith reads every label on one dimension: each unit's
// reference value (its latest adjudication, else the people's majority)
// and selection class (its people's labels'), the adjudications counted,
// and the inter-annotator figures (people only),
// each with a seeded bootstrap interval over the units with a label
// (seed is the report's seed, Options.Seed: the dimension's own seed is
// derived from it and the dimension; resamples ≤ 0 leaves the bounds
// undefined).
func buildHumansWith(in *Input, key dimKey, notes *notes, seed uint64, resamples int) *humanDim {
	cats := key.scale.Values()
	n := len(in.Units)
	h := &humanDim{key: key, cats: cats, ref: make([]int8, n), sel: make([]uint8, n), provStart: make([]int32, n+1)}
	provID := map[string]uint16{}
	ordinal := key.scale.Ordinal()
	units := newPatternSet(cats, ordinal)
	// Annotators are interned: who is an index into names.
	var names []string
	nameID := map[string]int32{}
	intern := func(name string) int32 {
		if len(names) <= 8 {
			for i, x := range names {
				if x == name {
					return int32(i)
				}
			}
		} else if id, ok := nameID[name]; ok {
			return id
		}
		id := int32(len(names))
		names = append(names, name)
		nameID[name] = id
		return id
	}
	pairs := map[[2]int32]*Confusion{}
	counts := make([]int, len(cats))
	type usable struct {
		who int32
		cat int
	}
	var labels []usable
	lastProv, lastID := "", uint16(0)
	classOf := planClasses(in)
	rep := &h.report
	addProv := func(p string) {
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
	}
	offScale := func() {
		notes.add("labels with a value off the " + string(key.scale) + " scale of " + key.name + " were ignored")
	}
	for u := range in.Units {
		h.provStart[u] = int32(len(h.prov))
		clear(counts)
		labels = labels[:0]
		sel := selNone
		all := in.Units[u].Labels
		adj := adjudication{cat: -1}
		var latest int64 // the largest Seq of a person's label
		for i, l := range all {
			if l.Provenance == ProvenanceAdjudication {
				adj.add(l, key.name, cats, offScale)
				continue
			}
			if laterLabelBy(all[i+1:], l.Annotator) {
				continue
			}
			v, has := l.Values[key.name]
			if !has {
				continue
			}
			c := categoryIndex(cats, v)
			if c < 0 {
				offScale()
				continue
			}
			counts[c]++
			labels = append(labels, usable{intern(l.Annotator), c})
			latest = max(latest, l.Seq)
			addProv(l.Provenance)
			sel = max(sel, classOf(l.Provenance))
		}
		h.ref[u] = majority(counts)
		if adj.cat >= 0 {
			rep.Adjudicated++
			h.ref[u] = int8(adj.cat)
			if len(labels) == 0 {
				// Its people's labels undone or set apart since: the
				// adjudication stands alone, and is the unit's label.
				addProv(ProvenanceAdjudication)
				sel = classOf(ProvenanceAdjudication)
			}
		}
		if disagree(counts) && (adj.cat < 0 || adj.seq > 0 && latest > adj.seq) {
			rep.AwaitingAdjudication++
		}
		h.sel[u] = sel
		if len(labels) == 0 {
			continue
		}
		rep.Labelled++
		if h.ref[u] == refTie {
			rep.MajorityTies++
		}
		// Every labelled unit enters the multi-rater table: a unit labelled
		// once counts in Gwet's category shares (Fleiss, AC1, AC2), not in
		// the agreement or in alpha (see fleiss.go).
		units.add(counts)
		if len(labels) >= 2 {
			rep.Pairable++
			slices.SortFunc(labels, func(a, b usable) int { return cmp.Compare(a.who, b.who) })
			for i := range labels {
				for j := i + 1; j < len(labels); j++ {
					k := [2]int32{labels[i].who, labels[j].who}
					c, ok := pairs[k]
					if !ok {
						nc := NewConfusion(cats)
						c = &nc
						pairs[k] = c
					}
					// Rows are the annotator interned second, columns the
					// first; kappa and agreement are symmetric, so the
					// choice does not matter.
					c.Counts[labels[j].cat][labels[i].cat]++
				}
			}
		}
	}
	h.provStart[n] = int32(len(h.prov))

	rep.Dimension, rep.Scale = key.name, key.scale
	rep.Annotators = slices.Sorted(slices.Values(names))
	if rep.Pairable > 0 && rep.Pairable < MinReliableItems {
		rep.SmallSample = smallSampleWarning(rep.Pairable)
	}
	if len(names) < 2 {
		resamples = 0 // every figure is undefined below
	}
	dimSeed := deriveSeed(seed, "humans", key.name, string(key.scale))
	figs := units.multiRaterIntervals(dimSeed, resamples, ordinal)
	rep.PercentAgreement = figs[figPercentAgreement]
	rep.FleissKappa = figs[figFleiss]
	rep.GwetAC1 = figs[figAC1]
	rep.AlphaNominal = figs[figAlphaNominal]
	if ordinal {
		rep.AlphaOrdinal = figs[figAlphaOrdinal]
		rep.AlphaInterval = figs[figAlphaInterval]
		rep.AlphaRatio = figs[figAlphaRatio]
		rep.GwetAC2 = figs[figAC2]
	} else {
		rep.AlphaOrdinal = undefinedInterval("not an ordinal scale")
		rep.AlphaInterval, rep.AlphaRatio, rep.GwetAC2 = rep.AlphaOrdinal, rep.AlphaOrdinal, rep.AlphaOrdinal
	}
	if len(rep.Annotators) < 2 {
		reason := "needs labels from two or more annotators"
		rep.AlphaNominal = undefinedInterval(reason)
		rep.FleissKappa, rep.GwetAC1, rep.PercentAgreement = rep.AlphaNominal, rep.AlphaNominal, rep.AlphaNominal
		if ordinal {
			rep.AlphaOrdinal, rep.AlphaInterval, rep.AlphaRatio, rep.GwetAC2 = rep.AlphaNominal, rep.AlphaNominal, rep.AlphaNominal, rep.AlphaNominal
		}
	}
	rep.Pairs = []AnnotatorPair{}
	type named struct {
		a, b string
		c    *Confusion
	}
	byName := make([]named, 0, len(pairs))
	for k, c := range pairs {
		a, b := names[k[0]], names[k[1]]
		if b < a {
			a, b = b, a
		}
		byName = append(byName, named{a, b, c})
	}
	slices.SortFunc(byName, func(x, y named) int {
		if c := strings.Compare(x.a, y.a); c != 0 {
			return c
		}
		return strings.Compare(x.b, y.b)
	})
	for _, p := range byName {
		k, c := [2]string{p.a, p.b}, p.c
		b := c.bootstrapTable(deriveSeed(seed, "humans", key.name, string(key.scale), "pair", k[0], k[1]), "cohen-kappa", resamples, []tableCoef{coefCohenKappa})
		kappa := withBounds(c.CohenKappa(), b[0])
		rep.Pairs = append(rep.Pairs, AnnotatorPair{A: k[0], B: k[1], N: c.N(), PercentAgreement: c.PercentAgreement(), CohenKappa: kappa})
	}
	return h
}

// laterLabelBy reports whether rest holds another label of annotator as
// a rater: their adjudications are no such label.
func laterLabelBy(rest []Label, annotator string) bool {
	for _, l := range rest {
		if l.Annotator == annotator && l.Provenance != ProvenanceAdjudication {
			return true
		}
	}
	return false
}

// adjudication is the latest adjudication met on a unit's dimension: its
// category (-1 for none) and Seq.
type adjudication struct {
	cat int
	seq int64
}

// add takes l, an adjudication, when it has a value on dim later than
// (or as late as, coming after) the one kept.
func (a *adjudication) add(l Label, dim string, cats []float64, offScale func()) {
	v, has := l.Values[dim]
	if !has {
		return
	}
	c := categoryIndex(cats, v)
	if c < 0 {
		offScale()
		return
	}
	if a.cat < 0 || l.Seq >= a.seq {
		a.cat, a.seq = c, l.Seq
	}
}

// disagree reports whether two people's labels differ: two categories
// are used.
func disagree(counts []int) bool {
	used := 0
	for _, n := range counts {
		if n > 0 {
			used++
		}
	}
	return used >= 2
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
