package sessions

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// Dimension names given to imported verdicts and labels: a yes/no or
// 0/0.5/1 column rates whether the answer is correct, a 1–5 column scores
// it. Labels and verdicts meet on the dimension name, so an imported human
// column and an imported judge column of the same kind are compared.
const (
	importedCorrect = "correct"
	importedScore   = "score"
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

// columnKind is what a column of imported values holds.
type columnKind struct {
	// Scale and Dimension are where its values go; Scale is "" when the
	// column cannot be read as verdicts or labels.
	Scale     judge.Scale
	Dimension string
	// Readable and NonBlank count the values read and the values present.
	Readable, NonBlank int
	// Why says, when Scale is "", why the column cannot be read.
	Why string
}

// minReadableShare is the share of a column's values that must read as
// verdicts for the column to be taken as one: below it the column is
// something else (raw judge text, a free-text field), and turning most of
// it into parse errors would only hide that.
const minReadableShare = 0.5

// inferColumn decides the scale of a column of imported values. Numbers
// decide it when there are any: all 0 or 1 is binary, all 0, 0.5 or 1 is
// ternary, all whole numbers from 1 to 5 is Likert; numbers on no scale
// make the column unreadable. Words (true/false, yes/no, pass/fail…) alone
// are binary, and also count on a ternary scale (as 0 and 1). Anything else
// in a column of a known scale is unreadable, one value at a time.
func inferColumn(values []string) columnKind {
	var k columnKind
	words := 0
	nums := map[float64]int{}
	var seen []string
	for _, v := range values {
		if strings.TrimSpace(v) == "" {
			continue
		}
		k.NonBlank++
		if _, ok := readWord(v); ok {
			words++
		} else if x, ok := readNumber(v); ok {
			nums[x]++
		}
	}
	if k.NonBlank == 0 {
		k.Why = "it has no values"
		return k
	}
	numCount := 0
	for _, n := range nums {
		numCount += n
	}
	switch {
	case len(nums) == 0 && words > 0:
		k.Scale, k.Readable = judge.Binary, words
	case len(nums) == 0:
		k.Why = "none of its values is a verdict (true/false, yes/no, 1/0, a score from 1 to 5…)"
		return k
	case onScale(nums, judge.Binary):
		k.Scale, k.Readable = judge.Binary, words+numCount
	case onScale(nums, judge.Ternary):
		k.Scale, k.Readable = judge.Ternary, words+numCount
	case onScale(nums, judge.Likert):
		k.Scale, k.Readable = judge.Likert, numCount
	default:
		xs := make([]float64, 0, len(nums))
		for x := range nums {
			xs = append(xs, x)
		}
		slices.Sort(xs)
		for i, x := range xs {
			if i == 6 {
				seen = append(seen, "…")
				break
			}
			seen = append(seen, strconv.FormatFloat(x, 'g', -1, 64))
		}
		k.Why = fmt.Sprintf("its numbers (%s) are on no scale Gavel has: binary 0/1, ternary 0/0.5/1 or Likert 1–5", strings.Join(seen, ", "))
		return k
	}
	if float64(k.Readable) < minReadableShare*float64(k.NonBlank) {
		k.Why = fmt.Sprintf("only %d of its %d values read as verdicts", k.Readable, k.NonBlank)
		k.Scale = ""
		return k
	}
	k.Dimension = importedCorrect
	if k.Scale == judge.Likert {
		k.Dimension = importedScore
	}
	return k
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
// text is not a value of that scale.
func readValue(s string, scale judge.Scale) (float64, bool) {
	if w, ok := readWord(s); ok {
		if scale == judge.Likert {
			return 0, false
		}
		return w, true
	}
	if x, ok := readNumber(s); ok && scale.Valid(x) {
		return x, true
	}
	return 0, false
}

// unreadableValue is the error of a parse_error verdict made from a value
// that is not on the column's scale.
func unreadableValue(s string, scale judge.Scale) string {
	want := "true/false, yes/no, 1/0, correct/incorrect or pass/fail"
	switch scale {
	case judge.Ternary:
		want = "0, 0.5 or 1"
	case judge.Likert:
		want = "a whole number from 1 to 5"
	}
	return fmt.Sprintf("imported value %s is not a verdict: expected %s", quoteShort(s), want)
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
