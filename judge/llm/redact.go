package llm

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gavel-dev/gavel/judge"
)

// redactVerdict removes the API key from every text of a verdict, in case
// a server echoed it into an error or even into the model's output.
func redactVerdict(v judge.Verdict, key string) judge.Verdict {
	if len(key) < minRedactLen {
		return v
	}
	v.Raw = redactText(v.Raw, key)
	v.Reason = redactText(v.Reason, key)
	v.Error = redactText(v.Error, key)
	for k, x := range v.Extra {
		v.Extra[k] = redactAny(x, key)
	}
	return v
}

func redactAny(x any, key string) any {
	switch t := x.(type) {
	case string:
		return redactText(t, key)
	case []string:
		for i := range t {
			t[i] = redactText(t[i], key)
		}
	case []any:
		for i := range t {
			t[i] = redactAny(t[i], key)
		}
	case map[string]any:
		for k, v := range t {
			t[k] = redactAny(v, key)
		}
	}
	return x
}

// minRedactLen is the shortest key that is redacted: shorter "keys" such
// as vLLM's conventional "EMPTY" are no secret, and replacing them would
// mangle ordinary words in model output.
const minRedactLen = 8

// redacted replaces the key wherever it is found.
const redacted = "[api key]"

// redactText removes key from s in every form a server or a model may
// write it: as is; with any of its characters JSON-escaped (\u002d,
// \/, once or several times over, as in JSON inside a JSON string),
// percent-encoded or written as an HTML character reference; and the
// token after "Bearer" when it begins like the key (an echoed
// Authorization header, however cut).
func redactText(s, key string) string {
	if len(key) < minRedactLen || s == "" {
		return s
	}
	if strings.Contains(s, key) {
		s = strings.ReplaceAll(s, key, redacted)
	}
	if !strings.ContainsAny(s, `\%&`) && !containsFold(s, "bearer") {
		return s
	}
	p := patternsFor(key)
	if strings.ContainsAny(s, `\%&`) {
		s = p.escaped.ReplaceAllLiteralString(s, redacted)
	}
	if containsFold(s, "bearer") {
		s = p.bearer.ReplaceAllStringFunc(s, func(m string) string {
			loc := p.bearer.FindStringSubmatchIndex(m)
			if !startsLikeKey(unescape(m[loc[2]:loc[3]]), key) {
				return m
			}
			return m[:loc[2]] + redacted
		})
	}
	return s
}

type keyPatterns struct {
	// escaped matches the key with any character in an escaped form.
	escaped *regexp.Regexp
	// bearer matches "Bearer", its blank and the token after it
	// (submatch 2), escapes included.
	bearer *regexp.Regexp
}

var patterns sync.Map // key → *keyPatterns

func patternsFor(key string) *keyPatterns {
	if p, ok := patterns.Load(key); ok {
		return p.(*keyPatterns)
	}
	var b strings.Builder
	for _, r := range key {
		b.WriteString("(?:")
		b.WriteString(regexp.QuoteMeta(string(r)))
		if r < 0x10000 {
			fmt.Fprintf(&b, `|\\+u(?i:%04x)`, r)
		} else {
			hi, lo := utf16Pair(r)
			fmt.Fprintf(&b, `|\\+u(?i:%04x)\\+u(?i:%04x)`, hi, lo)
		}
		if r == '/' || r == '"' || r == '\\' {
			b.WriteString(`|\\+` + regexp.QuoteMeta(string(r)))
		}
		if r < utf8.RuneSelf {
			fmt.Fprintf(&b, `|%%(?i:%02x)|&#0*%d;|&#(?i:x)0*(?i:%x);`, r, r, r)
		}
		b.WriteString(")")
	}
	p := &keyPatterns{
		escaped: regexp.MustCompile(b.String()),
		bearer:  bearerRE,
	}
	actual, _ := patterns.LoadOrStore(key, p)
	return actual.(*keyPatterns)
}

func utf16Pair(r rune) (hi, lo rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// startsLikeKey tells whether tok is the key, holds it, or is a piece of
// it long enough to be a secret (a key cut short by an echo).
func startsLikeKey(tok, key string) bool {
	if strings.Contains(tok, key) {
		return true
	}
	n := 0
	for n < len(tok) && n < len(key) && tok[n] == key[n] {
		n++
	}
	return n >= minRedactLen || (n == len(tok) && n >= len(key)/2 && n >= 4)
}

// unescape undoes the escapes redactText knows (JSON, percent, HTML
// numeric references), repeatedly, for comparing a token with the key.
func unescape(s string) string {
	for range 4 {
		t := unescapeOnce(s)
		if t == s {
			break
		}
		s = t
	}
	return s
}

// bearerRE matches "Bearer", its blank (escaped or not) and the token
// after it, escapes included (submatch 1).
var bearerRE = regexp.MustCompile(`(?i)bearer(?:\s|\\+[ntr]|\\+u0020|%20|&#0*32;|\+)+([A-Za-z0-9\-._~+/=\\%&#;]+)`)

var escapeRE = regexp.MustCompile(`\\u[0-9a-fA-F]{4}|\\[/"\\]|%[0-9a-fA-F]{2}|&#[0-9]+;|&#[xX][0-9a-fA-F]+;`)

func unescapeOnce(s string) string {
	return escapeRE.ReplaceAllStringFunc(s, func(m string) string {
		var r rune
		switch {
		case strings.HasPrefix(m, `\u`):
			fmt.Sscanf(m[2:], "%x", &r)
		case m[0] == '\\':
			return m[1:]
		case m[0] == '%':
			fmt.Sscanf(m[1:], "%x", &r)
		case strings.HasPrefix(m, "&#x") || strings.HasPrefix(m, "&#X"):
			fmt.Sscanf(m[3:len(m)-1], "%x", &r)
		default:
			fmt.Sscanf(m[2:len(m)-1], "%d", &r)
		}
		return string(r)
	})
}

// containsFold tells whether s holds sub (lower-case ASCII) in any case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
