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

// tplPart is either literal text or, when name is set, a placeholder.
type tplPart struct {
	text string
	name string
}

// parseTemplate reads a template and rejects what str.format would reject:
// an unclosed or empty placeholder, or a lone closing brace. Placeholder
// names may hold letters, digits, '_', '-' and '.' (dotted paths).
func parseTemplate(s string) (template, error) {
	var t template
	var lit strings.Builder
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
			if !validPlaceholder(name) {
				return template{}, fmt.Errorf("line %d: {%s} is not a placeholder: use {question}, {gold}, {prediction}, {response_a}, {response_b}, {criterion}, {id} or a field name, and write {{ and }} for literal braces", lineOf(s, i), clip(s[i+1:i+end], 40))
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, tplPart{text: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, tplPart{name: name})
			i += end
		default:
			lit.WriteByte(c)
		}
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

// names lists the template's placeholders in order of first use.
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

// render fills each placeholder with lookup's value. The values are
// inserted as they are: a brace inside a prediction is not a placeholder.
func (t template) render(lookup func(name string) (string, error)) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.name == "" {
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
