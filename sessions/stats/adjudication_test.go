package stats

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// adj is an adjudicator's label on correct, made at seq.
func adj(who string, v float64, seq int64) Label {
	return Label{Annotator: who, Values: vals{"correct": v}, Provenance: ProvenanceAdjudication, Seq: seq}
}

// rated is a person's label on correct, made at seq.
func rated(who string, v float64, prov string, seq int64) Label {
	return Label{Annotator: who, Values: vals{"correct": v}, Provenance: prov, Seq: seq}
}

// TestAdjudication: an adjudicated label is the unit's reference whatever
// the people's majority or tie says (the latest of several; an undone one
// is no longer in Labels, so the majority is back); it is nobody's label
// between people and changes no unit's selection class; a disagreement
// waits for adjudication until one is made after every person's label.
func TestAdjudication(t *testing.T) {
	cases := []struct {
		name   string
		labels []Label
		// want: the reference (-1 none, -2 a tie), and the counts.
		ref               float64
		adjudicated, wait int
		ties              int
		unbiased, filter  int
		annotators        []string
	}{
		{name: "majority, no adjudication",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 1, "random", 2), rated("cy", 0, "random", 3)},
			ref:    1, wait: 1, unbiased: 1, annotators: []string{"ana", "bo", "cy"}},
		{name: "adjudication beats the majority",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 1, "random", 2), rated("cy", 0, "random", 3), adj("dana", 0, 4)},
			ref:    0, adjudicated: 1, unbiased: 1, annotators: []string{"ana", "bo", "cy"}},
		{name: "a tie, unsettled",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 0, "random", 2)},
			ref:    -2, wait: 1, ties: 1, unbiased: 1, annotators: []string{"ana", "bo"}},
		{name: "a tie settled is no tie",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 0, "random", 2), adj("dana", 1, 3)},
			ref:    1, adjudicated: 1, unbiased: 1, annotators: []string{"ana", "bo"}},
		{name: "the latest adjudication wins",
			labels: []Label{adj("eve", 0, 9), rated("ana", 1, "random", 1), rated("bo", 0, "random", 2), adj("dana", 1, 3)},
			ref:    0, adjudicated: 1, unbiased: 1, annotators: []string{"ana", "bo"}},
		{name: "adjudications of unknown time: the later in the list",
			labels: []Label{rated("ana", 1, "random", 0), rated("bo", 0, "random", 0), adj("dana", 1, 0), adj("eve", 0, 0)},
			ref:    0, adjudicated: 1, unbiased: 1, annotators: []string{"ana", "bo"}},
		{name: "undone: the adjudication is gone, the tie is back",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 0, "random", 2)},
			ref:    -2, wait: 1, ties: 1, unbiased: 1, annotators: []string{"ana", "bo"}},
		{name: "a label changed after the adjudication: waiting again, the adjudication still the reference",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 0, "random", 5), adj("dana", 1, 3)},
			ref:    1, adjudicated: 1, wait: 1, unbiased: 1, annotators: []string{"ana", "bo"}},
		{name: "people who agree need no adjudication, and one made stands",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 1, "random", 2), adj("dana", 0, 3)},
			ref:    0, adjudicated: 1, unbiased: 1, annotators: []string{"ana", "bo"}},
		{name: "the adjudicator as a rater keeps their rating between people",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 0, "random", 2), adj("ana", 0, 3)},
			ref:    0, adjudicated: 1, unbiased: 1, annotators: []string{"ana", "bo"}},
		{name: "a fair sample stays fair",
			labels: []Label{rated("ana", 1, "random", 1), rated("bo", 0, "order", 2), adj("dana", 0, 3)},
			ref:    0, adjudicated: 1, annotators: []string{"ana", "bo"}},
		{name: "a filtered sample stays filtered",
			labels: []Label{rated("ana", 1, "filter:disagreements", 1), rated("bo", 0, "random", 2), adj("dana", 0, 3)},
			ref:    0, adjudicated: 1, filter: 1, annotators: []string{"ana", "bo"}},
		{name: "an adjudication alone is hand-picked",
			labels: []Label{adj("dana", 1, 3)},
			ref:    1, adjudicated: 1, filter: 1, annotators: []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Input{
				Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{correct}}},
				Units:  []Unit{{ItemID: "u1", Verdicts: []Verdict{ok("j", vals{"correct": 1})}, Labels: c.labels}},
			}
			refs := References(in, correct)
			switch r := refs[0]; {
			case c.ref == -2 && !r.Tie, c.ref >= 0 && (r.Tie || !r.Labelled || r.Value != c.ref):
				t.Errorf("reference %+v, want %v", r, c.ref)
			}
			rep := Compute(in, Options{Resamples: -1})
			h := rep.Humans[0]
			if h.Adjudicated != c.adjudicated || h.AwaitingAdjudication != c.wait || h.MajorityTies != c.ties {
				t.Errorf("humans: %d adjudicated, %d waiting, %d ties; want %d, %d, %d", h.Adjudicated, h.AwaitingAdjudication, h.MajorityTies, c.adjudicated, c.wait, c.ties)
			}
			if len(h.Annotators)+len(c.annotators) > 0 && !reflect.DeepEqual(h.Annotators, c.annotators) {
				t.Errorf("annotators %q, want %q", h.Annotators, c.annotators)
			}
			f := rep.Judges[0].Dimensions[0].Overall
			if f.Selection.Unbiased != c.unbiased || f.Selection.Filtered != c.filter {
				t.Errorf("selection: %d unbiased, %d filtered; want %d, %d", f.Selection.Unbiased, f.Selection.Filtered, c.unbiased, c.filter)
			}
			if f.HumanTies != c.ties {
				t.Errorf("judge's human ties %d, want %d", f.HumanTies, c.ties)
			}
			if _, in := f.Selection.ByProvenance[ProvenanceAdjudication]; in != (len(c.annotators) == 0) {
				t.Errorf("by provenance %v: adjudication counted only alone", f.Selection.ByProvenance)
			}
			wantN := 0
			if c.ref >= 0 {
				wantN = 1
			}
			if f.VsHumans.N != wantN {
				t.Fatalf("judge vs humans over %d, want %d", f.VsHumans.N, wantN)
			}
			if b := f.VsHumans.Binary; wantN == 1 && (b.TruePositives+b.FalsePositives != 1 || (b.TruePositives == 1) != (c.ref == 1)) {
				t.Errorf("the judge (YES) was compared with %+v, want the reference %v", b, c.ref)
			}
		})
	}
}

