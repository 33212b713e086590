package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// Newcombe (1998), "Interval estimation for the difference between
// independent proportions: comparison of eleven methods", Statistics in
// Medicine 17:873–890, Table II, method 10 (the hybrid score interval),
// examples (a) and (b), published to four decimals.
func TestNewcombeIndependentPublished(t *testing.T) {
	for _, c := range []struct {
		x1, n1, x2, n2  int
		diff, low, high float64
	}{
		{56, 70, 48, 80, 0.2, 0.0524, 0.3339},
		{9, 10, 3, 10, 0.6, 0.1705, 0.8090},
	} {
		got := NewcombeIndependent(c.x1, c.n1, c.x2, c.n2)
		if math.Abs(got.Value-c.diff) > 1e-12 || math.Abs(got.Low-c.low) > 5e-5 || math.Abs(got.High-c.high) > 5e-5 {
			t.Errorf("%d/%d − %d/%d = %v, want %v [%v, %v]", c.x1, c.n1, c.x2, c.n2, got, c.diff, c.low, c.high)
		}
		// The other way round mirrors it.
		back := NewcombeIndependent(c.x2, c.n2, c.x1, c.n1)
		if math.Abs(back.Value+got.Value) > 1e-12 || math.Abs(back.Low+got.High) > 1e-12 || math.Abs(back.High+got.Low) > 1e-12 {
			t.Errorf("reversed %v, not the mirror of %v", back, got)
		}
	}
	if iv := NewcombeIndependent(3, 4, 0, 0); iv.Defined() || iv.Reason == "" {
		t.Errorf("empty group: %+v", iv)
	}
	// Within [−1, 1] at the extremes.
	if iv := NewcombeIndependent(10, 10, 0, 10); iv.High != 1 || !(iv.Low > 0.6 && iv.Low < 1) {
		t.Errorf("10/10 − 0/10 = %v", iv)
	}
}

// A label written by a script (gavel label's default via) is outside the
// unbiased sample, as a filter's is.
func TestScriptLabelsAreNotUnbiased(t *testing.T) {
	in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}}}
	for i := range 20 {
		via := "random"
		if i >= 4 {
			via = ProvenanceScript
		}
		u := Unit{ItemID: fmt.Sprint(i), Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}}}
		if i < 10 { // the rest judged, not labelled: no census
			u.Labels = []Label{{Annotator: "a", Values: map[string]float64{"correct": float64(i % 2)}, Provenance: via}}
		}
		in.Units = append(in.Units, u)
	}
	sel := Compute(in, Options{Seed: 1, Resamples: -1}).Judges[0].Dimensions[0].Overall.Selection
	if sel.Unbiased != 4 || sel.Filtered != 6 || sel.Fair != 4 || sel.Census {
		t.Errorf("selection = %+v", sel)
	}
}

// Labels written by a script are not said to be "reached through a
// filter": the reason the fair estimates are missing and the warning
// name the script (and both, when filters are there too).
func TestScriptLabelsHaveTheirOwnSentence(t *testing.T) {
	input := func(vias ...string) Input {
		in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}}}
		for i := range 20 {
			u := Unit{ItemID: fmt.Sprint(i), Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}}}
			if i < 10 { // the rest judged, not labelled: no census
				u.Labels = []Label{{Annotator: "a", Values: map[string]float64{"correct": float64(i % 2)}, Provenance: vias[i%len(vias)]}}
			}
			in.Units = append(in.Units, u)
		}
		return in
	}
	for _, c := range []struct {
		vias                   []string
		reason, warning, never string
	}{
		{[]string{ProvenanceScript}, "the labels were written by a script (gavel label), which picks its items for reasons of its own",
			"100% of the labelled items were labelled by a script (gavel label), which picks its items for reasons of its own", "filter"},
		{[]string{"filter:disagreements"}, "the labels were reached through a filter, which picks items unlike the rest",
			"100% of the labelled items were reached through a filter, so", "script"},
		{[]string{ProvenanceScript, "filter:disagreements"}, "the labels were reached through a filter or written by a script (gavel label)",
			"100% of the labelled items were reached through a filter or labelled by a script (gavel label)", "\x00"},
	} {
		o := Compute(input(c.vias...), Options{Seed: 1, Resamples: -1}).Judges[0].Dimensions[0].Overall
		reason, warning := o.Corrected.PassRate.Reason, o.Selection.Warning
		if !strings.HasPrefix(reason, c.reason) || !strings.HasPrefix(warning, c.warning) || strings.Contains(reason+warning, c.never) {
			t.Errorf("%v: reason %q\nwarning %q", c.vias, reason, warning)
		}
	}
}

