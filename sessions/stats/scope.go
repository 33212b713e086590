package stats

import (
	"fmt"
	"reflect"
)

// scopeOf returns (and builds once) the units a judge of this kind rates,
// grouped by segment: for each segment field any unit has, a group per
// value ("" for units without the field), each listing its units in
// order.
//
// Units often share one segments map (a session's items of one segment
// do): each distinct map is read once, and a unit only adds itself to
// the groups of its map's values. Unshared maps are each read once too,
// as before.
func (c *computation) scopeOf(perCriterion bool) *scope {
	if s, ok := c.scopes[perCriterion]; ok {
		return s
	}
	s := c.buildScope(perCriterion, &c.notes)
	c.scopes[perCriterion] = s
	return s
}

// buildScope builds scopeOf's scope, noting segment fields left out in
// nt. It only reads c's input and options.
func (c *computation) buildScope(perCriterion bool, nt *notes) *scope {
	s := &scope{}
	// combo numbers each distinct segments map of the scope (by identity:
	// Compute never changes its input, so one map has one content).
	combo := map[uintptr]int32{}
	var maps []map[string]string
	comboOf := make([]int32, 0, len(c.in.Units))
	for i := range c.in.Units {
		u := &c.in.Units[i]
		if (u.Criterion > 0) != perCriterion {
			continue
		}
		s.units = append(s.units, int32(i))
		p := reflect.ValueOf(u.Segments).Pointer()
		k, ok := combo[p]
		if !ok {
			k = int32(len(maps))
			combo[p] = k
			maps = append(maps, u.Segments)
		}
		comboOf = append(comboOf, k)
	}
	groups := map[string]map[string]*[]int32{} // field → value → units
	for _, m := range maps {
		for f := range m {
			if groups[f] == nil {
				groups[f] = map[string]*[]int32{}
			}
		}
	}
	fields := sortedKeys(groups)
	// into[k] holds, for each field, the group of combo k's value.
	into := make([][]*[]int32, len(maps))
	for k, m := range maps {
		into[k] = make([]*[]int32, len(fields))
		for fi, f := range fields {
			v := m[f]
			g, ok := groups[f][v]
			if !ok {
				g = new([]int32)
				groups[f][v] = g
			}
			into[k][fi] = g
		}
	}
	for j, i := range s.units {
		for _, g := range into[comboOf[j]] {
			*g = append(*g, i)
		}
	}
	for _, f := range fields {
		vals := groups[f]
		if len(vals) > c.opts.MaxSegmentValues {
			nt.add(fmt.Sprintf("segment field %q has %d values, more than %d, and is left out of the per-segment tables", f, len(vals), c.opts.MaxSegmentValues))
			continue
		}
		for _, v := range sortedKeys(vals) {
			s.segments = append(s.segments, segment{field: f, value: v, units: *vals[v]})
		}
	}
	return s
}
