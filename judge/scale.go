package judge

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Scale is the set of values a dimension can take, written as the text
// judge files, sessions and --scale use:
//
//	binary                      YES (1) or NO (0)
//	ternary                     0, 0.5 or 1 (ordinal:0-1 in half steps)
//	likert                      1 to 5 (the same as ordinal:1-5)
//	ordinal:1-10                whole numbers from 1 to 10 (any range of 2 to 101 points)
//	ordinal:1-4:poor,fair,good,excellent   the same with a label per point
//	nominal:CORRECT,INCORRECT,NOT_ATTEMPTED   named categories, no order
//	pairwise                    A, B or tie: which of two responses is better
//	pairwise:notie              A or B, no tie allowed
//
// ParseScale turns any accepted spelling into the canonical one, so two
// dimensions on the same scale compare equal. In Go a value is a float64:
// the number itself on binary and ordinal scales, the category's position
// (0, 1, 2…) on nominal scales, and 0 (A), 0.5 (tie) or 1 (B) on pairwise
// scales, so that the categories run A, tie, B and the mean of a pairwise
// column is the share of preferences for B, ties counting half. Sessions
// store category names, never these positions (see Encode).
type Scale string

const (
	// Binary is YES (1) or NO (0).
	Binary Scale = "binary"
	// Ternary is 0, 0.5 or 1: no, partial or full compliance.
	Ternary Scale = "ternary"
	// Likert is an integer from 1 to 5.
	Likert Scale = "likert"
	// Pairwise is a preference between two responses: A, B or tie.
	Pairwise Scale = "pairwise"
	// PairwiseNoTie is a preference that must pick A or B.
	PairwiseNoTie Scale = "pairwise:notie"
)

// ScaleKind is the family a scale belongs to; statistics follow it.
type ScaleKind string

// The kinds of scale.
const (
	KindBinary   ScaleKind = "binary"
	KindOrdinal  ScaleKind = "ordinal"
	KindNominal  ScaleKind = "nominal"
	KindPairwise ScaleKind = "pairwise"
)

// Pairwise values.
const (
	PreferA   = 0.0
	PreferTie = 0.5
	PreferB   = 1.0
)

// maxOrdinalPoints bounds an ordinal range (0–100 is the widest anyone
// rates on); maxCategories bounds a nominal scale.
const (
	maxOrdinalPoints = 101
	maxCategories    = 64
)

// scaleSpec is a parsed scale.
type scaleSpec struct {
	kind   ScaleKind
	values []float64 // ascending
	names  []string  // per value: what a reviewer reads
	labels []string  // ordinal: optional label per point
	valid  bool
	err    error
}

var specs sync.Map // Scale → *scaleSpec

// spec returns the parsed form of s (cached: scales are few and parsed often).
func (s Scale) spec() *scaleSpec {
	if v, ok := specs.Load(s); ok {
		return v.(*scaleSpec)
	}
	sp := parseSpec(string(s))
	specs.Store(s, sp)
	return sp
}

// ParseScale reads a scale as written in judge files, sessions and
// --scale, and returns its canonical spelling.
func ParseScale(name string) (Scale, error) {
	sp := parseSpec(name)
	if !sp.valid {
		return "", sp.err
	}
	return canonical(sp), nil
}

// scaleForms is the reminder every scale error ends with.
const scaleForms = "write binary, ternary, likert, ordinal:1-10 (any range, optionally ordinal:1-4:poor,fair,good,excellent), nominal:CAT1,CAT2,… or pairwise (pairwise:notie when a tie is not allowed)"

