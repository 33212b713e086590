package llm

import (
	"strings"
)

// outputLine is one line of model output, read as "key: value" where it
// has that shape ("**Result:** YES" has key "result" and value " YES").
type outputLine struct {
	text string
	// at is the byte offset of the line in the whole output.
	at int
	// key is the lower-cased key without markup, "" if the line is not a
	// key: value line.
	key   string
	value string
	// valueAt is the byte offset of value in the whole output.
	valueAt int
	fence   bool
}

// splitOutputLines cuts text into lines and reads each as a key: value
// line where it can. Keys are short (at most 40 bytes) and made of
// letters, digits, spaces, '_' and '-', so prose with a colon in it is not
// taken for a key.
func splitOutputLines(text string) []outputLine {
	var out []outputLine
	at := 0
	for at <= len(text) {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text) - at
		}
		line := strings.TrimSuffix(text[at:at+end], "\r")
		l := outputLine{text: line, at: at, fence: strings.HasPrefix(strings.TrimSpace(line), "```")}
		if c, width := colonIndex(line); c >= 0 {
			if key, ok := normalizeKey(line[:c]); ok {
				l.key = key
				l.value = line[c+width:]
				l.valueAt = at + c + width
			}
		}
		out = append(out, l)
		at += end + 1
	}
	return out
}

// colonIndex finds the first ':' or full-width '：' and its width in bytes.
func colonIndex(s string) (int, int) {
	ascii := strings.IndexByte(s, ':')
	wide := strings.Index(s, "：")
	switch {
	case wide >= 0 && (ascii < 0 || wide < ascii):
		return wide, len("：")
	case ascii >= 0:
		return ascii, 1
	}
	return -1, 0
}

func normalizeKey(raw string) (string, bool) {
	k := strings.Map(func(r rune) rune {
		switch r {
		case '*', '_', '`', '#', '>', '"', '\'':
			return -1
		}
		return r
	}, raw)
	k = strings.TrimSpace(k)
	k = strings.TrimSpace(strings.TrimLeft(k, "-•"))
	if k == "" || len(k) > 40 {
		return "", false
	}
	for _, r := range k {
		ok := r == ' ' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return "", false
		}
	}
	return strings.ToLower(k), true
}

// lastKey returns the index of the last line with the given key, or -1.
func lastKey(lines []outputLine, key string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].key == key {
			return i
		}
	}
	return -1
}

// keyText returns the value of the key's last line before line limit,
// with the lines that continue it (not keys, not fences) up to limit.
func keyText(lines []outputLine, key string, limit int) string {
	from := lastKey(lines[:limit], key)
	if from < 0 {
		return ""
	}
	parts := []string{strings.TrimSpace(lines[from].value)}
	for _, l := range lines[from+1 : limit] {
		if l.key != "" || l.fence {
			break
		}
		if t := strings.TrimSpace(l.text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}
