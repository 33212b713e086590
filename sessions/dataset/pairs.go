package dataset

import (
	"fmt"
	"strings"
)

// This file maps the fields of pairwise datasets: the two responses of a
// pair, and the fields that belong to a verdict field (its swapped order,
// its reason).

// pairEntry is one field of a paired role and the verdict field it belongs
// to ("" until known: a bare "swapped=FIELD" belongs to the only verdict
// field).
type pairEntry struct {
	role, verdict, field string
}

// autoResponses maps the two responses of a pairwise dataset when neither
// is mapped and both fields of one candidate pair are there and free.
func (l *loader) autoResponses(d *discovery, m map[string]string, used map[string]bool) {
	_, setA := m[RoleResponseA]
	_, setB := m[RoleResponseB]
	if setA || setB {
		return
	}
	for _, pair := range pairCandidates {
		a, b := keyNamed(d.keys, pair[0]), keyNamed(d.keys, pair[1])
		if a != "" && b != "" && !used[a] && !used[b] {
			m[RoleResponseA], m[RoleResponseB] = a, b
			used[a], used[b] = true, true
			return
		}
	}
}

// keyNamed is the key whose normalised name is n, or "".
func keyNamed(keys []string, n string) string {
	for _, k := range keys {
		if normName(k) == n {
			return k
		}
	}
	return ""
}

// checkResponses refuses half a pair: an item compares two responses or
// none.
func (l *loader) checkResponses(d *discovery, m map[string]string) error {
	a, b := m[RoleResponseA], m[RoleResponseB]
	switch {
	case a != "" && b == "":
		return fmt.Errorf("%s: %s is mapped to %s but %s has no field: a pairwise item needs both responses; say which field holds the second with --map %s=FIELD (%s)",
			l.name, RoleResponseA, quoteName(a), RoleResponseB, RoleResponseB, l.keyList(d.keys))
	case b != "" && a == "":
		return fmt.Errorf("%s: %s is mapped to %s but %s has no field: a pairwise item needs both responses; say which field holds the first with --map %s=FIELD (%s)",
			l.name, RoleResponseB, quoteName(b), RoleResponseA, RoleResponseA, l.keyList(d.keys))
	case a != "" && a == b:
		return fmt.Errorf("%s: %s and %s are both mapped to %s: map the two responses to two fields", l.name, RoleResponseA, RoleResponseB, quoteName(a))
	}
	return nil
}

// resolvePaired reads the user's mapping of a paired role: each entry is a
// field ("swapped=verdict_swapped") or "VERDICT:FIELD". A field name may
// hold a colon, so an entry that is a field is one field, and otherwise
// it is split at the colon that leaves a field on both sides.
func (l *loader) resolvePaired(d *discovery, role, value string, dotted bool) ([]pairEntry, error) {
	var out []pairEntry
	for _, e := range splitFields(value) {
		if d.has(e, dotted) {
			out = append(out, pairEntry{role: role, field: e})
			continue
		}
		found := false
		for i := strings.IndexByte(e, ':'); i >= 0; i = nextColon(e, i) {
			v, f := strings.TrimSpace(e[:i]), strings.TrimSpace(e[i+1:])
			if v != "" && f != "" && d.has(v, dotted) && d.has(f, dotted) {
				out = append(out, pairEntry{role: role, verdict: v, field: f})
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: --map %s=%s: %s is neither a field nor VERDICT:FIELD with both fields there: %s; write %s=FIELD to pair FIELD with the only verdict field, or %s=VERDICT:FIELD+VERDICT2:FIELD2 for several",
				l.name, role, printable(value), quoteName(e), l.keyList(d.keys), role, role)
		}
	}
	return out, nil
}