func parseSpec(text string) *scaleSpec {
	t := strings.TrimSpace(text)
	kind, rest, _ := strings.Cut(t, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	bad := func(format string, args ...any) *scaleSpec {
		return &scaleSpec{err: fmt.Errorf("scale %q: %s; %s", text, fmt.Sprintf(format, args...), scaleForms)}
	}
	switch kind {
	case "binary", "yesno", "yes/no":
		if rest != "" {
			return bad("binary takes no arguments")
		}
		return &scaleSpec{kind: KindBinary, values: []float64{0, 1}, names: []string{"NO", "YES"}, valid: true}
	case "ternary":
		if rest != "" {
			return bad("ternary takes no arguments")
		}
		return &scaleSpec{kind: KindOrdinal, values: []float64{0, 0.5, 1}, names: []string{"0", "0.5", "1"}, valid: true}
	case "likert":
		if rest != "" {
			return bad("likert is 1 to 5 and takes no arguments; for another range write ordinal:1-7")
		}
		return ordinalSpec(1, 5, nil)
	case "ordinal":
		rng, labels, hasLabels := strings.Cut(rest, ":")
		lo, hi, err := parseRange(rng)
		if err != nil {
			return bad("%v", err)
		}
		var ls []string
		if hasLabels {
			ls = splitNames(labels)
			if len(ls) != hi-lo+1 {
				return bad("%d labels for %d points", len(ls), hi-lo+1)
			}
			if dup := duplicateName(ls); dup != "" {
				return bad("the label %q appears twice", dup)
			}
		}
		return ordinalSpec(lo, hi, ls)
	case "nominal", "categorical", "categories":
		names := splitNames(rest)
		switch {
		case len(names) < 2:
			return bad("a nominal scale names at least two categories, separated by commas")
		case len(names) > maxCategories:
			return bad("%d categories, more than %d", len(names), maxCategories)
		}
		for _, n := range names {
			if n == "" {
				return bad("a category name is empty")
			}
			if strings.ContainsAny(n, ":\n\t") {
				return bad("category %q holds a colon, tab or line break", n)
			}
		}
		if dup := duplicateName(names); dup != "" {
			return bad("the category %q appears twice (names are compared ignoring case)", dup)
		}
		sp := &scaleSpec{kind: KindNominal, names: names, valid: true}
		for i := range names {
			sp.values = append(sp.values, float64(i))
		}
		return sp
	case "pairwise", "preference":
		switch strings.ToLower(strings.TrimSpace(rest)) {
		case "", "tie", "ties":
			return &scaleSpec{kind: KindPairwise, values: []float64{PreferA, PreferTie, PreferB}, names: []string{"A", "tie", "B"}, valid: true}
		case "notie", "no-tie", "noties":
			return &scaleSpec{kind: KindPairwise, values: []float64{PreferA, PreferB}, names: []string{"A", "B"}, valid: true}
		}
		return bad("pairwise takes no argument, or notie")
	case "":
		return bad("no scale given")
	}
	return bad("unknown kind %q", kind)
}

func ordinalSpec(lo, hi int, labels []string) *scaleSpec {
	sp := &scaleSpec{kind: KindOrdinal, labels: labels, valid: true}
	for x := lo; x <= hi; x++ {
		sp.values = append(sp.values, float64(x))
		sp.names = append(sp.names, strconv.Itoa(x))
	}
	return sp
}

// parseRange reads "1-10" (or "1..10", "1–10"); a bare "7" means 1-7.
func parseRange(s string) (lo, hi int, err error) {
	s = strings.TrimSpace(s)
	s = strings.NewReplacer("–", "-", "..", "-", " to ", "-").Replace(s)
	a, b, found := strings.Cut(s, "-")
	if !found {
		a, b = "1", a
	}
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("the range %q is not two whole numbers such as 1-10", s)
	case lo < 0:
		return 0, 0, fmt.Errorf("the range %q starts below 0", s)
	case hi <= lo:
		return 0, 0, fmt.Errorf("the range %q needs at least two points, low to high", s)
	case hi-lo+1 > maxOrdinalPoints:
		return 0, 0, fmt.Errorf("the range %q has more than %d points", s, maxOrdinalPoints)
	}
	return lo, hi, nil
}

