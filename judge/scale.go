package judge

import (
	"fmt"
	"math"
	"strconv"
)

// Scale is the set of values a dimension can take.
type Scale string

const (
	// Binary is YES (1) or NO (0).
	Binary Scale = "binary"
	// Ternary is 0, 0.5 or 1: no, partial or full compliance.
	Ternary Scale = "ternary"
	// Likert is an integer from 1 to 5.
	Likert Scale = "likert"
)

// Values lists every value of the scale in ascending order.
func (s Scale) Values() []float64 {
	switch s {
	case Binary:
		return []float64{0, 1}
	case Ternary:
		return []float64{0, 0.5, 1}
	case Likert:
		return []float64{1, 2, 3, 4, 5}
	}
	return nil
}

// Valid reports whether v is one of the scale's values.
func (s Scale) Valid(v float64) bool {
	for _, x := range s.Values() {
		if x == v {
			return true
		}
	}
	return false
}

// Ordinal reports whether the scale's values have an order worth using
// (ordinal statistics apply); binary scales are treated as nominal.
func (s Scale) Ordinal() bool { return s == Ternary || s == Likert }

// Format renders a value the way a reviewer reads it: YES/NO for binary,
// the number otherwise. NaN (no value) renders as "—".
func (s Scale) Format(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	switch s {
	case Binary:
		if v >= 0.5 {
			return "YES"
		}
		return "NO"
	case Ternary:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case Likert:
		return strconv.Itoa(int(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ParseScale reads a scale name as written in judge files and sessions.
func ParseScale(name string) (Scale, error) {
	switch s := Scale(name); s {
	case Binary, Ternary, Likert:
		return s, nil
	}
	return "", fmt.Errorf("unknown scale %q: use binary, ternary or likert", name)
}

// Dimension is one thing a judge rates, such as "correct" or "completeness".
type Dimension struct {
	Name        string `json:"name"`
	Scale       Scale  `json:"scale"`
	Description string `json:"description,omitempty"`
}
