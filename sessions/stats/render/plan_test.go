package render

import (
	"math"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// planFixture is statsFixture with an active plan of match's verdicts on
// "correct": every fourth item planned, labelled by cy following the plan
// except one marked "can't judge" and one not yet reached; the fixture's
// own labels on planned items are off the plan. The plan's judge name and
// design are hostile, to check they are made inert.
func planFixture(judgeName string) stats.Input {
	in := statsFixture()
	pl := &stats.PlanInput{ID: 3, Design: "active", Seed: 7, Judge: judgeName, Dimension: "correct", Target: 10}
	if judgeName != "match" {
		for i := range in.Judges {
			if in.Judges[i].Key == "match" {
				in.Judges[i].Key = judgeName
			}
		}
		for u := range in.Units {
			for v := range in.Units[u].Verdicts {
				if in.Units[u].Verdicts[v].Judge == "match" {
					in.Units[u].Verdicts[v].Judge = judgeName
				}
			}
		}
	}
	in.Labelling = &stats.LabellingInput{CantJudge: []stats.CantJudgeMark{{ItemID: "q5", Annotator: "cy", Reason: stats.ReasonAmbiguous}}}
	for i := range in.Units {
		v := float64(i % 2)
		prob := 0.2
		if i%3 == 0 {
			prob = 0.3
		}
		pu := stats.PlanUnit{Unit: i, Probability: prob, Selected: i < 20 && i%4 < 2, Verdict: &v}
		if pu.Selected && i != 4 && i != 16 { // 4 (q5) can't be judged, 16 is not reached yet
			y := v
			if i == 8 || i == 13 {
				y = 1 - v
			}
			in.Units[i].Labels = append(in.Units[i].Labels, stats.Label{Annotator: "cy", Values: map[string]float64{"correct": y}, Provenance: "plan:3"})
		}
		pl.Units = append(pl.Units, pu)
	}
	in.Plan = pl
	in.PlanDesigns = map[int]string{3: "active"}
	return in
}

func TestPlanText(t *testing.T) {
	r := stats.Compute(planFixture("match"), stats.Options{Seed: 1, Resamples: 50})
	if r.Plan == nil {
		t.Fatal("no plan section")
	}
	out := TextAt(r, 160)
	for _, want := range []string{
		"Labelling plan 3 · active · judge match · correct (pass rate)\n",
		"  plan                    10 of 40 items planned (seed 7) · 8 labelled · 1 can't judge or tied · 1 not yet\n",
		"  off the plan            16 labels on 10 of its items, kept out of the estimates (their unweighted mean 43.8%)\n",
		"  corrected score         ",
		"  active PPI: every verdict, corrected by the weighted labels\n",
		"  human pass rate (HT)    ",
		"  human pass rate (Hájek) ",
		"  judge's own pass rate   50.0%  over 40 verdicts\n",
		"  agreement with judge    ",
		"  design effect           ",
		"  stop rule               ",
		" now, asked ±5.0 pts: about ",
		"⚠ 2 items of the 10 planned are not labelled (1 can't judge or tied, 1 not yet): the estimates assume they are missing at random",
		"⚠ On an active plan the human-only means (Horvitz–Thompson, Hájek) are less reliable than the corrected score",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	for _, l := range Lines(r, 60) {
		if l.Width() > 60 {
			t.Errorf("line %d cells wide: %q", l.Width(), l.Plain())
		}
	}
}

func TestPlanMarkdown(t *testing.T) {
	r := stats.Compute(planFixture("match"), stats.Options{Seed: 1, Resamples: 50})
	md := Markdown(r)
	for _, want := range []string{
		"\n## Labelling plan 3 · active · judge match · correct (pass rate)\n\n10 of 40 items planned (seed 7) · 8 labelled",
		"| Statistic | Value | 95% interval | Note |",
		"| Corrected score | ",
		"| Human pass rate (HT) | ",
		"| Judge's own pass rate | 50.0% |  | over 40 verdicts |",
		"| Design effect | ",
		"| Stop rule | ",
		"\n⚠ 2 items of the 10 planned are not labelled",
		"\n⚠ On an active plan the human-only means (Horvitz–Thompson, Hájek) are less reliable than the corrected score",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// Hostile names reach no format as they are.
func TestPlanHostile(t *testing.T) {
	in := planFixture(hostileTag)
	in.Plan.Design = "active" // the design is checked; the name is the attack
	r := stats.Compute(in, stats.Options{Seed: 1, Resamples: -1})
	r.Plan.Design = hostileTag // as if a future design name came from the session
	txt, md, h := Text(r), Markdown(r), HTML(r)
	if strings.ContainsAny(txt, "\x1b\x07") {
		t.Errorf("text carries a control character:\n%s", txt)
	}
	if strings.Contains(md, "fo|rm") || strings.Contains(md, "<b>") || strings.Contains(md, "\x1b") {
		t.Errorf("markdown carries the hostile name:\n%s", md)
	}
	if strings.Contains(h, "<b>") || strings.Contains(h, "\x1b") {
		t.Errorf("HTML carries the hostile name:\n%s", h)
	}
	if !strings.Contains(h, "Labelling plan 3") {
		t.Errorf("HTML has no plan section:\n%s", h)
	}
}

// A report without a plan shows nothing of one, in any format.
func TestNoPlanNothingNew(t *testing.T) {
	r := stats.Compute(statsFixture(), stats.Options{Seed: 1, Resamples: -1})
	if strings.Contains(Text(r), "Labelling plan") || strings.Contains(Markdown(r), "Labelling plan") {
		t.Error("a plan section without a plan")
	}
}

// The stop rule's sentences: reached, more labels within the plan, an
// extension, and undefined.
func TestPlanStopText(t *testing.T) {
	p := &stats.PlanReport{Measure: stats.MeasurePassRate, Target: 100, Pending: 10,
		Stop: stats.StopRule{TargetWidth: 0.05, HalfWidth: stats.Estimate{Value: 0.042}, Reached: true, More: stats.Estimate{Value: 0}, PlanSize: stats.Estimate{Value: 90}}}
	for _, tc := range []struct {
		edit func(*stats.PlanReport)
		want string
	}{
		{func(*stats.PlanReport) {}, "reached: ±4.2 pts, asked ±5.0 pts"},
		{func(p *stats.PlanReport) {
			p.Stop.Reached, p.Stop.HalfWidth.Value, p.Stop.More.Value, p.Stop.PlanSize.Value = false, 0.06, 5, 95
		}, "±6.0 pts now, asked ±5.0 pts: about 5 more planned labels (the plan's unlabelled items may be enough)"},
		{func(p *stats.PlanReport) {
			p.Stop.Reached, p.Stop.HalfWidth.Value, p.Stop.More.Value, p.Stop.PlanSize.Value = false, 0.08, 60, 160
		}, "±8.0 pts now, asked ±5.0 pts: about 60 more planned labels (extend the plan from 100 to 160 items)"},
		{func(p *stats.PlanReport) {
			p.Stop.HalfWidth = stats.Estimate{Value: math.NaN(), Reason: "too few"}
		}, "asked ±5.0 pts; — (too few)"},
	} {
		q := *p
		tc.edit(&q)
		if got := PlanStopText(&q); got != tc.want {
			t.Errorf("PlanStopText = %q, want %q", got, tc.want)
		}
	}
}