func splitNames(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func duplicateName(names []string) string {
	seen := map[string]bool{}
	for _, n := range names {
		k := strings.ToLower(n)
		if seen[k] {
			return n
		}
		seen[k] = true
	}
	return ""
}

// canonical writes a parsed scale the one way sessions store it.
func canonical(sp *scaleSpec) Scale {
	switch sp.kind {
	case KindBinary:
		return Binary
	case KindPairwise:
		if len(sp.values) == 2 {
			return PairwiseNoTie
		}
		return Pairwise
	case KindNominal:
		return Scale("nominal:" + strings.Join(sp.names, ","))
	}
	if len(sp.values) == 3 && sp.values[1] == 0.5 {
		return Ternary
	}
	lo, hi := int(sp.values[0]), int(sp.values[len(sp.values)-1])
	if lo == 1 && hi == 5 && sp.labels == nil {
		return Likert
	}
	s := fmt.Sprintf("ordinal:%d-%d", lo, hi)
	if sp.labels != nil {
		s += ":" + strings.Join(sp.labels, ",")
	}
	return Scale(s)
}

// Known reports whether s is a scale this build reads.
func (s Scale) Known() bool { return s.spec().valid }

// Err says why s is not a known scale (nil when it is).
func (s Scale) Err() error { return s.spec().err }

// Kind is the scale's family, "" for an unknown scale.
func (s Scale) Kind() ScaleKind { return s.spec().kind }

// Values lists every value of the scale in ascending order.
func (s Scale) Values() []float64 { return s.spec().values }

// Points is the number of values.
func (s Scale) Points() int { return len(s.spec().values) }

// Valid reports whether v is one of the scale's values.
func (s Scale) Valid(v float64) bool { return s.Index(v) >= 0 }

// Index is v's position among Values, or -1.
func (s Scale) Index(v float64) int {
	for i, x := range s.spec().values {
		if x == v {
			return i
		}
	}
	return -1
}

// Ordinal reports whether the scale's values have an order worth using
// (ordinal statistics apply). Binary scales are treated as nominal, and
// so are pairwise ones: A, tie and B are categories.
func (s Scale) Ordinal() bool { return s.Kind() == KindOrdinal }

// Categorical reports whether the scale's values are names (nominal and
// pairwise scales): sessions store the name, and no mean is taken of them
// except the pairwise share of B.
func (s Scale) Categorical() bool {
	k := s.Kind()
	return k == KindNominal || k == KindPairwise
}

// Numeric reports whether a mean of the values means something: a pass
// rate (binary), a mean score (ordinal) or the share of B (pairwise).
func (s Scale) Numeric() bool {
	k := s.Kind()
	return k == KindBinary || k == KindOrdinal || k == KindPairwise
}

// AllowsTie reports whether a pairwise scale has a tie.
func (s Scale) AllowsTie() bool { return s.Kind() == KindPairwise && s.Points() == 3 }

// Names lists what a reviewer reads for each value, in the order of Values:
// NO, YES; the numbers; the categories; A, tie, B.
func (s Scale) Names() []string { return s.spec().names }

// Labels lists an ordinal scale's labels per point, nil when it has none.
func (s Scale) Labels() []string { return s.spec().labels }

// Format renders a value the way a reviewer reads it: YES/NO for binary,
// the number on ordinal scales, the category, or A / B / tie. NaN (no
// value) renders as "—", a value off the scale as its number.
func (s Scale) Format(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	sp := s.spec()
	if sp.kind == KindBinary {
		if v >= 0.5 {
			return "YES"
		}
		return "NO"
	}
	if i := s.Index(v); i >= 0 {
		return sp.names[i]
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Describe names the scale's values for messages and help: "YES / NO",
// "0 / 0.5 / 1", "1–10", "A / B / tie", "CORRECT / INCORRECT / NOT_ATTEMPTED".
func (s Scale) Describe() string {
	sp := s.spec()
	switch {
	case !sp.valid:
		return string(s)
	case sp.kind == KindBinary:
		return "YES / NO"
	case sp.kind == KindPairwise && len(sp.values) == 3:
		return "A / B / tie"
	case sp.kind == KindOrdinal && len(sp.values) > 3:
		return sp.names[0] + "–" + sp.names[len(sp.names)-1]
	}
	return strings.Join(sp.names, " / ")
}

// Encode is the value as a session stores it: the number on binary and
// ordinal scales, the category's name on nominal and pairwise scales.
// ok is false for a value off the scale.
func (s Scale) Encode(v float64) (any, bool) {
	i := s.Index(v)
	if i < 0 {
		return nil, false
	}
	if s.Categorical() {
		return s.spec().names[i], true
	}
	return v, true
}

// Decode reads a value as a session stores it (see Encode): a number or
// a name. Sessions written before schema v3 hold numbers only.
func (s Scale) Decode(x any) (float64, bool) {
	switch t := x.(type) {
	case float64:
		if s.Categorical() {
			// A category named like a number ("1") is stored by SQLite as
			// one; match it by name.
			return s.Read(strconv.FormatFloat(t, 'f', -1, 64))
		}
		return t, s.Valid(t)
	case int64:
		return s.Decode(float64(t))
	case string:
		return s.Read(t)
	case []byte:
		return s.Read(string(t))
	}
	return 0, false
}

// Read reads a value as people and files write it on this scale: YES/NO,
// true/false and 1/0 on binary scales; the number (or its label) on
// ordinal ones; the category's name, ignoring case, on nominal ones; and
// A, B or tie on pairwise ones, in the spellings of common datasets
// (a/b, 1/2 with 0 for tie, "Tie", "equal", model_a/model_b, Chatbot
// Arena's "tie (bothbad)"). ok is false when the text is not on the scale.
func (s Scale) Read(text string) (float64, bool) {
	sp := s.spec()
	if !sp.valid {
		return 0, false
	}
	t := strings.TrimSpace(text)
	low := strings.ToLower(strings.Trim(t, " \t\r\n*_`'\".!"))
	switch sp.kind {
	case KindBinary:
		switch low {
		case "yes", "true", "1", "1.0", "y", "t", "pass", "correct":
			return 1, true
		case "no", "false", "0", "0.0", "n", "f", "fail", "incorrect":
			return 0, true
		}
		return 0, false
	case KindPairwise:
		v, ok := readPreference(low)
		if !ok || !s.Valid(v) {
			return 0, false
		}
		return v, true
	case KindNominal:
		for i, n := range sp.names {
			if strings.EqualFold(n, t) || strings.EqualFold(n, low) {
				return sp.values[i], true
			}
		}
		return 0, false
	}
	if x, err := strconv.ParseFloat(low, 64); err == nil && s.Valid(x) {
		return x, true
	}
	for i, l := range sp.labels {
		if strings.EqualFold(l, low) || strings.EqualFold(l, t) {
			return sp.values[i], true
		}
	}
	return 0, false
}

// readPreference reads the spellings of a pairwise preference, as written
// or without the brackets around it ("[[A]]", "(b)").
func readPreference(low string) (float64, bool) {
	if v, ok := preferenceWord(low); ok {
		return v, true
	}
	return preferenceWord(strings.Trim(low, "[]() "))
}

func preferenceWord(low string) (float64, bool) {
	switch low {
	case "a", "1", "1.0", "model_a", "response_a", "response a", "response1", "response 1", "output_1", "output (a)", "output a", "first", "assistant a", "a>b", "a is better":
		return PreferA, true
	case "b", "2", "2.0", "model_b", "response_b", "response b", "response2", "response 2", "output_2", "output (b)", "output b", "second", "assistant b", "b>a", "b is better":
		return PreferB, true
	case "tie", "0", "0.0", "c", "equal", "draw", "same", "both", "a=b", "tie (bothbad)", "tie(bothbad)", "bothbad", "both bad", "both_bad", "neither":
		return PreferTie, true
	}
	return 0, false
}

// Dimension is one thing a judge rates, such as "correct" or "completeness".
type Dimension struct {
	Name        string `json:"name"`
	Scale       Scale  `json:"scale"`
	Description string `json:"description,omitempty"`
}
