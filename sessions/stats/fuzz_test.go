package stats

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// byteReader hands out fuzz bytes as small choices, zero once exhausted.
type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return int(r.b[r.i-1])
}

func (r *byteReader) pick(n int) int { return r.next() % n }

// oddValues are the values the fuzzer may put in a verdict or a label:
// every scale's values plus NaN, infinities and values off every scale.
var oddValues = []float64{0, 1, 0.5, 2, 3, 4, 5, math.NaN(), math.Inf(1), math.Inf(-1), -1, 0.25, 7, math.MaxFloat64}

// fuzzInput builds an arbitrary Input from fuzz bytes.
func fuzzInput(data []byte) Input {
	r := &byteReader{b: data}
	scales := []judge.Scale{judge.Binary, judge.Ternary, judge.Likert, "bogus", "",
		judge.Pairwise, judge.PairwiseNoTie, "nominal:x,y,z", "ordinal:0-10"}
	names := []string{"a", "b", "c"}
	judges := []string{"j0", "j1", "j2", "j0"}
	var in Input
	for range r.pick(4) {
		js := JudgeSpec{Key: judges[r.pick(len(judges))], PerCriterion: r.pick(4) == 0}
		for range r.pick(4) {
			js.Dimensions = append(js.Dimensions, judge.Dimension{Name: names[r.pick(3)], Scale: scales[r.pick(len(scales))]})
		}
		in.Judges = append(in.Judges, js)
	}
	values := func() map[string]float64 {
		if r.pick(5) == 0 {
			return nil
		}
		m := map[string]float64{}
		for range r.pick(4) {
			m[names[r.pick(3)]] = oddValues[r.pick(len(oddValues))]
		}
		return m
	}
	statuses := []judge.Status{judge.StatusOK, judge.StatusOK, judge.StatusParseError, judge.StatusAPIError, "weird"}
	provs := []string{"order", "random", "filter:disagreements", "", "filter:", "x"}
	for u := range r.pick(40) {
		unit := Unit{ItemID: string(rune('a' + u%26)), Criterion: r.pick(3) / 2}
		if r.pick(2) == 0 {
			unit.Segments = map[string]string{"cat": names[r.pick(3)]}
			if r.pick(3) == 0 {
				unit.Segments["task"] = string(rune('x' + r.pick(3)))
			}
		}
		for range r.pick(4) {
			v := Verdict{Judge: judges[r.pick(len(judges))], Status: statuses[r.pick(len(statuses))], Values: values(), Swapped: r.pick(3) == 0}
			for range r.pick(3) {
				v.Samples = append(v.Samples, values())
			}
			unit.Verdicts = append(unit.Verdicts, v)
		}
		for range r.pick(4) {
			unit.Labels = append(unit.Labels, Label{Annotator: names[r.pick(3)], Values: values(), Provenance: provs[r.pick(len(provs))]})
		}
		in.Units = append(in.Units, unit)
	}
	return in
}

// FuzzCompute checks that Compute never panics and that its report always
// marshals to valid JSON without NaN, with every interval ordered.
func FuzzCompute(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 0, 0, 2, 30, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add(bytes.Repeat([]byte{1, 7, 0, 3}, 60))
	f.Add(bytes.Repeat([]byte{2, 0, 1, 1, 0, 2, 9}, 80))
	f.Add(bytes.Repeat([]byte{255, 128, 64, 32, 16, 8, 4, 2, 1}, 50))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzInput(data)
		r := Compute(in, Options{Seed: uint64(len(data)), Resamples: 25, SwapDisagreeAsTie: len(data)%2 == 1})
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Inf")) || !json.Valid(b) {
			t.Fatalf("bad JSON: %s", b)
		}
		var back Report
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("unmarshal: %v", err)
		}
		checkIntervals(t, b)
	})
}

// checkIntervals walks the JSON and fails on an interval whose low bound
// is above its high bound or a defined value without a reason-free state.
func checkIntervals(t *testing.T, b []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if _, has := x["value"]; has {
				_, hasReason := x["reason"]
				if (x["value"] == nil) != hasReason {
					t.Errorf("value %v with reason %v", x["value"], x["reason"])
				}
				lo, okLo := x["low"].(float64)
				hi, okHi := x["high"].(float64)
				if okLo && okHi && lo > hi+1e-12 {
					t.Errorf("interval [%v, %v]", lo, hi)
				}
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
}
