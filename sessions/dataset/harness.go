package dataset

import (
	"fmt"
	"strconv"
)

// lm-evaluation-harness samples_*.jsonl files hold one row per document
// and filter: doc_id, the task's document under "doc", "target",
// "arguments" (the prompt), "resps" and "filtered_resps" (the model's
// answers before and after the filter), "filter", "metrics" (the names of
// the metric fields the row carries) and those metric fields.

// harnessDefaults maps lm-evaluation-harness sample fields.
func (l *loader) harnessDefaults(d *discovery, m map[string]string, used map[string]bool) {
	set := func(role, f string) {
		if _, done := m[role]; !done && f != "" {
			m[role], used[f] = f, true
		}
	}
	set(RoleID, "doc_id")
	set(RoleGold, "target")
	if d.seen["filtered_resps"] {
		set(RolePrediction, "filtered_resps")
	} else {
		set(RolePrediction, "resps")
	}
	q := ""
	for _, c := range candidates[RoleQuestion] {
		for _, k := range d.docKeys {
			if normName(k) == c && q == "" {
				q = "doc." + k
			}
		}
	}
	if q == "" {
		q = d.argsPath
	}
	set(RoleQuestion, q)
	// A harness file holds one row per document and filter: the filter
	// is a segment, and the metrics the harness computed are verdicts.
	used["doc"], used["arguments"], used["resps"], used["filtered_resps"] = true, true, true, true
	if _, done := m[RoleSegment]; !done {
		var segs []string
		if d.seen["filter"] {
			segs = append(segs, "filter")
		}
		for _, k := range d.docKeys {
			if rolePreference(RoleSegment, k) >= 0 {
				segs = append(segs, "doc."+k)
			}
		}
		for _, s := range segs {
			used[s] = true
		}
		used["filter"] = true
		if len(segs) > 0 {
			m[RoleSegment] = joinFields(segs)
		}
	}
	if _, done := m[RoleVerdict]; !done {
		var vs []string
		for _, k := range d.metrics {
			if d.seen[k] {
				vs, used[k] = append(vs, k), true
			}
		}
		if len(vs) > 0 {
			m[RoleVerdict] = joinFields(vs)
		}
	}
}

// harnessIDs appends the filter to the ids when a harness file holds
// several filters, since it then has one row per document and filter.
func (l *loader) harnessIDs() {
	if l.plan.id == nil || l.ds.Mapping[RoleID] != "doc_id" {
		return
	}
	filters := map[string]bool{}
	for slot := range l.items {
		if l.locs[slot].line != 0 {
			filters[l.items[slot].Segments["filter"]] = true
		}
	}
	if len(filters) < 2 {
		return
	}
	for slot := range l.items {
		if l.locs[slot].line != 0 {
			it := &l.items[slot]
			it.ID += "/" + it.Segments["filter"]
		}
	}
	l.ds.Warnings = append(l.ds.Warnings, fmt.Sprintf("%s holds %d filters, one row per document and filter: ids are doc_id/filter", l.name, len(filters)))
}

// harnessChoice reads the filtered responses of a multiple-choice task —
// one [log-likelihood, is-greedy] pair per choice — as the position of the
// choice the model scored highest, the form the harness's target takes.
func harnessChoice(v jval) (string, bool) {
	best, bestAt, n := 0.0, -1, 0
	ok := v.kind == kindArray
	forEachElement(v, func(i int, pair jval) bool {
		n = i + 1
		var first jval
		forEachElement(pair, func(k int, e jval) bool {
			if k == 0 {
				first = e
			}
			return k == 0
		})
		if pair.kind != kindArray || first.kind != kindNumber {
			ok = false
			return false
		}
		ll, err := strconv.ParseFloat(string(first.raw()), 64)
		if err != nil {
			ok = false
			return false
		}
		if bestAt < 0 || ll > best {
			best, bestAt = ll, i
		}
		return true
	})
	if !ok || n < 2 {
		return "", false
	}
	return strconv.Itoa(bestAt), true
}
