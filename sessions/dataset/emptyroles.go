package dataset

import (
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/gavel-dev/gavel/judge"
)

// checkEmptyRoles warns, once the items are packed, about a mapped role
// (question, gold, prediction) that is empty on every item, the mark of a
// mapping that took the wrong field (MMLongBench with --map
// prediction=answer leaves every gold empty), and counts the items where
// it is empty on some. Judges that need the field skip those items.
func (l *loader) checkEmptyRoles() {
	ds := l.ds
	n := len(ds.Items)
	if n == 0 {
		return
	}
	pairwise := ds.Mapping[RoleResponseA] != "" && ds.Mapping[RoleResponseB] != ""
	for _, role := range []string{RoleQuestion, RoleGold, RolePrediction, RoleResponseA, RoleResponseB} {
		if pairwise && (role == RolePrediction || role == RoleGold) {
			// A pair has its two responses instead of a prediction, and
			// a reference answer only where the dataset has one: neither
			// empty is worth a warning (an exported pairwise session has
			// both columns, empty).
			continue
		}
		field, mapped := ds.Mapping[role]
		if !mapped {
			if role != RoleResponseA && role != RoleResponseB {
				l.warnTakenField(role)
			}
			continue
		}
		empty, first := 0, ""
		for i := range ds.Items {
			if strings.TrimSpace(roleText(&ds.Items[i], role)) == "" {
				if empty == 0 {
					first = ds.Items[i].ID
				}
				empty++
			}
		}
		switch {
		case empty == 0:
		case empty == n:
			what := everyItem(n)
			ds.Warnings = append(ds.Warnings, fmt.Sprintf("%s: %s (mapped %s) is empty on %s: --map %s=FIELD names the field that holds %s; %s",
				l.name, role, quoteName(field), what, role, roleWhat[role], l.keyList(l.keys)))
		default:
			ds.Warnings = append(ds.Warnings, fmt.Sprintf("%s: %s (mapped %s) is empty on %s of %s (the first: %s); judges that need it skip those",
				l.name, role, quoteName(field), humanize.Comma(int64(empty)), countNoun(n, "item", "items"), quoteName(first)))
		}
	}
}

// warnTakenField warns about a role left without a field because --map
// gave the field that would hold it to another role (--map
// prediction=answer on rows whose answer is the gold answer).
func (l *loader) warnTakenField(role string) {
	for other, f := range l.userMap {
		if other == role || f == "" || rolePreference(role, f) < 0 {
			continue
		}
		what := everyItem(len(l.ds.Items))
		l.ds.Warnings = append(l.ds.Warnings, fmt.Sprintf("%s: %s is empty on %s: %s, the field that would hold %s, is mapped to %s (--map %s=%s); --map %s=FIELD names the field that holds it; %s",
			l.name, role, what, quoteName(f), roleWhat[role], other, other, printable(f), role, l.keyList(l.keys)))
		return
	}
}

func roleText(it *judge.Item, role string) string {
	switch role {
	case RoleQuestion:
		return it.Question
	case RoleGold:
		return it.Gold
	case RoleResponseA:
		return it.ResponseA
	case RoleResponseB:
		return it.ResponseB
	}
	return it.Prediction
}

// everyItem writes "the only item", "both items", "all 3,000 items".
func everyItem(n int) string {
	switch n {
	case 1:
		return "the only item"
	case 2:
		return "both items"
	}
	return "all " + humanize.Comma(int64(n)) + " items"
}

// countNoun writes "1 item", "3,000 items".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return humanize.Comma(int64(n)) + " " + many
}
