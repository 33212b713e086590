package stats

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// The per-segment figures do not depend on whether units share their
// segments maps (scopeOf reads each distinct map once): an input whose
// units share a handful of maps and the same input with a map per unit
// give the same report, units without segments or lacking a field
// included.
func TestScopeSharedSegmentMaps(t *testing.T) {
	combos := []map[string]string{
		{"category": "math", "level": "easy"},
		{"category": "history"},
		nil,
		{"category": "math", "level": "hard"},
		{},
	}
	build := func(share bool) Input {
		in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}}}
		for i := range 200 {
			seg := combos[(i*7)%len(combos)]
			if !share && seg != nil {
				seg = maps.Clone(seg)
			}
			v := float64((i / 3) % 2)
			in.Units = append(in.Units, Unit{ItemID: fmt.Sprint("q", i), Segments: seg,
				Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"correct": v}}},
				Labels:   []Label{{Annotator: "ann", Values: map[string]float64{"correct": float64(i % 2)}, Provenance: "order"}}})
		}
		return in
	}
	opts := Options{Seed: 1, Resamples: 20}
	shared, _ := json.Marshal(Compute(build(true), opts))
	own, _ := json.Marshal(Compute(build(false), opts))
	if string(shared) != string(own) {
		t.Errorf("shared maps give\n%s\nmaps of their own give\n%s", shared, own)
	}
	var rep struct {
		Judges []struct {
			Dimensions []struct {
				Segments []json.RawMessage `json:"segments"`
			} `json:"dimensions"`
		} `json:"judges"`
	}
	if err := json.Unmarshal(shared, &rep); err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Judges[0].Dimensions[0].Segments); n == 0 {
		t.Errorf("no per-segment figures in\n%s", shared)
	}
}

// The notes of the humans' labels and of the scopes, built side by side,
// come in the order of a build one after the other: each dimension's
// humans in the order the judges name them, then the scopes.
func TestPrepareNotesInOrder(t *testing.T) {
	in := Input{Judges: []JudgeSpec{
		{Key: "a", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}, {Name: "stars", Scale: judge.Likert}}},
		{Key: "r", PerCriterion: true, Dimensions: []judge.Dimension{{Name: "met", Scale: judge.Binary}}},
	}}
	for i := range 6 {
		id := fmt.Sprint("q", i)
		in.Units = append(in.Units,
			Unit{ItemID: id, Segments: map[string]string{"topic": fmt.Sprint(i)},
				Labels: []Label{{Annotator: "x", Values: map[string]float64{"correct": 7, "stars": 9}}}},
			Unit{ItemID: id, Criterion: 1, Segments: map[string]string{"topic": fmt.Sprint(i), "kind": fmt.Sprint(i)},
				Labels: []Label{{Annotator: "x", Values: map[string]float64{"met": 3}}}})
	}
	got := Compute(in, Options{Seed: 1, Resamples: -1, MaxSegmentValues: 2}).Notes
	want := []string{
		"Labels with a value off the binary scale of correct were ignored (6 times).",
		"Labels with a value off the likert scale of stars were ignored (6 times).",
		"Labels with a value off the binary scale of met were ignored (6 times).",
		`Segment field "topic" has 6 values, more than 2, and is left out of the per-segment tables (2 times).`,
		`Segment field "kind" has 6 values, more than 2, and is left out of the per-segment tables.`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("notes\n%q\nwant\n%q", got, want)
	}
}
