package sessions

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// columnKind is what a column of imported values holds, when no --scale
// says so.
type columnKind struct {
	// Scale and Dimension are where its values go; Scale is "" when the
	// column is not read.
	Scale     judge.Scale
	Dimension string
	// Readable and NonBlank count the values read and the values present.
	Readable, NonBlank int
	// Why says, when Scale is "", why the column is not read.
	Why string
	// Choices are, when the values fit several scales, those scales:
	// Gavel does not pick one, the user says which with --scale.
	Choices []scaleChoice
}

// scaleChoice is one scale an ambiguous column could be on.
type scaleChoice struct {
	Scale judge.Scale
	What  string // "a pairwise preference (1 = A, 2 = B)", "a 1–5 score"
}

// minReadableShare is the share of a column's values that must read as
// verdicts for the column to be taken as one: below it the column is
// something else (raw judge text, a free-text field), and turning most of
// it into parse errors would only hide that.
const minReadableShare = 0.5

// categoryShare is the share of a column's values above which a word no
// scale reads, repeated, looks like a category of its own (SimpleQA's
// NOT_ATTEMPTED beside CORRECT and INCORRECT) rather than a stray
// unreadable answer (PandaLM's 25 "garbage" among 999 verdicts).
const categoryShare = 0.05

// inferColumn decides the scale of a column of imported values, and never
// guesses: when the values fit several scales it lists them instead.
//
//   - Words: true/false, yes/no, pass/fail, correct/incorrect… alone are
//     binary. Preference words (tie, equal, model_a, model_b, A>B…) with no
//     number but 0, 1 or 2 are pairwise: nothing else writes "tie".
//     A and B alone could be a preference or two categories: listed.
//   - Numbers: only 0 and 1 (or one of them) are binary; 0, 0.5 and 1 with
//     a 0.5 are ternary; whole numbers from 1 to 5 that include a 3, 4 or
//     5 are Likert (1–5 is what such columns use far more than any other
//     range, and a preference never holds a 3). Other numbers are never
//     read without --scale: 1 and 2 may be a preference (1 = A, 2 = B) or
//     the low end of a score, 0/1/2 a preference with 0 as tie (PandaLM)
//     or a 0–2 score, 7 and 10 a score out of 10 or of 100; the column is
//     listed with the scales it could be on.
//   - Words beside numbers count on binary and ternary scales (as 1 and 0).
//   - A word no scale reads is an unreadable value (a parse error), unless
//     it repeats in more than categoryShare of the column: then it may be a
//     category, and the column is listed with a nominal scale among its
//     choices.
//   - Fewer than minReadableShare of the values readable: not a verdict
//     column at all.
func inferColumn(values []string) columnKind {
	var k columnKind
	vs := distinctValues(values)
	for _, d := range vs {
		k.NonBlank += d.n
	}
	if k.NonBlank == 0 {
		k.Why = "it has no values"
		return k
	}
	nums := map[float64]bool{}
	words, prefs, strong := 0, 0, false
	var others []distinctValue
	for _, d := range vs {
		switch {
		case d.isNumber:
			nums[d.number] = true
		case d.isWord:
			words++
		case d.isPref:
			prefs++
			strong = strong || d.strongPref
		default:
			others = append(others, d)
		}
	}
	within := func(set ...float64) bool {
		for x := range nums {
			if !slices.Contains(set, x) {
				return false
			}
		}
		return true
	}
	switch {
	case prefs > 0 && words == 0 && strong && within(0, 1, 2):
		k.Scale = judge.Pairwise
	case prefs > 0:
		k.Choices = append(k.Choices, prefChoices(vs, words == 0 && within(0, 1, 2))...)
	case len(nums) == 0 && words > 0:
		k.Scale = judge.Binary
	case len(nums) == 0:
		k.Choices = nominalChoice(vs)
		if k.Choices == nil {
			k.Why = "none of its values is a verdict (true/false, yes/no, 1/0, a score from 1 to 5, A/B/tie…)"
			return k
		}
	case within(0, 1):
		k.Scale = judge.Binary
	case within(0, 0.5, 1) && nums[0.5]:
		k.Scale = judge.Ternary
	case words == 0 && within(1, 2, 3, 4, 5) && (nums[3] || nums[4] || nums[5]):
		k.Scale = judge.Likert
	case words > 0:
		k.Why = fmt.Sprintf("it mixes words (true/false, yes/no…) with the numbers %s, which are on no one scale", listNumbers(nums))
		return k
	default:
		k.Choices = numberChoices(nums)
		if k.Choices == nil {
			k.Why = fmt.Sprintf("its numbers (%s) are on no scale Gavel can tell", listNumbers(nums))
			return k
		}
	}
	if k.Scale != "" && repeatsUnread(others, k.NonBlank) {
		// A word that keeps coming back may be a category: reading the
		// rest and making it a parse error would misread the column.
		k.Choices = append([]scaleChoice{{k.Scale, fmt.Sprintf("%s, with %s as parse errors", scaleWhat(k.Scale), listValues(others))}},
			nominalChoice(vs)...)
		k.Scale = ""
	}
	if k.Scale == "" {
		k.Why = fmt.Sprintf("it holds %s", listValues(vs))
		return k
	}
	for _, v := range values {
		if _, ok := readValue(v, k.Scale); ok {
			k.Readable++
		}
	}
	if float64(k.Readable) < minReadableShare*float64(k.NonBlank) {
		k.Why = fmt.Sprintf("only %d of its %d values read as verdicts", k.Readable, k.NonBlank)
		k.Scale = ""
		return k
	}
	k.Dimension = dimensionFor(k.Scale)
	return k
}

