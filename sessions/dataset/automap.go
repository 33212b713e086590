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
	question                                           []fieldRef // joined into one text
	gold, prediction, responseA, responseB, id, rubric *fieldRef
	segments                                           []fieldRef
	imported                                           []fieldRef // parallel to Dataset.Imported
	refs                                               int        // number of fieldRefs
}

// mapFields decides the mapping from what discovery saw and the user's
// --map, records it in the dataset and compiles the plan. columns is the
// CSV header (nil for JSON).
func (l *loader) mapFields(d *discovery, columns []string) error {
	m := map[string]string{}
	used := map[string]bool{}
	var userPairs []pairEntry
	for role, f := range l.userMap {
		m[role] = f
		if pairedRole(role) {
			es, err := l.resolvePaired(d, role, f, columns == nil)
			if err != nil {
				return err
			}
			for _, e := range es {
				used[e.field] = true
				if e.verdict != "" {
					used[e.verdict] = true
				}
			}
			userPairs = append(userPairs, es...)
			continue
		}
		for _, p := range fieldsOf(role, f) {
			if !d.has(p, columns == nil) {
				return &flagError{fmt.Sprintf("%s: no field %s (from --map %s=%s): %s; fix the --map",
					l.name, quoteName(p), role, printable(f), l.keyList(d.keys))}
			}
			used[p] = true
		}
	}
	if l.harness {
		l.harnessDefaults(d, m, used)
	}
	l.autoResponses(d, m, used)
	for _, role := range []string{RolePrediction, RoleGold, RoleQuestion, RoleID, RoleRubric} {
		if _, set := m[role]; set {
			continue
		}
		if role == RoleQuestion && d.seen["instruction"] && !used["instruction"] && d.seen["input"] {
			// Alpaca-style rows (PandaLM's too): the instruction is the
			// task and the input the material it works on; the question
			// is both, as the model that answered saw them.
			m[role], used["instruction"] = "instruction", true
			if !used["input"] {
				m[role], used["input"] = "instruction+input", true
			}
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
	// Fields named as another field's swapped order or reason are left to
	// pairFields, not taken as verdicts of their own.
	reserved := pairedLooking(d.keys)
	for _, role := range []string{RoleSegment, RoleHuman, RoleVerdict} {
		if _, set := m[role]; set {
			continue
		}
		var fs []string
		for _, k := range d.keys {
			if !used[k] && !reserved[k] && rolePreference(role, k) >= 0 {
				fs, used[k] = append(fs, k), true
			}
		}
		if role == RoleVerdict {
			// Columns holding only true/false are verdicts of judges that ran
			// elsewhere, named by the column (TriviaQA's "GPT-4", "EM"…).
			for _, k := range d.keys {
				if !used[k] && !reserved[k] && d.boolish[k] > 0 {
					fs, used[k] = append(fs, k), true
				}
			}
		}
		if len(fs) > 0 {
			m[role] = joinFields(fs)
		}
	}
	if err := l.pairFields(d, m, used, userPairs); err != nil {
		return err
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
	l.plan, l.ds.Imported = compilePlan(m, columns)
	return nil
}

// checkRequired fails when a required role has no field, listing the keys
// that are there and the --map that would fix it. A pairwise dataset (both
// responses mapped) needs no prediction.
func (l *loader) checkRequired(d *discovery, m map[string]string) error {
	if err := l.checkResponses(d, m); err != nil {
		return err
	}
	req := l.opts.Require
	if req == nil {
		req = []string{RolePrediction}
	}
	for _, r := range req {
		role, _ := canonicalRole(r)
		if _, ok := m[role]; ok {
			continue
		}
		if role == RolePrediction && m[RoleResponseA] != "" && m[RoleResponseB] != "" {
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
				msg += fmt.Sprintf(" (%s and %s look like the two sides of a pairwise comparison: --map response_a=%s,response_b=%s compares them)",
					quoteName(a), quoteName(b), printable(a), printable(b))
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
	if joinedRole(role) {
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

// compilePlan turns a mapping into field references, and lists the
// imported columns in the order of plan.imported: verdict fields, each
// followed by its swapped and reason fields, then human fields.
func compilePlan(m map[string]string, columns []string) (plan, []ImportedColumn) {
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
	p := plan{
		gold: single(RoleGold), prediction: single(RolePrediction),
		responseA: single(RoleResponseA), responseB: single(RoleResponseB),
		id: single(RoleID), rubric: single(RoleRubric),
	}
	for _, f := range splitFields(m[RoleQuestion]) {
		p.question = append(p.question, ref(f))
	}
	for _, f := range splitFields(m[RoleSegment]) {
		p.segments = append(p.segments, ref(f))
	}
	var cols []ImportedColumn
	add := func(role, field, of string) {
		p.imported = append(p.imported, ref(field))
		cols = append(cols, ImportedColumn{Role: role, Field: field, Of: of})
	}
	paired := map[string][]pairEntry{}
	for _, role := range pairedRoles {
		for _, e := range pairEntriesOf(m[role], splitFields(m[RoleVerdict])) {
			e.role = role
			paired[e.verdict] = append(paired[e.verdict], e)
		}
	}
	for _, f := range splitFields(m[RoleVerdict]) {
		add(RoleVerdict, f, "")
		for _, e := range paired[f] {
			add(e.role, e.field, f)
		}
	}
	for _, f := range splitFields(m[RoleHuman]) {
		add(RoleHuman, f, "")
	}
	p.refs = refs
	return p, cols
}
