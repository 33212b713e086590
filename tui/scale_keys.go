package tui

import (
	"fmt"
	"strconv"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
)

// How a person labels a value on each scale. One key per value wherever
// a key can say which value it is:
//
//	binary                 y (YES) and n (NO); digits are refused, so
//	                       that 1 on a YES/NO item is not a guess
//	ordinal, ≤ 9 points    the value's digit (ternary: 0, 5 = 0.5, 1)
//	nominal, ≤ 9 categories 1 to k, by the category's position
//	pairwise               1 = A, 2 = B, 0 = tie (when a tie is allowed)
//	anything longer        a picker: enter, or the first digit typed
//
// Every message and hint that names the keys comes from here, so what the
// screen offers is what it takes.

// inputKind is how a scale is labelled.
type inputKind int

const (
	inputYesNo inputKind = iota
	inputDigits
	inputPicker
)

// maxDigitPoints is the most values digits can label: the nine digits 1
// to 9 (ternary and ordinal scales from 0 use 0 too, within nine points).
const maxDigitPoints = 9

// digitKey is one digit and the value it labels.
type digitKey struct {
	key   string
	value float64
	name  string // what the hint line calls the value ("" when the key says it)
}

// inputOf says how a scale is labelled.
func inputOf(sc judge.Scale) inputKind {
	switch {
	case sc.Kind() == judge.KindBinary:
		return inputYesNo
	case len(digitKeys(sc)) > 0:
		return inputDigits
	}
	return inputPicker
}

// digitKeys lists the digits that label a scale and their values, in the
// order the hint line shows them; nil when digits cannot (a binary scale,
// more than nine values, an ordinal value that is not one digit).
func digitKeys(sc judge.Scale) []digitKey {
	vals, names := sc.Values(), sc.Names()
	switch sc.Kind() {
	case judge.KindPairwise:
		out := []digitKey{{"1", judge.PreferA, "A"}, {"2", judge.PreferB, "B"}}
		if sc.AllowsTie() {
			out = append(out, digitKey{"0", judge.PreferTie, "tie"})
		}
		return out
	case judge.KindNominal:
		if len(vals) > maxDigitPoints {
			return nil
		}
		out := make([]digitKey, len(vals))
		for i, v := range vals {
			out[i] = digitKey{strconv.Itoa(i + 1), v, names[i]}
		}
		return out
	case judge.KindOrdinal:
		if len(vals) > maxDigitPoints {
			return nil
		}
		labels := sc.Labels()
		out := make([]digitKey, len(vals))
		for i, v := range vals {
			k := names[i]
			if v == 0.5 {
				k = "5" // ternary: 5 stands for 0.5
			}
			if len(k) != 1 || k[0] < '0' || k[0] > '9' {
				return nil
			}
			out[i] = digitKey{key: k, value: v}
			if i < len(labels) {
				out[i].name = labels[i]
			}
		}
		return out
	}
	return nil
}

// digitValue is the value a digit labels on a scale.
func digitValue(sc judge.Scale, digit string) (float64, bool) {
	for _, d := range digitKeys(sc) {
		if d.key == digit {
			return d.value, true
		}
	}
	return 0, false
}

// named reports whether a scale's digits stand for names the hint line
// must show (categories, A and B, an ordinal scale's labels): on a plain
// 1–5 scale the digit is the value.
func named(keys []digitKey) bool {
	for _, d := range keys {
		if d.name != "" {
			return true
		}
	}
	return false
}

// scaleKeys says which keys label a scale, for refusals and advice.
func scaleKeys(sc judge.Scale) string {
	switch inputOf(sc) {
	case inputYesNo:
		return "y or n"
	case inputPicker:
		return fmt.Sprintf("enter (or the value's first digit) to pick from the %d values", sc.Points())
	}
	keys := digitKeys(sc)
	switch {
	case sc == judge.Ternary:
		return "0, 5 (= 0.5) or 1"
	case sc.Kind() == judge.KindPairwise:
		if sc.AllowsTie() {
			return "1 (A), 2 (B) or 0 (tie)"
		}
		return "1 (A) or 2 (B)"
	}
	return keys[0].key + " to " + keys[len(keys)-1].key
}

// scaleValues is " (CORRECT / INCORRECT / NOT_ATTEMPTED)" after the keys
// in a message, where the digits stand for names; "" where the digit is
// the value.
func scaleValues(sc judge.Scale) string {
	if inputOf(sc) == inputDigits && named(digitKeys(sc)) && sc.Kind() != judge.KindPairwise {
		return " (" + scaleRange(sc) + ")"
	}
	return ""
}

// scaleRange names a scale's values: "YES / NO", "1–10", "A / B / tie",
// "CORRECT / INCORRECT / NOT_ATTEMPTED" (sanitised: a judge file names the
// categories).
func scaleRange(sc judge.Scale) string {
	return SanitizeLine(Clip(sc.Describe(), 256))
}

// valueWord is what a value of the scale is called in messages.
func valueWord(sc judge.Scale) string {
	switch sc.Kind() {
	case judge.KindNominal:
		return "a category"
	case judge.KindPairwise:
		return "a choice"
	}
	return "a score"
}

// fitNames shortens names (the longest first, never below a few cells)
// until "k name" pairs joined by " · " take at most budget cells, so that
// the hint line shows every category of a scale, cut rather than dropped.
// ok is false when even cut they do not fit.
func fitNames(keys []digitKey, budget int) (names []string, ok bool) {
	names = make([]string, len(keys))
	widths := make([]int, len(keys))
	total := 0
	for i, d := range keys {
		names[i] = SanitizeLine(Clip(d.name, 256))
		widths[i] = ansi.StringWidth(names[i])
		total += widths[i] + len(d.key) + 1
	}
	total += 3 * (len(keys) - 1)
	const least = 4
	for total > budget {
		longest := -1
		for i, w := range widths {
			if w > least && (longest < 0 || w > widths[longest]) {
				longest = i
			}
		}
		if longest < 0 {
			break
		}
		widths[longest]--
		total--
	}
	for i := range names {
		names[i] = ansi.Truncate(names[i], widths[i], "…")
	}
	return names, total <= budget
}

// formatValue is a value as the screen shows it (Scale.Format: YES, 7,
// tie, the category), sanitised: a judge file names the categories.
func formatValue(sc judge.Scale, v float64) string {
	return SanitizeLine(Clip(sc.Format(v), 256))
}