// TestAdjudicationLeavesPeopleAlone: the figures between people are those
// of their labels alone, adjudications or not.
func TestAdjudicationLeavesPeopleAlone(t *testing.T) {
	people := [][]Label{
		{rated("ana", 1, "random", 1), rated("bo", 0, "random", 2)},
		{rated("ana", 1, "random", 3), rated("bo", 1, "random", 4), rated("cy", 0, "random", 5)},
		{rated("ana", 0, "random", 6), rated("cy", 0, "random", 7)},
		{rated("bo", 1, "random", 8), rated("cy", 0, "random", 9)},
	}
	build := func(adjudicate bool) Input {
		in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{correct}}}}
		for k, ls := range people {
			ls = append([]Label(nil), ls...)
			if adjudicate && k != 2 {
				ls = append(ls, adj("dana", 1, 100), adj("ana", 0, 101))
			}
			in.Units = append(in.Units, Unit{ItemID: string(rune('a' + k)), Verdicts: []Verdict{ok("j", vals{"correct": 1})}, Labels: ls})
		}
		return in
	}
	plain := Compute(build(false), Options{Seed: 3, Resamples: 200}).Humans[0]
	judged := Compute(build(true), Options{Seed: 3, Resamples: 200}).Humans[0]
	if judged.Adjudicated != 3 || judged.AwaitingAdjudication != 0 || plain.AwaitingAdjudication != 3 {
		t.Fatalf("adjudicated %d, waiting %d (before: %d); want 3, 0, 3", judged.Adjudicated, judged.AwaitingAdjudication, plain.AwaitingAdjudication)
	}
	judged.Adjudicated, judged.AwaitingAdjudication = plain.Adjudicated, plain.AwaitingAdjudication
	judged.MajorityTies = plain.MajorityTies // a tie settled (the first unit)
	a, _ := json.Marshal(judged)
	b, _ := json.Marshal(plain)
	if string(a) != string(b) {
		t.Errorf("between people with adjudications:\n%s\nwithout:\n%s", a, b)
	}
}

// TestAdjudicationOnPlan: a planned item's response is its adjudication
// when its plan labels disagree; the adjudication is no label off the
// plan.
func TestAdjudicationOnPlan(t *testing.T) {
	v := 1.0
	in := Input{
		Judges:      []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{correct}}},
		PlanDesigns: map[int]string{1: "uniform"},
		Units: []Unit{
			{ItemID: "a", Verdicts: []Verdict{ok("j", vals{"correct": 1})},
				Labels: []Label{rated("ana", 1, "plan:1", 1), rated("bo", 0, "plan:1", 2), adj("dana", 0, 3)}},
			{ItemID: "b", Verdicts: []Verdict{ok("j", vals{"correct": 1})},
				Labels: []Label{rated("ana", 1, "plan:1", 4)}},
		},
		Plan: &PlanInput{ID: 1, Design: "uniform", Judge: "j", Dimension: "correct", Target: 2, Units: []PlanUnit{
			{Unit: 0, Probability: 1, Selected: true, Verdict: &v},
			{Unit: 1, Probability: 1, Selected: true, Verdict: &v},
		}},
	}
	p := Compute(in, Options{Resamples: -1}).Plan
	if p == nil {
		t.Fatal("no plan report")
	}
	if p.Labelled != 2 || p.Nonresponse != 0 || p.OffPlan.Labels != 0 {
		t.Fatalf("plan: %d labelled, %d nonresponse, %d off the plan; want 2, 0, 0", p.Labelled, p.Nonresponse, p.OffPlan.Labels)
	}
	if m := p.HumanMean; m.Value != 0.5 {
		t.Errorf("the plan's human mean %v, want 0.5 (a: adjudicated NO, b: YES)", m.Value)
	}
}
