package render

import (
	"fmt"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

var (
	matchDims  = []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	docqaDims  = []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	likertDims = []judge.Dimension{{Name: "quality", Scale: judge.Likert}}
)

// statsFixture is 40 items rated by three judges (two binary, one
// Likert), with parse errors, samples, a re-judge, three segments and two
// annotators, most labels reached through a filter. The statistics
// screen's tests in tui use the same one.
func statsFixture() stats.Input {
	in := stats.Input{Judges: []stats.JudgeSpec{
		{Key: "match", Dimensions: matchDims},
		{Key: "docqa · gpt-4o", Dimensions: docqaDims},
		{Key: "likert", Dimensions: likertDims},
	}}
	for i := range 40 {
		u := stats.Unit{ItemID: fmt.Sprintf("q%d", i+1), Segments: map[string]string{"category": []string{"a", "b", "c"}[i%3]}}
		u.Verdicts = []stats.Verdict{
			{Judge: "match", Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)}},
			{Judge: "docqa · gpt-4o", Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 3 % 2)},
				Samples: []map[string]float64{{"correct": 1}, {"correct": float64(i % 2)}}},
			{Judge: "likert", Status: judge.StatusOK, Values: map[string]float64{"quality": float64(1 + i%5)}},
		}
		if i%7 == 0 {
			u.Verdicts[0].Status, u.Verdicts[0].Values = judge.StatusParseError, nil
		}
		if i == 1 {
			u.Verdicts = append(u.Verdicts, stats.Verdict{Judge: "match", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}})
		}
		if i < 20 {
			via := "filter:disagreements"
			if i < 5 {
				via = "random"
			}
			u.Labels = []stats.Label{{Annotator: "ana", Values: map[string]float64{"correct": float64(i % 4 % 2), "quality": float64(1 + i%4)}, Provenance: via}}
			if i < 10 {
				u.Labels = append(u.Labels, stats.Label{Annotator: "bob", Values: map[string]float64{"correct": float64(i % 5 % 2), "quality": float64(1 + i%3)}, Provenance: "random"})
			}
		}
		in.Units = append(in.Units, u)
	}
	return in
}

// hostileFixture is statsFixture with a judge name and a segment value
// that try to drive a terminal, break a Markdown table and add markup to
// a page.
func hostileFixture() stats.Input {
	in := statsFixture()
	in.Judges[0].Key = "ma\x1b[31mtch|x<script>alert(1)</script>\u202e"
	for i := range in.Units {
		in.Units[i].Segments["category"] = "c\x1b]0;pwned\x07|`*<i>"
		for k := range in.Units[i].Verdicts {
			if in.Units[i].Verdicts[k].Judge == "match" {
				in.Units[i].Verdicts[k].Judge = in.Judges[0].Key
			}
		}
		for k := range in.Units[i].Labels {
			in.Units[i].Labels[k].Annotator += "<img src=x onerror=alert(1)>&\"'"
		}
	}
	return in
}

// edgeInputs are the cases whose figures are partly undefined: each must
// render with "—" and a reason, never NaN.
func edgeInputs() map[string]stats.Input {
	one := func(n int, verdict func(i int) stats.Verdict, label func(i int) *stats.Label) stats.Input {
		in := stats.Input{Judges: []stats.JudgeSpec{{Key: "match", Dimensions: matchDims}}}
		for i := range n {
			u := stats.Unit{ItemID: fmt.Sprintf("q%d", i+1)}
			if v := verdict(i); v.Judge != "" {
				u.Verdicts = []stats.Verdict{v}
			}
			if l := label(i); l != nil {
				u.Labels = []stats.Label{*l}
			}
			in.Units = append(in.Units, u)
		}
		return in
	}
	ok := func(v float64) stats.Verdict {
		return stats.Verdict{Judge: "match", Status: judge.StatusOK, Values: map[string]float64{"correct": v}}
	}
	lab := func(v float64) *stats.Label {
		return &stats.Label{Annotator: "tester", Values: map[string]float64{"correct": v}, Provenance: "order"}
	}
	return map[string]stats.Input{
		"no items":      one(0, nil, nil),
		"n = 0":         one(6, func(i int) stats.Verdict { return ok(float64(i % 2)) }, func(int) *stats.Label { return nil }),
		"single class":  one(6, func(int) stats.Verdict { return ok(1) }, func(int) *stats.Label { return lab(1) }),
		"perfect":       one(6, func(i int) stats.Verdict { return ok(float64(i % 2)) }, func(i int) *stats.Label { return lab(float64(i % 2)) }),
		"unparseable":   one(6, func(int) stats.Verdict { return stats.Verdict{Judge: "match", Status: judge.StatusParseError} }, func(i int) *stats.Label { return lab(float64(i % 2)) }),
		"no verdicts":   one(4, func(int) stats.Verdict { return stats.Verdict{} }, func(i int) *stats.Label { return lab(1) }),
		"api errors":    one(3, func(int) stats.Verdict { return stats.Verdict{Judge: "match", Status: judge.StatusAPIError} }, func(int) *stats.Label { return nil }),
		"one disagrees": one(2, func(int) stats.Verdict { return ok(1) }, func(i int) *stats.Label { return lab(float64(i)) }),
	}
}
