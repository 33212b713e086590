package dataset

import (
	"strings"
)

// criterionKeys are the keys whose text is the criterion when a rubric is
// a list of objects, best first.
var criterionKeys = []string{"text", "criterion", "description", "rubric", "nugget", "content",
	"requirement", "item", "question", "name"}

// rubricOf reads a rubric: a list of strings, a list of objects with a
// text field, or one string (a JSON list, or one criterion per line).
func rubricOf(a *arena, v jval) []string {
	switch v.kind {
	case kindNull, kindNone:
		return nil
	case kindString:
		return rubricText(textOf(a, v))
	case kindArray:
		var out []string
		forEachElement(v, func(_ int, e jval) bool {
			if t := strings.TrimSpace(criterionText(a, e)); t != "" {
				out = append(out, t)
			}
			return true
		})
		return out
	case kindObject:
		return []string{criterionText(a, v)}
	}
	return []string{textOf(a, v)}
}

// criterionText is the text of one rubric entry.
func criterionText(a *arena, e jval) string {
	if e.kind != kindObject {
		return textOf(a, e)
	}
	for _, k := range criterionKeys {
		if f, ok := memberOf(e, k); ok && f.kind == kindString {
			return textOf(a, f)
		}
	}
	return textOf(a, e)
}

// rubricText reads a rubric held in one string, as CSV cells hold them.
func rubricText(t string) []string {
	s := strings.TrimSpace(t)
	if s == "" {
		return nil
	}
	if s[0] == '[' {
		b := []byte(s)
		sc := scanner{b: b}
		if v, err := sc.value(0, 0); err == nil && v.end == len(b) {
			var a arena
			return rubricOf(&a, v)
		}
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		for _, bullet := range []string{"- ", "* ", "• "} {
			line = strings.TrimPrefix(line, bullet)
		}
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}
