package sessions

import (
	"fmt"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The statistics input read on one connection (every beside read failing
// to see tx's moment, as when a review writes meanwhile) is the input read
// on four: the confidences, the histories of two annotators on screen
// (one per connection), marks, tags and the guidelines included.
func TestStatsInputBesideEqualsOneConnection(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	c := 0.7
	if err := ls.ann.SaveVerdicts(ls.run, []judge.Verdict{{ItemID: "i3", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Confidence: &c, At: t0}}); err != nil {
		t.Fatal(err)
	}
	read := func(beside bool) stats.Input {
		saved := besideReads
		besideReads = beside
		defer func() { besideReads = saved }()
		in, err := ls.ann.StatsInput()
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	four, one := read(true), read(false)
	if len(four.Labelling.Decisions) == 0 || len(four.Labelling.CantJudge) == 0 || len(four.Labelling.Tags) == 0 {
		t.Fatalf("the session's labelling input is empty: %+v", four.Labelling)
	}
	if a, b := fmt.Sprintf("%+v", dereferenced(four)), fmt.Sprintf("%+v", dereferenced(one)); a != b {
		t.Errorf("read beside:\n%s\nread in one transaction:\n%s", a, b)
	}
	confident := 0
	for _, u := range four.Units {
		for _, v := range u.Verdicts {
			if v.Confidence != nil && *v.Confidence == c {
				confident++
			}
		}
	}
	if confident != 1 {
		t.Errorf("%d verdicts with the confidence saved, want 1", confident)
	}
}

// dereferenced is in with its verdicts' confidences as values, so that
// two inputs print alike when they hold the same.
func dereferenced(in stats.Input) []any {
	out := []any{in.Judges, in.Dimensions, *in.Labelling}
	for _, u := range in.Units {
		out = append(out, u.ItemID, u.Criterion, u.Segments, u.Labels)
		for _, v := range u.Verdicts {
			conf := -1.0
			if v.Confidence != nil {
				conf = *v.Confidence
			}
			v.Confidence = nil
			out = append(out, v, conf)
		}
	}
	return out
}
