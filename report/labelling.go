package report

import (
	"fmt"
	"html/template"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// The page's labelling section: `gavel stats`' labelling object, every
// figure a data-fig of its place under "labelling", the words render's.

type labellingView struct {
	// Filter says which labels the figures count; Versions the guidelines.
	Filter            string
	Versions          []versionRow
	WithoutGuidelines template.HTML
	LeftOut           template.HTML
	// CantJudge are the overall counts, Reasons the reasons' names, and
	// CantJudgeBy each annotator's counts in that order.
	CantJudge   []figRow
	Reasons     []string
	CantJudgeBy []cantJudgeRow
	// TagJudges head the columns of Tags: each judge and its number of
	// disagreements.
	TagJudges  []tagJudge
	Tags       []tagRow
	Annotators []annotatorView
}

type versionRow struct {
	// SHA is the head of the hash, Hash the whole of it (its title).
	ID, FirstSeen, SHA, Hash string
	Labels                   template.HTML
}

type cantJudgeRow struct {
	Annotator string
	Total     template.HTML
	Reasons   []template.HTML
}

type tagJudge struct {
	Name          string
	Items, Tagged template.HTML
}

type tagRow struct {
	Tag   string
	Items template.HTML
	Among []template.HTML
}

type annotatorView struct {
	Name      string
	Groups    []figGroup
	Warnings  []string
	Sentences []string
}

// figGroup is a titled list of figures.
type figGroup struct {
	Title   string
	Figures []figRow
}

// labellingView is the labelling section; nil when the report has none.
func (d *Data) labellingView() *labellingView {
	l := d.Stats.Labelling
	if l == nil {
		return nil
	}
	v := &labellingView{}
	if g := l.Guidelines; g != nil {
		const gp = "labelling.guidelines."
		v.Filter = render.GuidelinesFilterText(g.Filter)
		for k, ver := range g.Versions {
			id := fmt.Sprint(ver.ID)
			if ver.Current {
				id += " (current)"
			}
			v.Versions = append(v.Versions, versionRow{ID: id, FirstSeen: ver.FirstSeen.UTC().Format("2006-01-02 15:04 UTC"), SHA: line(shortHash(ver.SHA256)), Hash: line(ver.SHA256),
				Labels: count(fmt.Sprintf("%sversions.%d.labels", gp, k), ver.Labels)})
		}
		v.WithoutGuidelines = count(gp+"without_guidelines", g.WithoutGuidelines)
		if g.Filter.Filter != stats.FilterAll {
			v.LeftOut = count(gp+"left_out", g.LeftOut)
		}
	}
	if cj := l.CantJudge; cj != nil {
		const cp = "labelling.cant_judge."
		v.CantJudge = []figRow{
			{"Marks (a person, an item)", count(cp+"total", cj.Total)},
			{"Items marked", count(cp+"items", cj.Items)},
			{"Labels left out of every agreement figure", count(cp+"labels_left_out", cj.LabelsLeftOut)},
		}
		for _, r := range render.Reasons(cj.ByReason) {
			v.Reasons = append(v.Reasons, render.ReasonText(r.Reason))
		}
		row := func(name, path string, total int, rc stats.ReasonCounts) cantJudgeRow {
			out := cantJudgeRow{Annotator: name, Total: count(path+"total", total)}
			for _, r := range render.Reasons(rc) {
				out.Reasons = append(out.Reasons, count(path+"by_reason."+r.Reason, r.Count))
			}
			return out
		}
		v.CantJudgeBy = append(v.CantJudgeBy, row("everyone", cp, cj.Total, cj.ByReason))
		for k, a := range cj.ByAnnotator {
			v.CantJudgeBy = append(v.CantJudgeBy, row(line(a.Annotator), fmt.Sprintf("%sby_annotator.%d.", cp, k), a.Total, a.ByReason))
		}
	}
	if tg := l.Tags; tg != nil {
		const tp = "labelling.tags."
		for j, dis := range tg.Disagreements {
			v.TagJudges = append(v.TagJudges, tagJudge{Name: line(dis.Judge),
				Items:  count(fmt.Sprintf("%sdisagreements.%d.items", tp, j), dis.Items),
				Tagged: count(fmt.Sprintf("%sdisagreements.%d.tagged", tp, j), dis.Tagged)})
		}
		for k, t := range tg.Tags {
			row := tagRow{Tag: line(t.Tag), Items: count(fmt.Sprintf("%stags.%d.items", tp, k), t.Items)}
			for j, dis := range tg.Disagreements {
				row.Among = append(row.Among, count(fmt.Sprintf("%sdisagreements.%d.tags.%d.items", tp, j, k), dis.Tags[k].Items))
			}
			v.Tags = append(v.Tags, row)
		}
	}
	for k, a := range l.Annotators {
		v.Annotators = append(v.Annotators, annotatorViewOf(fmt.Sprintf("labelling.annotators.%d.", k), a))
	}
	return v
}

// annotatorViewOf is one annotator's reliability; path is its place in
// the JSON, with a trailing dot.
func annotatorViewOf(path string, a stats.AnnotatorReliability) annotatorView {
	v := annotatorView{Name: line(a.Annotator)}
	// group starts a titled list; add adds to the last one.
	group := func(title string) { v.Groups = append(v.Groups, figGroup{Title: title}) }
	add := func(label string, value template.HTML) {
		g := &v.Groups[len(v.Groups)-1]
		g.Figures = append(g.Figures, figRow{label, value})
	}
	group("Decisions and time")
	add("Decisions", count(path+"decisions", a.Decisions))
	add("Median time per decision", seconds(path+"median_seconds", a.MedianSeconds))
	add("Decisions timed", count(path+"timed", a.Timed))
	add(fmt.Sprintf("Pauses over %d minutes, left out", stats.PauseSeconds/60), count(path+"paused", a.Paused))
	if f := a.Fatigue; f != nil {
		fp := path + "fatigue."
		group("Fatigue: the first against the last quarter of each sitting")
		add("Sittings compared", count(fp+"sittings", f.Sittings))
		for _, q := range []struct {
			name, key string
			q         stats.QuarterFigures
		}{{"First", "first_quarter", f.First}, {"Last", "last_quarter", f.Last}} {
			qp := fp + q.key + "."
			add(q.name+" quarter: decisions", count(qp+"decisions", q.q.Decisions))
			add(q.name+" quarter: median time", seconds(qp+"median_seconds", q.q.MedianSeconds))
			for j, js := range q.q.Judges {
				jp := fmt.Sprintf("%sjudges.%d.", qp, j)
				add(fmt.Sprintf("%s quarter: agreement with %s", q.name, line(js.Judge)), pct(jp+"agreement", js.Agreement))
				add(fmt.Sprintf("%s quarter: labels compared with %s", q.name, line(js.Judge)), count(jp+"n", js.N))
			}
		}
	}
	if len(a.Retest) > 0 {
		group("Re-tests: agreement with oneself, the item shown again blind")
		for k, r := range a.Retest {
			rp := fmt.Sprintf("%sretest.%d.", path, k)
			dim := line(r.Dimension)
			add("Pairs, "+dim, count(rp+"pairs", r.Pairs))
			add("Agreement, "+dim, pct(rp+"percent_agreement", r.PercentAgreement))
			add("Cohen's kappa, "+dim, coef(rp+"cohen_kappa", r.CohenKappa))
			if !r.Stable {
				v.Warnings = append(v.Warnings, fmt.Sprintf("Re-tests on %s are not yet stable: %s, fewer than %d.", dim, pairsText(r.Pairs), stats.MinReliableItems))
			}
		}
	}
	for k, an := range a.Anchoring {
		ap := fmt.Sprintf("%sanchoring.%d.", path, k)
		j := line(an.Judge)
		group("Anchoring on " + j + ": its verdict hidden or shown")
		add("Blind: labels compared", count(ap+"blind.n", an.Blind.N))
		add("Blind: agreement with "+j, pct(ap+"blind.agreement", an.Blind.Agreement))
		add("Shown: decisions compared (accepts included)", count(ap+"shown.n", an.Shown.N))
		add("Shown: agreement with "+j, pct(ap+"shown.agreement", an.Shown.Agreement))
		add("Shown − blind, Newcombe 95% interval", signedI(ap+"difference", judge.Binary, an.Difference))
		if an.Sentence != "" {
			v.Sentences = append(v.Sentences, line(an.Sentence))
		}
	}
	return v
}

// pairsText is "1 pair", "3 pairs".
func pairsText(n int) string {
	if n == 1 {
		return "1 pair"
	}
	return fmt.Sprintf("%d pairs", n)
}

// seconds writes a time per decision: "6.2 s".
func seconds(path string, e stats.Estimate) template.HTML {
	if !e.Defined() {
		return fig(path, unitNumber, stats.Undefined, orUndefined(e.Reason))
	}
	return fig(path, unitNumber, render.Seconds(e), "")
}

// shortHash is the head of a SHA-256, enough to tell versions apart.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}
