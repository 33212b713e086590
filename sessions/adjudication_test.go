package sessions

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// adjudicated is an adjudicator's label.
func adjudicated(item, dim string, v float64) Action {
	a := label(item, dim, v)
	a.Via = ViaAdjudication
	return a
}

// TestAdjudicationInSession: a session's adjudications reach the
// statistics as such, each label on their items with its order; the
// latest adjudication is the reference, an undone one is not, a label
// changed after it puts the item back in the queue; an adjudicator who
// had rated an item on two dimensions and adjudicates one keeps the other
// as a rating; ItemLabels and Adjudicate tell the same; the few-shot
// examples take the adjudicated label.
func TestAdjudicationInSession(t *testing.T) {
	s, path := newSession(t)
	info := judge.Info{Name: "j", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}, {Name: "fluent", Scale: judge.Binary}}}
	if _, err := s.EnsureRun(info); err != nil {
		t.Fatal(err)
	}
	rec := func(who string, acts ...Action) {
		t.Helper()
		if _, err := s.RecordAs(who, acts); err != nil {
			t.Fatal(err)
		}
	}
	rec("ann", label("q1", "correct", 1), label("q1", "fluent", 1))
	rec("bo", label("q1", "correct", 0), label("q1", "fluent", 1))
	rec("ann", label("q2", "correct", 1))
	rec("bo", label("q2", "correct", 0))
	rec("cy", label("q3", "correct", 1))
	rec("bo", label("q3", "correct", 0))

	// q1: dana settles it YES, then eve NO (the latest).
	rec("dana", adjudicated("q1", "correct", 1))
	rec("eve", adjudicated("q1", "correct", 0))
	// q2: ann, a rater, adjudicates correct NO: it replaces her label.
	rec("ann", adjudicated("q2", "correct", 0))
	// q3: dana settles it, then bo changes his mind: waiting again.
	rec("dana", adjudicated("q3", "correct", 0))
	rec("bo", label("q3", "correct", 1))
	rec("bo", label("q3", "correct", 0))

	type want struct {
		ref         float64
		tie         bool
		adjudicated int
		waiting     int
	}
	check := func(what string, refs map[string]want, adjudicatedN, waitingN int) {
		t.Helper()
		in, err := s.StatsInput()
		if err != nil {
			t.Fatal(err)
		}
		d := info.Dimensions[0]
		got := stats.References(in, d)
		for u, unit := range in.Units {
			w, ok := refs[unit.ItemID]
			if !ok || unit.Criterion != 0 {
				continue
			}
			if r := got[u]; r.Tie != w.tie || !w.tie && r.Value != w.ref {
				t.Errorf("%s: %s's reference %+v, want %v (tie %v)", what, unit.ItemID, r, w.ref, w.tie)
			}
		}
		rep := stats.Compute(in, stats.Options{Resamples: -1})
		var h stats.HumanAgreement
		for _, x := range rep.Humans {
			if x.Dimension == "correct" {
				h = x
			}
		}
		if h.Adjudicated != adjudicatedN || h.AwaitingAdjudication != waitingN {
			t.Errorf("%s: %d adjudicated, %d waiting; want %d, %d", what, h.Adjudicated, h.AwaitingAdjudication, adjudicatedN, waitingN)
		}
		if slices.ContainsFunc(h.Annotators, func(a string) bool { return a == "dana" || a == "eve" }) {
			t.Errorf("%s: the adjudicators are among the annotators: %q", what, h.Annotators)
		}
	}
	// q2: ann's label is now her adjudication: bo alone rates it.
	check("adjudicated", map[string]want{"q1": {ref: 0}, "q2": {ref: 0}, "q3": {ref: 0}}, 3, 1)

	for _, id := range []string{"q1", "q2", "q3"} {
		ls, err := s.ItemLabels(id)
		if err != nil {
			t.Fatal(err)
		}
		var key []Label
		for _, l := range ls {
			if l.Dimension == "correct" {
				key = append(key, l)
			}
		}
		k := Adjudicate(key)
		want := map[string]string{
			"q1": "disagree true, adjudicated true 0 by eve, waiting false",
			"q2": "disagree false, adjudicated true 0 by ann, waiting false",
			"q3": "disagree true, adjudicated true 0 by dana, waiting true",
		}[id]
		if got := fmt.Sprintf("disagree %v, adjudicated %v %v by %s, waiting %v", k.Disagree, k.Adjudicated, k.Value, k.By, k.Waiting); got != want {
			t.Errorf("%s: %s\nwant %s", id, got, want)
		}
	}

	// eve undoes hers: dana's is the reference again; dana undoes hers on
	// q3: the tie... (bo NO, cy YES) is back.
	eve := openStore(t, path, "eve")
	if _, err := eve.Undo(); err != nil {
		t.Fatal(err)
	}
	check("eve's undone", map[string]want{"q1": {ref: 1}, "q2": {ref: 0}, "q3": {ref: 0}}, 3, 1)
	dana := openStore(t, path, "dana")
	if _, err := dana.UndoItem("q3"); err != nil {
		t.Fatal(err)
	}
	check("dana's on q3 undone", map[string]want{"q1": {ref: 1}, "q2": {ref: 0}, "q3": {tie: true}}, 2, 1)

	// ann's fluent label on q1 stays hers when she adjudicates correct.
	rec("ann", adjudicated("q1", "correct", 0))
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	var q1 []string
	for _, u := range in.Units {
		if u.ItemID == "q1" && u.Criterion == 0 {
			for _, l := range u.Labels {
				q1 = append(q1, fmt.Sprintf("%s %s %v seq>0 %v", l.Annotator, l.Provenance, l.Values, l.Seq > 0))
			}
		}
	}
	wantQ1 := []string{
		"ann order map[fluent:1] seq>0 true",
		"ann adjudication map[correct:0] seq>0 true",
		"bo order map[correct:0 fluent:1] seq>0 true",
		"dana adjudication map[correct:1] seq>0 true",
	}
	if !slices.Equal(q1, wantQ1) {
		t.Errorf("q1's labels:\n%q\nwant\n%q", q1, wantQ1)
	}
}

// TestAdjudicationFewShot: an adjudicated calibration item is an example
// with its adjudicated label, a tie included; the adjudication is no
// person's label in the majority.
func TestAdjudicationFewShot(t *testing.T) {
	s, _, parts := fewShotSession(t, 80, 7, 0.5)
	cal := parts[PartCalibration]
	rec := func(who string, acts ...Action) {
		t.Helper()
		if _, err := s.RecordAs(who, acts); err != nil {
			t.Fatal(err)
		}
	}
	rec("ann", label(cal[0], "correct", 1))
	rec("bob", label(cal[0], "correct", 0)) // a tie, settled NO
	rec("dana", adjudicated(cal[0], "correct", 0))
	rec("ann", label(cal[1], "correct", 1))
	rec("bob", label(cal[1], "correct", 1))
	rec("cy", label(cal[1], "correct", 0)) // majority YES, adjudicated NO
	rec("dana", adjudicated(cal[1], "correct", 1))
	rec("eve", adjudicated(cal[1], "correct", 0))
	rec("ann", label(cal[2], "correct", 1))
	rec("bob", label(cal[2], "correct", 0)) // a tie, unsettled: no example
	correct := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	for _, packed := range []bool{true, false} {
		setPacked(t, packed)
		ex, err := s.FewShot(correct, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, e := range ex {
			got[e.Item.ID] = e.Labels["correct"]
		}
		if want := map[string]float64{cal[0]: 0, cal[1]: 0}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("packed %v: examples %v, want %v", packed, got, want)
		}
	}
}
