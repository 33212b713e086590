package sessions

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// verdictWords are the words people write for a binary verdict, lower
// case, after valueText has trimmed them.
var verdictWords = map[string]float64{
	"true": 1, "yes": 1, "y": 1, "t": 1, "correct": 1, "right": 1, "pass": 1, "passed": 1,
	"accept": 1, "accepted": 1, "valid": 1,
	"false": 0, "no": 0, "n": 0, "f": 0, "incorrect": 0, "wrong": 0, "fail": 0, "failed": 0,
	"reject": 0, "rejected": 0, "invalid": 0,
}

// valueText trims what surrounds a verdict in a cell: spaces, quotes,
// Markdown emphasis and a final full stop ("**Yes.**" reads "yes").
func valueText(s string) string {
	return strings.ToLower(strings.Trim(strings.TrimSpace(s), " \t\r\n*_`'\".!"))
}

// readWord reads a verdict word; ok is false for anything else.
func readWord(s string) (float64, bool) {
	v, ok := verdictWords[valueText(s)]
	return v, ok
}

// readNumber reads a finite number ("1", "0.5", "4.0").
func readNumber(s string) (float64, bool) {
	x, err := strconv.ParseFloat(valueText(s), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

// onScale reports whether every number is a value of the scale.
func onScale(nums map[float64]int, s judge.Scale) bool {
	for x := range nums {
		if !s.Valid(x) {
			return false
		}
	}
	return true
}

// readValue reads one imported value on a scale: ok is false when the
// text is not a value of that scale. Binary and ternary columns also read
// the verdict words (true/false, yes/no, pass/fail, right/wrong…), more of
// them than judge.Scale.Read knows; every other scale reads as
// judge.Scale.Read does, so that a nominal category named CORRECT stays a
// category and a pairwise "1" stays A.
func readValue(s string, scale judge.Scale) (float64, bool) {
	if scale == judge.Binary || scale == judge.Ternary {
		if w, ok := readWord(s); ok {
			return w, true
		}
		if x, ok := readNumber(s); ok && scale.Valid(x) {
			return x, true
		}
		return 0, false
	}
	if x, ok := scale.Read(s); ok && scale.Valid(x) {
		return x, true
	}
	if scale.AllowsTie() {
		// Chatbot Arena's "tie (bothbad)": judge.Scale.Read trims the
		// closing parenthesis before it looks the word up, so it misses it.
		if t := valueText(s); t == "tie (bothbad)" || t == "tie(bothbad)" {
			return judge.PreferTie, true
		}
	}
	return 0, false
}

// unreadableValue is the error of a parse_error verdict made from a value
// that is not on the column's scale.
func unreadableValue(s string, scale judge.Scale) string {
	return fmt.Sprintf("imported value %s is not on the %s scale: expected %s", quoteShort(s), scale, scaleValues(scale))
}

// scaleValues says how a scale's values are written, for messages.
func scaleValues(scale judge.Scale) string {
	switch {
	case scale == judge.Binary:
		return "true/false, yes/no, 1/0, correct/incorrect or pass/fail"
	case scale == judge.Ternary:
		return "0, 0.5 or 1"
	case scale.Kind() == judge.KindPairwise && scale.AllowsTie():
		return "A, B or tie (also written a/b, 1/2 with 0 for a tie, model_a/model_b, equal…)"
	case scale.Kind() == judge.KindPairwise:
		return "A or B (also written a/b, 1/2, model_a/model_b…)"
	case scale.Kind() == judge.KindNominal:
		return "one of " + strings.Join(scale.Names(), ", ")
	case scale.Kind() == judge.KindOrdinal:
		names := scale.Names()
		s := "a whole number from " + names[0] + " to " + names[len(names)-1]
		if ls := scale.Labels(); ls != nil {
			s += " or one of its labels (" + strings.Join(ls, ", ") + ")"
		}
		return s
	}
	return "a value of " + string(scale)
}

// Dimension names of imported verdicts and labels, by the kind of scale:
// labels and verdicts meet on the dimension's name and scale, so a human
// column and a judge column on one scale are compared. A binary or
// ternary column says whether the answer is correct; an ordinal one
// scores it; a pairwise one prefers one response of the two; a nominal
// one puts it in a category.
const (
	importedCorrect    = "correct"
	importedScore      = "score"
	importedPreference = "preference"
	importedCategory   = "category"
)

// dimensionFor names the dimension of an imported column on scale s.
func dimensionFor(s judge.Scale) string {
	switch {
	case s == judge.Binary || s == judge.Ternary:
		return importedCorrect
	case s.Kind() == judge.KindPairwise:
		return importedPreference
	case s.Kind() == judge.KindNominal:
		return importedCategory
	}
	return importedScore
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	const max = 60
	r := []rune(s)
	if len(r) > max {
		return strconv.Quote(string(r[:max])) + "…"
	}
	return strconv.Quote(s)
}
