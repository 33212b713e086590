package dataset

import (
	"fmt"
	"sort"
	"strings"
)

// ParseMap reads a --map specification such as
// "gold=target,prediction=output,segment=category" into role -> field path.
//
// Roles are those of Roles() (a few common synonyms are accepted: answer
// and target for gold, response and output for prediction, label for
// human…). Fields may be dotted paths ("doc.question", "resps.0.0").
// Segment, verdict and human take several fields, joined with "+" or given
// more than once ("segment=task+difficulty"); the question may join
// several fields into one text ("question=instruction+input"). Swapped and
// reason pair a field with a verdict field, "swapped=VERDICT:FIELD", joined
// with "+" for several verdict fields; a bare "swapped=FIELD" pairs with the
// only verdict field. An empty field ("id=") switches a role off: no id
// field (rows are numbered), no gold, no imported verdicts.
func ParseMap(spec string) (map[string]string, error) {
	m := map[string]string{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lhs, rhs, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("--map: %q is not ROLE=FIELD: write for example gold=answer,prediction=output", part)
		}
		role, err := canonicalRole(strings.TrimSpace(lhs))
		if err != nil {
			return nil, err
		}
		field := strings.TrimSpace(rhs)
		if joinedRole(role) {
			field = joinFields(splitFields(field))
		}
		if multiRole(role) {
			if prev, seen := m[role]; seen && prev != "" && field != "" {
				field = prev + "+" + field
			}
		} else if prev, seen := m[role]; seen && prev != field {
			return nil, fmt.Errorf("--map: %s is mapped twice (to %s and to %s): keep one", role, quoteName(prev), quoteName(field))
		}
		m[role] = field
	}
	return m, nil
}

// FormatMap writes a mapping in the --map syntax ParseMap reads, roles in
// the order of Roles(): "question=input,gold=target,prediction=prediction".
func FormatMap(m map[string]string) string {
	var parts []string
	done := map[string]bool{}
	for _, r := range Roles() {
		if f, ok := m[r]; ok {
			parts = append(parts, r+"="+f)
			done[r] = true
		}
	}
	var rest []string
	for r := range m {
		if !done[r] {
			rest = append(rest, r)
		}
	}
	sort.Strings(rest)
	for _, r := range rest {
		parts = append(parts, r+"="+m[r])
	}
	return strings.Join(parts, ",")
}

// canonicalRole turns a role name or synonym into its role.
func canonicalRole(s string) (string, error) {
	n := normName(s)
	for _, r := range Roles() {
		if n == r {
			return r, nil
		}
	}
	if r, ok := roleAliases[n]; ok {
		return r, nil
	}
	msg := fmt.Sprintf("--map: unknown role %s: the roles are %s", quoteName(s), strings.Join(Roles(), ", "))
	if s == "" {
		msg = "--map: a mapping has no role before '=': the roles are " + strings.Join(Roles(), ", ")
	}
	if near := nearestRole(n); near != "" && s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return "", fmt.Errorf("%s", msg)
}

// canonicalMap checks the roles of a mapping given in Options.
func canonicalMap(m map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(m))
	for k, v := range m {
		r, err := canonicalRole(k)
		if err != nil {
			return nil, err
		}
		v = strings.TrimSpace(v)
		if joinedRole(r) {
			v = joinFields(splitFields(v))
		}
		out[r] = v
	}
	return out, nil
}

// splitFields splits a multi-field mapping value on "+".
func splitFields(v string) []string {
	var out []string
	for _, f := range strings.Split(v, "+") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func joinFields(fs []string) string { return strings.Join(fs, "+") }

// nearestRole suggests the role closest to a misspelt one.
func nearestRole(n string) string {
	best, bestD := "", 3
	for _, r := range Roles() {
		if d := editDistance(n, r); d < bestD {
			best, bestD = r, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between short strings.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