// distinctValue is one value of a column, as valueText reads it, and what
// it could be.
type distinctValue struct {
	text string // the first spelling met, trimmed
	n    int    // how often it occurs
	// isNumber: a finite number; isWord: a binary verdict word; isPref: a
	// pairwise preference word (strongPref: one only a preference uses,
	// such as tie or model_a, where A and B could be anything).
	isNumber, isWord, isPref, strongPref bool
	number                               float64
}

// distinctValues lists a column's non-blank values once each, in the
// order first met.
func distinctValues(values []string) []distinctValue {
	var out []distinctValue
	at := map[string]int{}
	for _, v := range values {
		if strings.TrimSpace(v) == "" {
			continue
		}
		key := valueText(v)
		if i, ok := at[key]; ok {
			out[i].n++
			continue
		}
		d := distinctValue{text: strings.TrimSpace(v), n: 1}
		if x, ok := readNumber(v); ok {
			d.isNumber, d.number = true, x
		} else if _, ok := readWord(v); ok {
			d.isWord = true
		} else if _, ok := readValue(v, judge.Pairwise); ok {
			d.isPref = true
			d.strongPref = !weakPreference[strings.Trim(key, "[]() ")]
		}
		at[key] = len(out)
		out = append(out, d)
	}
	return out
}

// weakPreference are the preference words that could as well be something
// else: letters (a multiple-choice answer, a grade) and ordinary words.
var weakPreference = map[string]bool{
	"a": true, "b": true, "c": true, "first": true, "second": true, "both": true, "same": true, "neither": true,
}

// repeatsUnread reports whether a value no scale reads repeats often
// enough to be a category of its own.
func repeatsUnread(others []distinctValue, nonBlank int) bool {
	for _, d := range others {
		if d.n >= 3 && float64(d.n) > categoryShare*float64(nonBlank) && categoryName(d.text) {
			return true
		}
	}
	return false
}

// maxNominalChoice is the most categories a column may hold for Gavel to
// suggest a nominal scale of them.
const maxNominalChoice = 12

// nominalChoice suggests a nominal scale of a column's values, when they
// are few, read like category names and come back (on average twice or
// more each: free text does not repeat); nil otherwise.
func nominalChoice(vs []distinctValue) []scaleChoice {
	if len(vs) < 2 || len(vs) > maxNominalChoice {
		return nil
	}
	names := make([]string, len(vs))
	total := 0
	for i, d := range vs {
		if !categoryName(d.text) {
			return nil
		}
		names[i] = d.text
		total += d.n
	}
	if total < 2*len(vs) {
		return nil
	}
	s, err := judge.ParseScale("nominal:" + strings.Join(names, ","))
	if err != nil {
		return nil
	}
	return []scaleChoice{{s, "categories"}}
}

