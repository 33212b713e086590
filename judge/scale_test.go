package judge

import (
	"math"
	"strings"
	"testing"
)

func TestParseScale(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		kind     ScaleKind
		points   int
	}{
		{"binary", "binary", KindBinary, 2},
		{" Binary ", "binary", KindBinary, 2},
		{"ternary", "ternary", KindOrdinal, 3},
		{"likert", "likert", KindOrdinal, 5},
		{"ordinal:1-5", "likert", KindOrdinal, 5},
		{"ordinal:1-10", "ordinal:1-10", KindOrdinal, 10},
		{"ordinal:0-10", "ordinal:0-10", KindOrdinal, 11},
		{"ordinal:1..7", "ordinal:1-7", KindOrdinal, 7},
		{"ordinal:4", "ordinal:1-4", KindOrdinal, 4},
		{"ordinal:1-4:poor, fair,good,excellent", "ordinal:1-4:poor,fair,good,excellent", KindOrdinal, 4},
		{"nominal:CORRECT, INCORRECT,NOT_ATTEMPTED", "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED", KindNominal, 3},
		{"pairwise", "pairwise", KindPairwise, 3},
		{"Pairwise:tie", "pairwise", KindPairwise, 3},
		{"pairwise:notie", "pairwise:notie", KindPairwise, 2},
	} {
		got, err := ParseScale(tc.in)
		if err != nil || string(got) != tc.want || got.Kind() != tc.kind || got.Points() != tc.points {
			t.Errorf("ParseScale(%q) = %q (%s, %d points), %v; want %q (%s, %d)", tc.in, got, got.Kind(), got.Points(), err, tc.want, tc.kind, tc.points)
		}
	}
}

func TestParseScaleErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no scale given"},
		{"binar", `unknown kind "binar"`},
		{"ordinal:5-1", "at least two points"},
		{"ordinal:x-10", "two whole numbers"},
		{"ordinal:0-500", "more than 101 points"},
		{"ordinal:1-3:a,b", "2 labels for 3 points"},
		{"nominal:A", "at least two categories"},
		{"nominal:A,a", "appears twice"},
		{"nominal:A,,B", "empty"},
		{"pairwise:maybe", "pairwise takes no argument"},
		{"likert:7", "ordinal:1-7"},
	} {
		_, err := ParseScale(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "write binary") {
			t.Errorf("ParseScale(%q) error %v; want one saying %q and listing the forms", tc.in, err, tc.want)
		}
	}
}

func TestScaleRead(t *testing.T) {
	grade := Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED")
	labelled := Scale("ordinal:1-4:poor,fair,good,excellent")
	for _, tc := range []struct {
		scale Scale
		in    string
		want  float64
		ok    bool
	}{
		{Binary, "Yes", 1, true},
		{Binary, "**NO.**", 0, true},
		{Binary, "maybe", 0, false},
		{Ternary, "0.5", 0.5, true},
		{Ternary, "2", 0, false},
		{Scale("ordinal:1-10"), "10", 10, true},
		{Scale("ordinal:1-10"), "0", 0, false},
		{labelled, "Good", 3, true},
		{labelled, "4", 4, true},
		{grade, "not_attempted", 2, true},
		{grade, "CORRECT", 0, true},
		{grade, "wrong", 0, false},
		{Pairwise, "A", PreferA, true},
		{Pairwise, "b", PreferB, true},
		{Pairwise, "1", PreferA, true},
		{Pairwise, "2", PreferB, true},
		{Pairwise, "0", PreferTie, true},
		{Pairwise, "Tie", PreferTie, true},
		{Pairwise, "equal", PreferTie, true},
		{Pairwise, "model_a", PreferA, true},
		{Pairwise, "model_b", PreferB, true},
		{Pairwise, "tie (bothbad)", PreferTie, true},
		{Pairwise, "[[C]]", PreferTie, true},
		{Pairwise, "garbage", 0, false},
		{PairwiseNoTie, "tie", 0, false},
		{PairwiseNoTie, "2", PreferB, true},
	} {
		got, ok := tc.scale.Read(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s.Read(%q) = %v, %v; want %v, %v", tc.scale, tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// Encode and Decode are each other's inverse on every value of a scale,
// and Format names each value.
func TestScaleEncodeDecode(t *testing.T) {
	for _, s := range []Scale{Binary, Ternary, Likert, "ordinal:0-10", "nominal:x,y,z", "nominal:1,2,3", Pairwise, PairwiseNoTie} {
		for i, v := range s.Values() {
			stored, ok := s.Encode(v)
			if !ok {
				t.Fatalf("%s: %v does not encode", s, v)
			}
			if s.Categorical() {
				if stored != s.Names()[i] {
					t.Errorf("%s: %v stored as %#v, want its name %q", s, v, stored, s.Names()[i])
				}
			}
			back, ok := s.Decode(stored)
			if !ok || back != v {
				t.Errorf("%s: %#v decodes to %v, %v; want %v", s, stored, back, ok, v)
			}
			if f := s.Format(v); f == "" || f == "—" {
				t.Errorf("%s: %v formats as %q", s, v, f)
			}
		}
		if _, ok := s.Encode(42.5); ok {
			t.Errorf("%s: a value off the scale encodes", s)
		}
	}
	// SQLite hands back a category named "2" as the number 2.
	if v, ok := Scale("nominal:1,2,3").Decode(2.0); !ok || v != 1 {
		t.Errorf("a numeric category name decodes to %v, %v; want position 1", v, ok)
	}
	if Pairwise.Format(PreferTie) != "tie" || Binary.Format(1) != "YES" || Likert.Format(math.NaN()) != "—" {
		t.Error("Format names values wrongly")
	}
}

func TestScaleKinds(t *testing.T) {
	for _, tc := range []struct {
		s                             Scale
		ordinal, categorical, numeric bool
		describe                      string
	}{
		{Binary, false, false, true, "YES / NO"},
		{Ternary, true, false, true, "0 / 0.5 / 1"},
		{"ordinal:1-10", true, false, true, "1–10"},
		{"nominal:a,b", false, true, false, "a / b"},
		{Pairwise, false, true, true, "A / B / tie"},
		{PairwiseNoTie, false, true, true, "A / B"},
	} {
		if tc.s.Ordinal() != tc.ordinal || tc.s.Categorical() != tc.categorical || tc.s.Numeric() != tc.numeric || tc.s.Describe() != tc.describe {
			t.Errorf("%s: ordinal %v categorical %v numeric %v describe %q", tc.s, tc.s.Ordinal(), tc.s.Categorical(), tc.s.Numeric(), tc.s.Describe())
		}
	}
	if Scale("nonsense").Known() || Scale("nonsense").Values() != nil {
		t.Error("an unknown scale has values")
	}
}

func FuzzParseScale(f *testing.F) {
	for _, s := range []string{"binary", "ordinal:1-10", "ordinal:1-4:a,b,c,d", "nominal:A,B", "pairwise:notie", "ordinal:-1-2", "nominal:,"} {
		f.Add(s, "A")
	}
	f.Fuzz(func(t *testing.T, spec, value string) {
		s, err := ParseScale(spec)
		if err != nil {
			return
		}
		again, err := ParseScale(string(s))
		if err != nil || again != s {
			t.Fatalf("canonical %q parses to %q, %v", s, again, err)
		}
		if v, ok := s.Read(value); ok && !s.Valid(v) {
			t.Fatalf("%s.Read(%q) = %v, off the scale", s, value, v)
		}
	})
}
