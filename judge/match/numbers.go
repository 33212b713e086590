package match

import (
	"math"
	"strings"
)

// Number words, so that "forty-two" equals 42 and "ten percent" equals 10%.
var (
	unitWords = map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
		"six": 6, "seven": 7, "eight": 8, "nine": 9,
	}
	teenWords = map[string]float64{
		"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
		"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
	}
	tensWords = map[string]float64{
		"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
	scaleWords = map[string]float64{
		"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
	}
)

// wordKind classifies a token for numberPhrase.
type wordKind int

const (
	notNumber wordKind = iota
	unitKind
	teenKind
	tensKind
	hundredKind
	scaleKind
	digitsKind
)

type numberWord struct {
	kind  wordKind
	value float64
}

// numberWords indexes every number word by its kind, for one lookup per
// token.
var numberWords = func() map[string]numberWord {
	m := map[string]numberWord{"hundred": {hundredKind, 100}}
	for kind, words := range map[wordKind]map[string]float64{
		unitKind: unitWords, teenKind: teenWords, tensKind: tensWords, scaleKind: scaleWords,
	} {
		for w, v := range words {
			m[w] = numberWord{kind, v}
		}
	}
	return m
}()

func kindOf(t tok) (wordKind, float64) {
	if t.isNum {
		return digitsKind, t.num
	}
	if w, ok := numberWords[t.text]; ok {
		return w.kind, w.value
	}
	return notNumber, 0
}

// numberPhrase reads the number that starts at ts[i], if any: digits
// ("42"), digits with a scale ("300 million"), or number words ("forty two",
// "one hundred and five", "two thousand twenty"), with an optional
// "minus"/"negative" before it. It returns the value and how many tokens
// it used. A run stops where the words stop making one number, so "one two"
// is two numbers.
func numberPhrase(ts []tok, i int) (float64, int, bool) {
	if k, _ := kindOf(ts[i]); k == notNumber && ts[i].text != "minus" && ts[i].text != "negative" {
		return 0, 0, false
	}
	sign := 1.0
	j := i
	if ts[j].text == "minus" || ts[j].text == "negative" {
		// "minus -5" stays as written: folding it would make a second
		// normalisation change the first.
		if j+1 >= len(ts) || strings.HasPrefix(ts[j+1].text, "-") {
			return 0, 0, false
		}
		if k, _ := kindOf(ts[j+1]); k == notNumber {
			return 0, 0, false
		}
		sign = -1
		j++
	}
	var total, current float64
	last := notNumber
	for ; j < len(ts); j++ {
		k, v := kindOf(ts[j])
		if k == notNumber && ts[j].text == "and" && (last == hundredKind || last == scaleKind) && j+1 < len(ts) {
			if nk, _ := kindOf(ts[j+1]); nk == unitKind || nk == teenKind || nk == tensKind {
				continue
			}
		}
		if !follows(last, k) {
			break
		}
		switch k {
		case digitsKind, unitKind, teenKind, tensKind:
			current += v
		case hundredKind, scaleKind:
			// A bare "hundred" or "thousand" counts one of them; after a
			// number it multiplies it, even "0 thousand".
			n := current
			if last == notNumber {
				n = 1
			}
			if k == hundredKind {
				current = n * 100
			} else {
				total += n * v
				current = 0
			}
		}
		last = k
	}
	if last == notNumber {
		return 0, 0, false
	}
	v := sign * (total + current)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, 0, false
	}
	return v, j - i, true
}

// follows reports whether a number word of kind next can continue a number
// whose last word was of kind last.
func follows(last, next wordKind) bool {
	switch next {
	case notNumber:
		return false
	case digitsKind:
		return last == notNumber
	case unitKind:
		return last == notNumber || last == tensKind || last == hundredKind || last == scaleKind
	case teenKind, tensKind:
		return last == notNumber || last == hundredKind || last == scaleKind
	case hundredKind:
		return last == notNumber || last == unitKind || last == teenKind || last == tensKind || last == digitsKind
	case scaleKind:
		return last != scaleKind
	}
	return false
}
