package llm

import (
	"fmt"
	"strings"
)

// template is a message text with {name} placeholders, written as Python's
// str.format writes them: {{ and }} stand for literal braces. Seed 003 and
// custom judge files use it.
type template struct {
	parts []tplPart
}

// tplPart is literal text, a placeholder (name set) or, with section
// set, the start ({#name}) or end ({/name}) of an optional section.
type tplPart struct {
	text    string
	name    string
	section sectionMark
}

// sectionMark tells a section's start from its end.
type sectionMark uint8

const (
	notSection sectionMark = iota
	sectionStart
	sectionEnd
)

// parseTemplate reads a template and rejects what str.format would reject:
// an unclosed or empty placeholder, or a lone closing brace. Placeholder
// names may hold letters, digits, '_', '-' and '.' (dotted paths).
//
// {#name}…{/name} is an optional section: its text is left out when the
// item's name field is empty (the pairwise judge's reference block, for
// an item without a gold answer), as it is when the item lacks the field.
// Sections do not nest.
func parseTemplate(s string) (template, error) {
	var t template
	var lit strings.Builder
	open := "" // the section being read
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			return template{}, fmt.Errorf("line %d: a lone '}' (write }} for a literal brace)", lineOf(s, i))
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return template{}, fmt.Errorf("line %d: '{' is never closed (write {{ for a literal brace)", lineOf(s, i))
			}
			name := strings.TrimSpace(s[i+1 : i+end])
			mark := notSection
			if name != "" && (name[0] == '#' || name[0] == '/') {
				mark = sectionStart
				if name[0] == '/' {
					mark = sectionEnd
				}
				name = strings.TrimSpace(name[1:])
			}
			switch {
			case mark == notSection:
			case !validPlaceholder(name):
				return template{}, fmt.Errorf("line %d: {%s} is not a section: write {#field} … {/field} around text that is left out when the item's field is empty", lineOf(s, i), clip(s[i+1:i+end], 40))
			case mark == sectionStart && open != "":
				return template{}, fmt.Errorf("line %d: {#%s} starts inside the section {#%s}: sections do not nest (close it first with {/%s})", lineOf(s, i), name, open, open)
			case mark == sectionEnd && open != name:
				if open == "" {
					return template{}, fmt.Errorf("line %d: {/%s} closes no section: open it with {#%s} before", lineOf(s, i), name, name)
				}
				return template{}, fmt.Errorf("line %d: {/%s} closes the section {#%s}: write {/%s}", lineOf(s, i), name, open, open)
			case mark == sectionStart:
				open = name
			default:
				open = ""
			}
			if !validPlaceholder(name) {
				return template{}, fmt.Errorf("line %d: {%s} is not a placeholder: use {question}, {gold}, {prediction}, {response_a}, {response_b}, {criterion}, {id}, {instructions}, {examples} or a field name, and write {{ and }} for literal braces", lineOf(s, i), clip(s[i+1:i+end], 40))
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, tplPart{text: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, tplPart{name: name, section: mark})
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	if open != "" {
		return template{}, fmt.Errorf("the section {#%s} is never closed: end it with {/%s}", open, open)
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, tplPart{text: lit.String()})
	}
	return t, nil
}

func validPlaceholder(name string) bool {
	if name == "" || name[0] == '.' || name[len(name)-1] == '.' {
		return false
	}
	for _, r := range name {
		ok := r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

// names lists the template's placeholders and section fields in order of
// first use.
func (t template) names() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range t.parts {
		if p.name != "" && !seen[p.name] {
			seen[p.name] = true
			out = append(out, p.name)
		}
	}
	return out
}

// optionalNames lists the fields the template uses only inside optional
// sections, or as a section's field: an item may lack them.
func (t template) optionalNames() []string {
	required := map[string]bool{}
	in := false
	for _, p := range t.parts {
		switch {
		case p.section == sectionStart:
			in = true
		case p.section == sectionEnd:
			in = false
		case p.name != "" && !in:
			required[p.name] = true
		}
	}
	var out []string
	for _, n := range t.names() {
		if !required[n] {
			out = append(out, n)
		}
	}
	return out
}

// literal returns the template's text when it has no placeholder.
func (t template) literal() (string, bool) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.name != "" {
			return "", false
		}
		b.WriteString(p.text)
	}
	return b.String(), true
}

// render fills each placeholder with lookup's value. The values are
// inserted as they are: a brace inside a prediction is not a placeholder.
// A section whose field is empty (white space only) is left out.
func (t template) render(lookup func(name string) (string, error)) (string, error) {
	var b strings.Builder
	skip := false
	for _, p := range t.parts {
		switch {
		case p.section == sectionEnd:
			skip = false
			continue
		case skip:
			continue
		case p.section == sectionStart:
			// A field the item lacks is empty: the section is left out.
			v, err := lookup(p.name)
			skip = err != nil || strings.TrimSpace(v) == ""
			continue
		case p.name == "":
			b.WriteString(p.text)
			continue
		}
		v, err := lookup(p.name)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// lineOf returns the 1-based line number of byte offset i in s.
func lineOf(s string, i int) int { return strings.Count(s[:i], "\n") + 1 }

// clip shortens s to at most n bytes (on a rune boundary) for messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
