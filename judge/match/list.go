package match

import "strings"

// parseList reads a list answer written as a JSON array (["Jan", "Feb"],
// [1500, 8000]) or a Python list (['Jun', 'Aug'], with either quote and
// apostrophes inside items, as in "Men's"). ok is false when s is not one
// bracketed list.
func parseList(s string) (items []string, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	body := s[1 : len(s)-1]
	items = []string{}
	for i := 0; i < len(body); {
		for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r') {
			i++
		}
		if i >= len(body) {
			break
		}
		var item string
		if q := body[i]; q == '"' || q == '\'' {
			item, i = quotedItem(body, i+1, q)
		} else {
			end := strings.IndexByte(body[i:], ',')
			if end < 0 {
				end = len(body) - i
			}
			item, i = strings.TrimSpace(body[i:i+end]), i+end
		}
		items = append(items, item)
		// Skip to the next separator.
		for i < len(body) && body[i] != ',' {
			i++
		}
		i++
	}
	return items, true
}

// quotedItem reads a quoted list item that starts at body[i], after its
// opening quote q. A quote closes the item only when a comma or the end of
// the list follows it, so apostrophes inside items survive; backslash
// escapes are honoured.
func quotedItem(body string, i int, q byte) (string, int) {
	var b strings.Builder
	for i < len(body) {
		c := body[i]
		if c == '\\' && i+1 < len(body) {
			b.WriteByte(body[i+1])
			i += 2
			continue
		}
		if c == q {
			j := i + 1
			for j < len(body) && body[j] == ' ' {
				j++
			}
			if j == len(body) || body[j] == ',' {
				return b.String(), i + 1
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), i
}

// listQuestion reports whether a question asks for its answer as a list,
// so that a gold like "Jun, Aug" is read as two items.
func listQuestion(q string) bool {
	lq := asciiLower(q)
	for _, p := range []string{"list format", "as a list", "in a list", "list all", "list the"} {
		if strings.Contains(lq, p) {
			return true
		}
	}
	return false
}

// goldList returns the items of a list gold: a bracketed list, or, for a
// question that asks for a list, a comma-separated gold.
func goldList(gold, question string) ([]string, bool) {
	if items, ok := parseList(gold); ok {
		return items, true
	}
	if strings.Contains(gold, ",") && listQuestion(question) {
		return strings.Split(gold, ","), true
	}
	return nil, false
}

// countPhrase counts the non-overlapping occurrences of needle in hay as a
// run of whole tokens.
func countPhrase(hay, needle []tok) int {
	n := 0
	eachPhrase(hay, needle, func(int) { n++ })
	return n
}

// lastPhrase returns the token index just past the last occurrence of
// needle in hay, or -1.
func lastPhrase(hay, needle []tok) int {
	last := -1
	eachPhrase(hay, needle, func(end int) { last = end })
	return last
}

// eachPhrase calls found with the end of each non-overlapping occurrence of
// needle in hay, leftmost first. It is Knuth–Morris–Pratt over tokens, so
// a huge gold against a huge prediction still costs linear time.
func eachPhrase(hay, needle []tok, found func(end int)) {
	m := len(needle)
	if m == 0 || m > len(hay) {
		return
	}
	if m == 1 {
		for i, t := range hay {
			if t.text == needle[0].text {
				found(i + 1)
			}
		}
		return
	}
	fail := make([]int, m)
	for i, k := 1, 0; i < m; i++ {
		for k > 0 && needle[i].text != needle[k].text {
			k = fail[k-1]
		}
		if needle[i].text == needle[k].text {
			k++
		}
		fail[i] = k
	}
	for i, k := 0, 0; i < len(hay); i++ {
		for k > 0 && hay[i].text != needle[k].text {
			k = fail[k-1]
		}
		if hay[i].text == needle[k].text {
			k++
		}
		if k == m {
			found(i + 1)
			k = 0 // non-overlapping
		}
	}
}

// emptyListWords are the ways to answer that a list has no items.
var emptyListWords = map[string]bool{"none": true, "no": true, "nothing": true, "empty": true, "0": true}
