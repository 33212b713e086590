package dataset

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// fieldRef is one mapped field: its path and, for CSV and TSV, its column.
type fieldRef struct {
	path string
	col  int
	hint int // index of the row mapper's guess at where the key sits
}

// plan is a mapping compiled for the row mappers.
type plan struct {
	question, gold, prediction, id, rubric *fieldRef
	segments                               []fieldRef
	imported                               []fieldRef // parallel to Dataset.Imported
	refs                                   int        // number of fieldRefs
}

// mapFields decides the mapping from what discovery saw and the user's
// --map, records it in the dataset and compiles the plan. columns is the
// CSV header (nil for JSON).
func (l *loader) mapFields(d *discovery, columns []string) error {
	m := map[string]string{}
	used := map[string]bool{}
	for role, f := range l.userMap {
		m[role] = f
		for _, p := range fieldsOf(role, f) {
			if !d.has(p, columns == nil) {
				return fmt.Errorf("%s: no field %s (from --map %s=%s): %s; fix the --map",
					l.name, quoteName(p), role, printable(f), l.keyList(d.keys))
			}
			used[p] = true
		}
	}
	if l.harness {
		l.harnessDefaults(d, m, used)
	}
	for _, role := range []string{RolePrediction, RoleGold, RoleQuestion, RoleID, RoleRubric} {
		if _, set := m[role]; set {
			continue
		}
		if role == RoleQuestion && d.seen["instruction"] && d.seen["input"] && !used["instruction"] {
			// Alpaca-style rows: the instruction is the task, the input only
			// the material it works on.
			m[role], used["instruction"] = "instruction", true
			continue
		}
		best, bestPref := "", -1
		for _, k := range d.keys {
			if p := rolePreference(role, k); p >= 0 && !used[k] && (bestPref < 0 || p < bestPref) {
				best, bestPref = k, p
			}
		}
		if best != "" {
			m[role], used[best] = best, true
		}
	}
	for _, role := range []string{RoleSegment, RoleHuman, RoleVerdict} {
		if _, set := m[role]; set {
			continue
		}
		var fs []string
		for _, k := range d.keys {
			if !used[k] && rolePreference(role, k) >= 0 {
				fs, used[k] = append(fs, k), true
			}
		}
		if role == RoleVerdict {
			// Columns holding only true/false are verdicts of judges that ran
			// elsewhere, named by the column (TriviaQA's "GPT-4", "EM"…).
			for _, k := range d.keys {
				if !used[k] && d.boolish[k] > 0 {
					fs, used[k] = append(fs, k), true
				}
			}
		}
		if len(fs) > 0 {
			m[role] = joinFields(fs)
		}
	}
	for role, f := range m {
		if f == "" {
			delete(m, role)
		}
	}
	if err := l.checkRequired(d, m); err != nil {
		return err
	}
	l.ds.Mapping = m
	l.keys = d.keys
	l.plan = compilePlan(m, columns)
	for _, ref := range l.plan.imported {
		role := RoleVerdict
		if hasField(m[RoleHuman], ref.path) {
			role = RoleHuman
		}
		l.ds.Imported = append(l.ds.Imported, ImportedColumn{Role: role, Field: ref.path})
	}
	return nil
}

// checkRequired fails when a required role has no field, listing the keys
// that are there and the --map that would fix it.
func (l *loader) checkRequired(d *discovery, m map[string]string) error {
	req := l.opts.Require
	if req == nil {
		req = []string{RolePrediction}
	}
	for _, r := range req {
		role, _ := canonicalRole(r)
		if _, ok := m[role]; ok {
			continue
		}
		msg := fmt.Sprintf("%s: no %s field: %s; say which one holds %s with --map %s=FIELD",
			l.name, role, l.keyList(d.keys), roleWhat[role], role)
		if _, off := l.userMap[role]; off {
			msg = fmt.Sprintf("%s: no %s field (--map %s= switches it off), but the dataset needs one: %s; say which one holds %s with --map %s=FIELD",
				l.name, role, role, l.keyList(d.keys), roleWhat[role], role)
		}
		if role == RolePrediction {
			if a, b := pairwiseFields(d.keys); a != "" {
				msg += fmt.Sprintf(" (%s and %s look like the two sides of a pairwise comparison, which Gavel cannot judge yet: --map prediction=%s judges the first on its own)",
					quoteName(a), quoteName(b), a)
			}
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

var pairPattern = regexp.MustCompile(`^(.*?)_?(1|2|a|b)$`)

// pairwiseFields finds two fields that hold the two sides of a pairwise
// comparison, such as response1/response2 or output_a/output_b.
func pairwiseFields(keys []string) (string, string) {
	for _, a := range keys {
		ma := pairPattern.FindStringSubmatch(normName(a))
		if ma == nil || rolePreference(RolePrediction, ma[1]) < 0 || (ma[2] != "1" && ma[2] != "a") {
			continue
		}
		for _, b := range keys {
			mb := pairPattern.FindStringSubmatch(normName(b))
			if mb != nil && mb[1] == ma[1] && mb[2] == map[string]string{"1": "2", "a": "b"}[ma[2]] {
				return a, b
			}
		}
	}
	return "", ""
}

// keyList describes the fields the rows have, for messages.
func (l *loader) keyList(keys []string) string {
	const max = 20
	q := make([]string, 0, min(len(keys), max))
	for i, k := range keys {
		if i == max {
			break
		}
		q = append(q, quoteName(k))
	}
	s := strings.Join(q, ", ")
	if len(keys) > max {
		s += fmt.Sprintf(" and %d more", len(keys)-max)
	}
	switch {
	case len(keys) == 0 && l.csv:
		return "the header names no columns"
	case len(keys) == 0:
		return "the rows have no keys"
	case l.csv:
		return "the columns are " + s
	}
	return "rows have keys " + s
}

// printable returns s as typed when it prints as itself, else quoted.
func printable(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// fieldsOf splits a mapping value into its fields.
func fieldsOf(role, f string) []string {
	if multiRole(role) {
		return splitFields(f)
	}
	if f == "" {
		return nil
	}
	return []string{f}
}

func hasField(joined, f string) bool {
	for _, x := range splitFields(joined) {
		if x == f {
			return true
		}
	}
	return false
}

// compilePlan turns a mapping into field references.
func compilePlan(m map[string]string, columns []string) plan {
	refs := 0
	ref := func(path string) fieldRef {
		r := fieldRef{path: path, col: -1, hint: refs}
		refs++
		for i, c := range columns {
			if c == path {
				r.col = i
			}
		}
		return r
	}
	single := func(role string) *fieldRef {
		if f, ok := m[role]; ok {
			r := ref(f)
			return &r
		}
		return nil
	}
	p := plan{}
	p = plan{
		question: single(RoleQuestion), gold: single(RoleGold), prediction: single(RolePrediction),
		id: single(RoleID), rubric: single(RoleRubric),
	}
	for _, f := range splitFields(m[RoleSegment]) {
		p.segments = append(p.segments, ref(f))
	}
	for _, role := range []string{RoleVerdict, RoleHuman} {
		for _, f := range splitFields(m[role]) {
			p.imported = append(p.imported, ref(f))
		}
	}
	p.refs = refs
	return p
}