// Under a guidelines filter every figure of an annotator's reliability
// (decisions, time, fatigue, re-tests, anchoring) counts the decisions
// made under the version kept, as the agreement figures count its labels.
func TestReliabilityUnderGuidelinesFilter(t *testing.T) {
	in := anchoringInput(30, 30)
	ds := in.Labelling.Decisions
	for i := range ds {
		ds[i].Guidelines = 1 + int64(i%3)/2 // 1, 1, 2, …: 40 under 1, 20 under 2
	}
	in.Labelling.Guidelines = GuidelinesInput{
		Filter:   GuidelinesFilter{Filter: FilterVersion, Version: 2},
		Versions: []GuidelinesVersion{{ID: 1}, {ID: 2}},
	}
	r := Compute(in, Options{Seed: 1, Resamples: -1}).Labelling.Annotators[0]
	// Version 2: decisions 2, 5, …, 59 (20), taking as many seconds as
	// their number: the median is 30.5.
	if r.Decisions != 20 || r.Timed != 20 || r.MedianSeconds.Value != 30.5 {
		t.Errorf("reliability = %+v", r)
	}
	if f := r.Fatigue; f == nil || f.First.Decisions+f.Last.Decisions != 10 {
		t.Errorf("fatigue = %+v", f)
	}
	for _, a := range r.Anchoring {
		if a.Blind.N+a.Shown.N != 20 {
			t.Errorf("anchoring = %+v", a)
		}
	}
}

// anchoringInput is one judge, 60 items with verdict YES, and one
// annotator's decisions: blind ones agreeing on blindAgreed of 30, shown
// ones on shownAgreed of 30.
func anchoringInput(blindAgreed, shownAgreed int) Input {
	in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}}}
	li := &LabellingInput{}
	for i := range 60 {
		id := fmt.Sprint("i", i)
		in.Units = append(in.Units, Unit{ItemID: id, Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}}})
		shown, shownJudge, agree := ShownBlind, "", i < blindAgreed
		if i >= 30 {
			shown, shownJudge, agree = ShownVerdict, "j", i-30 < shownAgreed
		}
		v := 0.0
		if agree {
			v = 1
		}
		li.Decisions = append(li.Decisions, Decision{Group: int64(i + 1), Annotator: "ann", ItemID: id, Kind: KindLabel,
			Dimension: "correct", Value: v, HasValue: true, Shown: shown, ShownJudge: shownJudge, Seconds: float64(i), Timed: true, Sitting: "s1"})
	}
	in.Labelling = li
	return in
}

// A large difference (at least 10 points, interval clear of 0) gets a
// plain sentence; a small one none.
func TestAnchoringLargeSentence(t *testing.T) {
	rep := Compute(anchoringInput(15, 27), Options{Seed: 1, Resamples: -1})
	a := rep.Labelling.Annotators[0].Anchoring[0]
	want := NewcombeIndependent(27, 30, 15, 30)
	if a.Difference != want || !a.Large || !strings.Contains(a.Sentence, "40 points more often") {
		t.Errorf("anchoring = %+v", a)
	}
	rep = Compute(anchoringInput(25, 27), Options{Seed: 1, Resamples: -1})
	if a := rep.Labelling.Annotators[0].Anchoring[0]; a.Large || a.Sentence != "" {
		t.Errorf("a 6.7-point difference is called large: %+v", a)
	}
	rep = Compute(anchoringInput(27, 15), Options{Seed: 1, Resamples: -1})
	if a := rep.Labelling.Annotators[0].Anchoring[0]; !a.Large || !strings.Contains(a.Sentence, "less often") {
		t.Errorf("anchoring = %+v", a)
	}
}

// Time per decision: the median leaves pauses out; fatigue compares the
// first and last quarters of each sitting of 4 or more decisions.
func TestDecisionTimeAndFatigue(t *testing.T) {
	in := anchoringInput(30, 30)
	ds := in.Labelling.Decisions
	ds[59].Seconds = PauseSeconds + 1
	for i := range ds[40:] {
		ds[40+i].Sitting = "s2" // a second sitting of 20
	}
	ds[0].Sitting = "" // not recorded
	rep := Compute(in, Options{Seed: 1, Resamples: -1})
	r := rep.Labelling.Annotators[0]
	if r.Decisions != 60 || r.Timed != 59 || r.Paused != 1 || r.MedianSeconds.Value != 29 {
		t.Errorf("reliability = %+v", r)
	}
	// s1: decisions 1–39 (39, a quarter is 9): 1–9 and 31–39; s2: 40–59
	// (20, a quarter is 5): 40–44 and 55–59, 59 a pause. Decision i took i
	// seconds: medians of 1–9, 40–44 and of 31–39, 55–58.
	f := r.Fatigue
	if f.Sittings != 2 || f.First.Decisions != 14 || f.Last.Decisions != 14 {
		t.Fatalf("fatigue = %+v", f)
	}
	if f.First.MedianSeconds.Value != 7.5 || f.Last.MedianSeconds.Value != 37 {
		t.Errorf("medians %v, %v", f.First.MedianSeconds, f.Last.MedianSeconds)
	}
	if j := f.First.Judges[0]; j.N != 14 || j.Agreed != 14 {
		t.Errorf("first quarter agreement %+v", j)
	}
}