func nextColon(s string, i int) int {
	if j := strings.IndexByte(s[i+1:], ':'); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// pairedLooking marks the keys named as another key's swapped order or
// reason ("gpt_result_swapped", "gpt_reason" beside "gpt_result"), or as
// the swapped order or reason of a dataset's only verdict ("swapped",
// "verdict_swapped", "reason").
func pairedLooking(keys []string) map[string]bool {
	out := map[string]bool{}
	byName := map[string]string{}
	for _, k := range keys {
		byName[normName(k)] = k
	}
	for _, v := range keys {
		for _, role := range []string{RoleSwapped, RoleReason} {
			for _, n := range pairedNames(role, v) {
				if k, ok := byName[n]; ok && k != v {
					out[k] = true
				}
			}
		}
	}
	for _, n := range append(append([]string{}, soleSwapped...), soleReason...) {
		if k, ok := byName[n]; ok {
			out[k] = true
		}
	}
	return out
}

// pairFields settles the swapped and reason fields once the verdict fields
// are known: the user's entries (a bare field pairs with the only verdict
// field; the verdict field of VERDICT:FIELD becomes a verdict field if it
// was not one), else the fields named after a verdict field. The mapping
// then holds every entry as VERDICT:FIELD.
func (l *loader) pairFields(d *discovery, m map[string]string, used map[string]bool, userPairs []pairEntry) error {
	verdicts := splitFields(m[RoleVerdict])
	humans := splitFields(m[RoleHuman])
	for _, role := range pairedRoles {
		var entries []pairEntry
		if _, set := l.userMap[role]; set {
			for _, e := range userPairs {
				if e.role == role {
					entries = append(entries, e)
				}
			}
		} else {
			entries = autoPairs(d.keys, role, verdicts, used)
		}
		owner := map[string]string{} // verdict field -> its field of this role
		var out []string
		for _, e := range entries {
			if e.verdict == "" {
				if len(verdicts) != 1 {
					return l.soleVerdictError(role, e.field, verdicts)
				}
				e.verdict = verdicts[0]
			}
			switch {
			case hasField(joinFields(humans), e.verdict):
				return fmt.Errorf("%s: --map %s=%s:%s: %s is a human column; %s fields belong to verdict columns",
					l.name, role, printable(e.verdict), printable(e.field), quoteName(e.verdict), role)
			case hasField(joinFields(verdicts), e.field) || hasField(joinFields(humans), e.field):
				return fmt.Errorf("%s: %s is mapped both as %s and as a verdict or human column: keep one", l.name, quoteName(e.field), role)
			case e.field == e.verdict:
				return fmt.Errorf("%s: --map %s=%s:%s pairs a field with itself: name the field that holds %s", l.name, role, printable(e.verdict), printable(e.field), roleWhat[role])
			}
			if prev, dup := owner[e.verdict]; dup && prev != e.field {
				return fmt.Errorf("%s: the verdict column %s has two %s fields (%s and %s): keep one", l.name, quoteName(e.verdict), role, quoteName(prev), quoteName(e.field))
			}
			owner[e.verdict] = e.field
			if !hasField(joinFields(verdicts), e.verdict) {
				verdicts = append(verdicts, e.verdict)
			}
			used[e.field] = true
			out = append(out, e.verdict+":"+e.field)
		}
		if len(out) > 0 {
			m[role] = joinFields(out)
		} else if _, set := l.userMap[role]; set {
			m[role] = ""
		}
	}
	if len(verdicts) > 0 {
		m[RoleVerdict] = joinFields(verdicts)
	}
	return l.checkPairFieldsOnce(m)
}

// checkPairFieldsOnce refuses a field that is both a verdict's swapped
// order and a verdict's reason.
func (l *loader) checkPairFieldsOnce(m map[string]string) error {
	seen := map[string]string{}
	verdicts := splitFields(m[RoleVerdict])
	for _, role := range pairedRoles {
		for _, e := range pairEntriesOf(m[role], verdicts) {
			if other, dup := seen[e.field]; dup {
				return fmt.Errorf("%s: %s is mapped both as %s and as %s: keep one", l.name, quoteName(e.field), other, role)
			}
			seen[e.field] = role
		}
	}
	return nil
}

// soleVerdictError explains a bare swapped or reason field when there is
// not exactly one verdict field to pair it with.
func (l *loader) soleVerdictError(role, field string, verdicts []string) error {
	if len(verdicts) == 0 {
		return fmt.Errorf("%s: --map %s=%s pairs %s with the verdict column, but there is none: name it with --map %s=VERDICT:%s (or --map verdict=FIELD)",
			l.name, role, printable(field), quoteName(field), role, printable(field))
	}
	q := make([]string, len(verdicts))
	for i, v := range verdicts {
		q[i] = quoteName(v)
	}
	return fmt.Errorf("%s: --map %s=%s pairs %s with the only verdict column, but there are %d (%s): say which with --map %s=VERDICT:%s",
		l.name, role, printable(field), quoteName(field), len(verdicts), strings.Join(q, ", "), role, printable(field))
}

// autoPairs finds the fields of a paired role by name: "V_swapped" or
// "V_reason" for each verdict field V ("gpt_reason" for "gpt_result"),
// and, when there is one verdict field, "swapped", "verdict_swapped",
// "reason"….
func autoPairs(keys []string, role string, verdicts []string, used map[string]bool) []pairEntry {
	if role == RoleConfidence {
		return nil // only --map names a confidence field (see RoleConfidence)
	}
	var out []pairEntry
	taken := map[string]bool{}
	for _, v := range verdicts {
		for _, n := range pairedNames(role, v) {
			if k := keyNamed(keys, n); k != "" && !used[k] && !taken[k] && k != v {
				out = append(out, pairEntry{role: role, verdict: v, field: k})
				taken[k] = true
				break
			}
		}
	}
	if len(out) == 0 && len(verdicts) == 1 {
		sole := soleSwapped
		if role == RoleReason {
			sole = soleReason
		}
		for _, n := range sole {
			if k := keyNamed(keys, n); k != "" && !used[k] && k != verdicts[0] {
				return []pairEntry{{role: role, verdict: verdicts[0], field: k}}
			}
		}
	}
	return out
}

// pairEntriesOf reads a settled mapping value of a paired role
// ("V:F+V2:F2"), given the verdict fields. It splits each "V:F" at the colon after the longest verdict
// field it starts with (field names may hold colons), or at its first
// colon when verdicts does not say.
func pairEntriesOf(value string, verdicts []string) []pairEntry {
	var out []pairEntry
	for _, e := range splitFields(value) {
		cut := -1
		for _, v := range verdicts {
			if len(v) > cut && strings.HasPrefix(e, v+":") {
				cut = len(v)
			}
		}
		if cut < 0 {
			cut = strings.IndexByte(e, ':')
		}
		if cut < 0 {
			out = append(out, pairEntry{field: e})
			continue
		}
		out = append(out, pairEntry{verdict: e[:cut], field: e[cut+1:]})
	}
	return out
}
