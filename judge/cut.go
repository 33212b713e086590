package judge

import (
	"fmt"
	"unicode/utf8"
)

// What is stored of one answer, in a verdict's raw output and in the
// response cache: an answer longer than RawHead+RawTail keeps its first
// RawHead bytes and its last RawTail (seed 002 reads the end of a trace),
// with a marker between that says how much was cut. The parser always
// reads the whole answer; only what is stored is cut. Other texts of a
// verdict (reason, error, extra fields) keep TextHead and TextTail. The
// LLM judges cut what they store and the session store cuts again what
// any judge hands it; cutting twice changes nothing.
const (
	RawHead  = 256 << 10
	RawTail  = 64 << 10
	TextHead = 32 << 10
	TextTail = 32 << 10
	// cutSlack is more than any marker's length, so that cutting a text
	// that was cut already leaves it as it is.
	cutSlack = 64
)

// CutText cuts s to its first head and last tail bytes (at character
// boundaries) with a marker between, when it is longer than that.
func CutText(s string, head, tail int) string {
	if len(s) <= head+tail+cutSlack {
		return s
	}
	h := head
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + fmt.Sprintf("\n…[%d bytes cut]…\n", t-h) + s[t:]
}