// categoryName reports whether a value reads like the name of a category:
// short (three words at most), one line, none of the characters a scale's
// spelling uses.
func categoryName(s string) bool {
	return s != "" && len(s) <= 32 && len(strings.Fields(s)) <= 3 && !strings.ContainsAny(s, ",:\n\r\t")
}

// prefChoices are the scales of a column holding A and B (or other
// preference words) without a word only a preference uses.
func prefChoices(vs []distinctValue, pairwise bool) []scaleChoice {
	var out []scaleChoice
	if pairwise {
		out = append(out, scaleChoice{judge.Pairwise, "a pairwise preference"})
	}
	return append(out, nominalChoice(vs)...)
}

// numberChoices are the scales a column of numbers could be on: a
// preference when they are among 0, 1 and 2, and whole-number ranges
// holding them. nil when they are not whole numbers from 0 to 100.
func numberChoices(nums map[float64]bool) []scaleChoice {
	lo, hi := math.Inf(1), math.Inf(-1)
	for x := range nums {
		if x != math.Trunc(x) || x < 0 || x > 100 {
			return nil
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	var out []scaleChoice
	if hi <= 2 {
		what := "a pairwise preference (1 = A, 2 = B)"
		if nums[0] {
			what = "a pairwise preference (1 = A, 2 = B, 0 = tie)"
		}
		out = append(out, scaleChoice{judge.Pairwise, what})
	}
	low := 1
	if lo == 0 {
		low = 0
	}
	for _, top := range []int{int(hi), 5, 10, 100} {
		if len(out) == 3 {
			break
		}
		if top < int(hi) || top-low+1 < 3 {
			continue
		}
		s := judge.Scale(fmt.Sprintf("ordinal:%d-%d", low, top))
		if canon, err := judge.ParseScale(string(s)); err == nil {
			s = canon
		}
		if !slices.ContainsFunc(out, func(c scaleChoice) bool { return c.Scale == s }) {
			out = append(out, scaleChoice{s, scaleWhat(s)})
		}
	}
	return out
}

// scaleWhat names what a value on a scale is: "a 1–5 score", "a
// pairwise preference", "a yes/no verdict".
func scaleWhat(s judge.Scale) string {
	switch {
	case s == judge.Binary:
		return "a yes/no verdict"
	case s == judge.Ternary:
		return "a 0/0.5/1 verdict"
	case s.Kind() == judge.KindPairwise:
		return "a pairwise preference"
	case s.Kind() == judge.KindNominal:
		return "categories"
	}
	names := s.Names()
	return fmt.Sprintf("a %s–%s score", names[0], names[len(names)-1])
}

// listValues writes a column's values for a message: "1 and 2", "1, 2,
// Tie and garbage", the numbers first in order, at most six.
func listValues(vs []distinctValue) string {
	sorted := slices.Clone(vs)
	slices.SortStableFunc(sorted, func(a, b distinctValue) int {
		switch {
		case a.isNumber && b.isNumber:
			return cmpFloat(a.number, b.number)
		case a.isNumber:
			return -1
		case b.isNumber:
			return 1
		}
		return 0
	})
	var parts []string
	for i, d := range sorted {
		if d.isNumber {
			if i > 0 && sorted[i-1].isNumber && sorted[i-1].number == d.number {
				continue // "2" and "2.0"
			}
			parts = append(parts, strconv.FormatFloat(d.number, 'g', -1, 64))
		} else {
			parts = append(parts, quoteShort(d.text))
		}
	}
	return andList(parts, 6)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// listNumbers writes a set of numbers in order: "0, 1 and 2".
func listNumbers(nums map[float64]bool) string {
	xs := make([]float64, 0, len(nums))
	for x := range nums {
		xs = append(xs, x)
	}
	slices.Sort(xs)
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return andList(parts, 6)
}

// andList joins "a, b and c", keeping at most max items and ending with
// "…" when there are more.
func andList(parts []string, max int) string {
	switch {
	case len(parts) > max:
		return strings.Join(parts[:max], ", ") + ", …"
	case len(parts) == 1:
		return parts[0]
	case len(parts) == 0:
		return ""
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
