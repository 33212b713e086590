package dataset

import (
	"cmp"
	"slices"
	"strings"
)

// Nearest lists at most n of names that word may be a typo of, nearest
// first (names' order among equals): those at most a third of word's
// length of edits away (at least one edit), else, when none is, those that
// hold word, ignoring case. Commands use it to suggest an item id, a field
// or a name that was mistyped.
func Nearest(word string, names []string, n int) []string {
	type near struct {
		name  string
		d, at int
	}
	limit := max(1, len([]rune(word))/3)
	var found []near
	for i, name := range names {
		if name == word {
			continue
		}
		if d := editDistance(word, name); d <= limit {
			found = append(found, near{name, d, i})
		}
	}
	if len(found) == 0 && word != "" {
		low := strings.ToLower(word)
		for i, name := range names {
			if name != word && strings.Contains(strings.ToLower(name), low) {
				found = append(found, near{name, 0, i})
			}
		}
	}
	slices.SortFunc(found, func(a, b near) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.at, b.at)) })
	out := make([]string, 0, min(n, len(found)))
	for _, f := range found[:min(n, len(found))] {
		out = append(out, f.name)
	}
	return out
}