// Decisions a script wrote (gavel label: a sitting, nothing on how it was
// made) are not key presses: an annotator who also labelled on the screen
// keeps the screen's decisions, time and sittings alone (tour finding:
// eight gavel label calls raised "decisions" from 32 to 40).
func TestScriptDecisionsAreNotCounted(t *testing.T) {
	in := anchoringInput(30, 30)
	live := len(in.Labelling.Decisions)
	for i := range 8 {
		in.Labelling.Decisions = append(in.Labelling.Decisions, Decision{Group: int64(1000 + i), Annotator: "ann",
			ItemID: in.Labelling.Decisions[i].ItemID, Kind: KindLabel, Dimension: in.Labelling.Decisions[i].Dimension,
			Value: 1, HasValue: true, Sitting: "script"})
	}
	rep := Compute(in, Options{Seed: 1, Resamples: -1})
	r := rep.Labelling.Annotators[0]
	if r.Decisions != live || r.Timed != live {
		t.Errorf("decisions %d, timed %d; want %d live ones", r.Decisions, r.Timed, live)
	}
	if r.Fatigue.Sittings != 1 {
		t.Errorf("sittings %d: the script's sitting counted", r.Fatigue.Sittings)
	}
}

// A report without labelling input, or with one that says nothing about
// the units reported on, has no labelling section.
func TestLabellingOmitted(t *testing.T) {
	in := anchoringInput(10, 10)
	for i := range in.Labelling.Decisions {
		in.Labelling.Decisions[i].ItemID = "elsewhere" // another part of a split
	}
	if rep := Compute(in, Options{Seed: 1}); rep.Labelling != nil {
		t.Errorf("labelling = %+v", rep.Labelling)
	}
	in.Labelling = nil
	if rep := Compute(in, Options{Seed: 1}); rep.Labelling != nil || rep.Guidelines.Filter != FilterAll {
		t.Errorf("labelling = %+v, guidelines %+v", rep.Labelling, rep.Guidelines)
	}
}

// labellingFixture is anchoringInput with every part of the labelling
// section: guidelines under a filter, "can't judge" marks, tags and
// re-tests.
func labellingFixture() Input {
	in := anchoringInput(20, 27)
	li := in.Labelling
	li.Guidelines = GuidelinesInput{
		Filter: GuidelinesFilter{Filter: FilterCurrent, Version: 2},
		Versions: []GuidelinesVersion{
			{ID: 1, SHA256: strings.Repeat("1", 64), FirstSeen: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Labels: 4},
			{ID: 2, SHA256: strings.Repeat("2", 64), FirstSeen: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC), Labels: 60},
		},
		WithoutGuidelines: 1, LeftOut: 5,
	}
	for i := range li.Decisions {
		li.Decisions[i].Guidelines = 2
	}
	li.CantJudge = []CantJudgeMark{{ItemID: "i3", Annotator: "ann", Reason: ReasonAmbiguous}, {ItemID: "i40", Annotator: "bob", Reason: ReasonOther}}
	li.CantJudgeLabels = 1
	li.TagSet = []string{"too strict", "format"}
	li.Tags = []TagMark{{ItemID: "i20", Annotator: "ann", Tag: "format"}, {ItemID: "i59", Annotator: "bob", Tag: "hallucinated gold"}}
	for k, i := range []int{1, 2, 31, 32} {
		li.Decisions = append(li.Decisions, Decision{Group: int64(100 + k), Annotator: "ann", ItemID: fmt.Sprint("i", i), Kind: KindLabel,
			Dimension: "correct", Value: float64(k % 2), HasValue: true, Shown: ShownBlind, Retest: true, Seconds: 3, Timed: true, Sitting: "s2", Guidelines: 2})
	}
	return in
}

// TestLabellingGolden pins the JSON shape of the labelling section, as
// TestReportGolden does the rest. Rewrite it with
// go test -run TestLabellingGolden -update.
func TestLabellingGolden(t *testing.T) {
	r := Compute(labellingFixture(), Options{Seed: 1, Resamples: 200})
	got, err := json.MarshalIndent(struct {
		Guidelines GuidelinesFilter `json:"guidelines"`
		Labelling  *Labelling       `json:"labelling"`
	}{r.Guidelines, r.Labelling}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "labelling.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if err := sameJSON(got, want); err != nil {
		t.Errorf("labelling JSON differs from %s: %v; if the change is intended, run with -update and say so in the commit", path, err)
	}
}
