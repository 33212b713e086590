package report

import (
	"html/template"

	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// The page's plan section: `gavel stats`' plan object (a labelling plan's
// design-based estimates), every figure a data-fig of its place under
// "plan", the words render's.

type planView struct {
	Title string
	// Counts is the plan's progress; Figures the estimates; Stop the stop
	// rule's sentence; Sentences the assumption and the design effect's
	// verdict; Notes the plan's notes.
	Counts    []figRow
	Figures   []figRow
	Stop      string
	Sentences []string
	Notes     []string
}

// planView is the plan section; nil when the report has none.
func (d *Data) planView() *planView {
	p := d.Stats.Plan
	if p == nil {
		return nil
	}
	v := &planView{Title: render.PlanTitle(p), Stop: line(render.PlanStopText(p))}
	v.Counts = []figRow{
		{"Items in the plan's dataset", count("plan.items", p.Items)},
		{"Planned (selected)", count("plan.selected", p.Selected)},
		{"Labelled following the plan", count("plan.labelled", p.Labelled)},
		{"Can't judge, or the plan's labels tie", count("plan.nonresponse", p.Nonresponse)},
		{"Not labelled yet", count("plan.pending", p.Pending)},
		{"Labels off the plan on its items (kept apart)", count("plan.off_plan.labels", p.OffPlan.Labels)},
	}
	share := p.Measure != stats.MeasureMeanScore
	mean := func(path string, i stats.Interval) template.HTML {
		if share {
			return pct(path, i)
		}
		return coef(path, i)
	}
	what := render.PlanMeasureText(p)
	judgeScore := pctE("plan.judge_score", p.JudgeScore)
	if !share {
		judgeScore = numE("plan.judge_score", p.JudgeScore, 3)
	}
	half := numE("plan.stop.half_width", p.Stop.HalfWidth, 3)
	if h := p.Stop.HalfWidth; share && h.Defined() {
		half = fig("plan.stop.half_width", unitPoints, render.PlanHalfWidth(p, h.Value), "")
	} else if share {
		half = fig("plan.stop.half_width", unitPoints, stats.Undefined, orUndefined(h.Reason))
	}
	v.Figures = []figRow{
		{"Corrected score (active PPI: every verdict, corrected by the weighted labels)", mean("plan.score", p.Score)},
		{"Human " + what + ", Horvitz–Thompson (labels alone)", mean("plan.human_mean", p.HumanMean)},
		{"Human " + what + ", Hájek (labels alone)", mean("plan.human_mean_hajek", p.HumanMeanHajek)},
		{"The judge's own " + what, judgeScore},
		{"Agreement with the judge", pct("plan.agreement", p.Agreement)},
		{"Design effect against a uniform plan of the same size", numE("plan.design_effect", p.DesignEffect, 2)},
		{"Labels of a uniform plan these are worth", numE("plan.uniform_equivalent", p.UniformEquivalent, 0)},
		{"Corrected score's half-width now (95%)", half},
		{"More planned labels for the width asked", numE("plan.stop.more", p.Stop.More, 0)},
	}
	for _, s := range []string{p.Assumption, p.HumanMeanCaution, p.DesignEffectNote} {
		if s != "" {
			v.Sentences = append(v.Sentences, line(s)+".")
		}
	}
	for _, n := range p.Notes {
		v.Notes = append(v.Notes, line(n))
	}
	return v
}
