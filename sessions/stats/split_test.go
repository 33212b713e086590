package stats

import (
	"reflect"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestReferencesForSplitCounts(t *testing.T) {
	lab := func(who string, v float64) Label {
		return Label{Annotator: who, Values: map[string]float64{"correct": v}}
	}
	in := Input{Units: []Unit{
		{ItemID: "one", Labels: []Label{lab("ann", 1)}},
		{ItemID: "majority", Labels: []Label{lab("ann", 0), lab("bob", 0), lab("cy", 1)}},
		{ItemID: "tie", Labels: []Label{lab("ann", 0), lab("bob", 1)}},
		{ItemID: "none"},
		{ItemID: "off scale", Labels: []Label{lab("ann", 7)}},
		{ItemID: "relabelled", Labels: []Label{lab("ann", 1), lab("ann", 0)}},
		{ItemID: "other dimension", Labels: []Label{{Annotator: "ann", Values: map[string]float64{"fluent": 1}}}},
	}}
	got := References(in, judge.Dimension{Name: "correct", Scale: judge.Binary})
	want := []Reference{
		{Labelled: true, Value: 1},
		{Labelled: true, Value: 0},
		{Labelled: true, Tie: true},
		{},
		{},
		{Labelled: true, Value: 0},
		{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("References:\n%+v\nwant\n%+v", got, want)
	}
}
