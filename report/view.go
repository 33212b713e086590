package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The page's view: what the template lays out, figures already written
// (figures.go) and charts already drawn (charts.go).

type page struct {
	Title      string
	Session    string
	Dataset    string
	Generated  string
	CSS        template.CSS
	CSP        string
	Verdict    []template.HTML
	Warnings   []string
	Table      []tableRow
	TableChart template.HTML
	Judges     []judgeView
	Pairs      []pairsView
	// Graded and Reliability are the operating points of graded judges
	// and their reliability curves (operating.go).
	Graded      []gradedView
	Reliability []reliabilityView
	Humans      []humansView
	Annotators  []Annotator
	// Labelling is how people labelled (labelling.go); nil when the
	// session records none of it.
	Labelling *labellingView
	// Plan is a labelling plan's estimates (plan.go); nil without one.
	Plan      *planView
	Disagree  []disagreeView
	DisagreeN int
	// DisagreeNText is DisagreeN as the page writes it (2,412).
	DisagreeNText string
	// DisagreeShown is how many are listed: fewer than DisagreeN when
	// they were sampled.
	DisagreeShown int
	Provenance    provenance
}

type tableRow struct {
	Rank                                                 int
	Judge, Dimension, Scale, Anchor                      string
	N, Agreement, Kappa, AC1, Bias, FalsePass, FalseFail template.HTML
	Small                                                string
}

type judgeView struct {
	Anchor     string
	Name       string
	Dimensions []dimView
	Extras     []stats.ExtraField
}

type dimView struct {
	Name, Scale   string
	Figures       []figRow
	Classifier    []figRow
	Corrected     []figRow
	Consistency   []figRow
	Needed        []neededRow
	Warning       string
	Small         string
	Charts        []chart
	Segments      []segmentRow
	Swap          []figRow
	Disagreements int
}

type chart struct {
	Kind, Caption string
	SVG           template.HTML
}

type figRow struct {
	Label string
	Value template.HTML
}

type neededRow struct {
	Figure          string
	N, Half, F2, F5 template.HTML
}

type segmentRow struct {
	Field, Value                     string
	Units, N, Agreement, Kappa, Bias template.HTML
}

type pairsView struct {
	Dimension string
	Chart     template.HTML
	Rows      []pairRow
}

type pairRow struct {
	Judge, Reference         string
	N, Agreement, Kappa, AC1 template.HTML
}

type humansView struct {
	Dimension, Scale, Small string
	Pairable                int
	Annotators              []string
	Figures                 []figRow
	Pairs                   []annotatorPairRow
}

type annotatorPairRow struct {
	A, B                string
	N, Agreement, Kappa template.HTML
}

type disagreeView struct {
	ID, Criterion, Rubric, Question, Gold, Prediction, ResponseA, ResponseB string
	Segments                                                                string
	Judges                                                                  string
	// HumanValue is the humans' value the judges were compared with (the
	// first verdict's dimension), for the summary line.
	HumanValue string
	Humans     []HumanLabel
	Verdicts   []Verdict
	Notes      []string
}

type provenance struct {
	Dataset    []kv
	Mapping    []kv
	Runs       []runView
	Labels     []kv
	Settings   []kv
	Annotators []Annotator
}

type kv struct{ Key, Value string }

type runView struct {
	Name, Anchor string
	Facts        []kv
	Definition   string
}

// judgeAnchor is the id of a judge's section.
func judgeAnchor(i int) string { return fmt.Sprintf("judge-%d", i+1) }

func (d *Data) view() (*page, error) {
	p := &page{
		Title:   "Gavel report: " + line(d.Session),
		Session: line(d.Session),
	}
	if d.Dataset != nil {
		p.Dataset = line(baseName(d.Dataset.Path))
		p.Title = "Gavel report: " + p.Dataset
	}
	if !d.Generated.IsZero() {
		p.Generated = d.Generated.UTC().Format("2006-01-02 15:04 UTC")
	}
	p.Verdict = d.verdictParagraph()
	for _, n := range d.Stats.Notes {
		p.Warnings = append(p.Warnings, line(n))
	}
	anchors := map[string]string{}
	for _, j := range d.Judges {
		anchors[j.Report.Judge] = judgeAnchor(j.Index)
	}
	var forest []forestRow
	rows, at := d.tableRows()
	for k, r := range rows {
		path := fmt.Sprintf("judge_table.%d.", at[k])
		p.Table = append(p.Table, tableRow{
			Rank: r.Rank, Judge: line(r.Judge), Dimension: line(r.Dimension), Scale: line(string(r.Scale)), Anchor: anchors[r.Judge],
			N:         count(path+"n", r.N),
			Agreement: pct(path+"percent_agreement", r.PercentAgreement),
			Kappa:     coef(path+"cohen_kappa", r.CohenKappa),
			AC1:       coef(path+"gwet_ac1", r.GwetAC1),
			Bias:      signedI(path+"score_bias", r.Scale, r.ScoreBias),
			FalsePass: pct(path+"false_pass_rate", r.FalsePassRate),
			FalseFail: pct(path+"false_fail_rate", r.FalseFailRate),
			Small:     line(r.SmallSample),
		})
		name := r.Judge
		if multiDimension(rows) {
			name += " · " + r.Dimension
		}
		forest = append(forest, forestRow{name: name, v: r.CohenKappa})
	}
	if len(forest) > 0 {
		svg, err := forestChart(forest, math.NaN(), false, "Cohen's kappa against the humans (95% interval)", "Judges ranked by kappa")
		if err != nil {
			return nil, err
		}
		p.TableChart = svg
	}
	for _, j := range d.Judges {
		jv, err := d.judgeView(j)
		if err != nil {
			return nil, err
		}
		p.Judges = append(p.Judges, jv)
	}
	pairs, err := d.pairsViews()
	if err != nil {
		return nil, err
	}
	p.Pairs = pairs
	if p.Graded, p.Reliability, err = d.gradedViews(); err != nil {
		return nil, err
	}
	p.Humans = d.humansViews()
	p.Annotators = d.Annotators
	p.Labelling = d.labellingView()
	p.Plan = d.planView()
	for _, dis := range d.Disagreements {
		p.Disagree = append(p.Disagree, disagreeViewOf(dis))
	}
	p.DisagreeN = d.DisagreeingItems
	p.DisagreeNText = thousands(d.DisagreeingItems)
	p.DisagreeShown = len(d.Disagreements)
	p.Provenance = d.provenance()
	return p, nil
}

func multiDimension(rows []stats.JudgeRow) bool {
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Dimension] = true
	}
	return len(seen) > 1
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func (d *Data) judgeView(j Judge) (judgeView, error) {
	jv := judgeView{Anchor: judgeAnchor(j.Index), Name: line(j.Report.Judge), Extras: j.Report.Extras}
	for di, dr := range j.Report.Dimensions {
		base := fmt.Sprintf("judges.%d.dimensions.%d.", j.Index, di)
		o := dr.Overall
		a := o.VsHumans
		ov := base + "overall."
		vh := ov + "vs_humans."
		dv := dimView{Name: line(dr.Dimension), Scale: line(string(dr.Scale)), Warning: line(o.Selection.Warning), Small: line(a.SmallSample)}
		if j.Disagreements != nil {
			dv.Disagreements = j.Disagreements[di]
		}
		dv.Figures = []figRow{
			{"Items", count(ov+"units", o.Units)},
			{"Labelled", count(ov+"labelled", o.Labelled)},
			{"Coverage", pctE(ov+"coverage", o.Coverage)},
			{"Judged", count(ov+"judging.judged", o.Judging.Judged)},
			{"Parse errors", count(ov+"judging.parse_errors", o.Judging.ParseErrors)},
			{"API errors", count(ov+"judging.api_errors", o.Judging.APIErrors)},
			{"Compared with the humans (n)", count(vh+"n", a.N)},
			{"Agreement", pct(vh+"percent_agreement", a.PercentAgreement)},
			{"Cohen's kappa", coef(vh+"cohen_kappa", a.CohenKappa)},
			{"Gwet's AC1", coef(vh+"gwet_ac1", a.GwetAC1)},
			{"Krippendorff's alpha (nominal)", coef(vh+"alpha_nominal", a.AlphaNominal)},
		}
		if dr.Scale.Numeric() {
			what := "Mean score"
			switch dr.Scale.Kind() {
			case judge.KindBinary:
				what = "Pass rate"
			case judge.KindPairwise:
				what = "Share of B"
			}
			dv.Figures = append(dv.Figures,
				figRow{what + ", judge", meanE(vh+"judge_mean", dr.Scale, a.JudgeMean)},
				figRow{what + ", humans", meanE(vh+"reference_mean", dr.Scale, a.ReferenceMean)},
				figRow{"Score bias (judge − humans)", signedI(vh+"score_bias", dr.Scale, a.ScoreBias)},
			)
		}
		if or := a.Ordinal; or != nil {
			op := vh + "ordinal."
			dv.Figures = append(dv.Figures,
				figRow{"Quadratic-weighted kappa", coef(op+"quadratic_kappa", or.QuadraticKappa)},
				figRow{"Linear-weighted kappa", coef(op+"linear_kappa", or.LinearKappa)},
				figRow{"Krippendorff's alpha (ordinal)", coef(op+"alpha_ordinal", or.AlphaOrdinal)},
				figRow{"Krippendorff's alpha (interval)", coef(op+"alpha_interval", or.AlphaInterval)},
				figRow{"Mean absolute error", coef(op+"mean_absolute_error", or.MeanAbsoluteError)},
				figRow{"Mean signed difference", coef(op+"mean_signed_difference", or.MeanSignedDifference)},
				figRow{"Spearman's rho", coef(op+"spearman", or.Spearman)},
				figRow{"Kendall's tau-b", coef(op+"kendall_tau_b", or.KendallTauB)},
				figRow{"Within one step", pct(op+"within_one", or.WithinOne)},
			)
		}
		if b := a.Binary; b != nil {
			bp := vh + "binary."
			dv.Classifier = []figRow{
				{"False-pass rate (judge YES where the humans said NO)", pct(bp+"false_pass_rate", b.FalsePassRate)},
				{"False-fail rate (judge NO where the humans said YES)", pct(bp+"false_fail_rate", b.FalseFailRate)},
				{"Precision", pct(bp+"precision", b.Precision)},
				{"Recall", pct(bp+"recall", b.Recall)},
				{"Specificity", pct(bp+"specificity", b.Specificity)},
				{"F1", pctE(bp+"f1", b.F1)},
				{"Balanced accuracy", pctE(bp+"balanced_accuracy", b.BalancedAccuracy)},
			}
		}
		if c := a.Classes; c != nil {
			cp := vh + "classes."
			dv.Classifier = append(dv.Classifier,
				figRow{"Macro precision", pctE(cp+"macro_precision", c.MacroPrecision)},
				figRow{"Macro recall", pctE(cp+"macro_recall", c.MacroRecall)},
				figRow{"Macro F1", pctE(cp+"macro_f1", c.MacroF1)},
			)
		}
		if c := o.Corrected; c != nil {
			cp := ov + "corrected."
			dv.Corrected = []figRow{
				{"The judge's pass rate, every judged item", pct(cp+"observed_pass_rate", c.ObservedPassRate)},
				{"Corrected pass rate (what a human would say, Rogan–Gladen)", pct(cp+"pass_rate", c.PassRate)},
				{"Sensitivity", pctE(cp+"sensitivity", c.Sensitivity)},
				{"Specificity", pctE(cp+"specificity", c.Specificity)},
			}
		}
		if bm := o.Benchmark; bm != nil {
			bp := ov + "benchmark."
			dv.Corrected = append(dv.Corrected,
				figRow{"Labels alone", meanI(bp+"labels_only", dr.Scale, bm.LabelsOnly)},
				figRow{"Prediction-powered (PPI++)", meanI(bp+"ppi", dr.Scale, bm.PPI)},
				figRow{"Worth this many random labels", numE(bp+"effective_labels", bm.EffectiveLabels, 0)},
			)
		}
		dv.Consistency = []figRow{
			{"Re-judged items", count(base+"rejudges.units", dr.Rejudges.Units)},
			{"Re-judge flip rate", pct(base+"rejudges.rate", dr.Rejudges.Rate)},
			{"Sampled items", count(base+"samples.units", dr.Samples.Units)},
			{"Sample flip rate", pct(base+"samples.rate", dr.Samples.Rate)},
		}
		for k, n := range o.LabelsNeeded {
			np := fmt.Sprintf("%slabels_needed.%d.", ov, k)
			half := numE(np+"half_width", n.HalfWidth, 3)
			dv.Needed = append(dv.Needed, neededRow{
				Figure: strings.ReplaceAll(n.Figure, "_", " "),
				N:      count(np+"n", n.N), Half: half,
				F2: numE(np+"for_2", n.For2, 0), F5: numE(np+"for_5", n.For5, 0),
			})
		}
		if s := dr.Swap; s != nil {
			sp := base + "swap."
			dv.Swap = []figRow{
				{"Pairs judged in both orders", count(sp+"pairs", s.Pairs)},
				{"Consistent", count(sp+"consistent", s.Consistent)},
				{"Positional agreement", pct(sp+"positional_agreement", s.PositionalAgreement)},
				{"Kappa between the orders", numE(sp+"kappa_between_orders", s.KappaBetweenOrders, 3)},
				{"Preferred the first position", count(sp+"position.first", s.Position.First)},
				{"Preferred the second position", count(sp+"position.second", s.Position.Second)},
				{"Share of the first among them", pct(sp+"position.first_share", s.Position.FirstShare)},
			}
		}
		for k, sg := range dr.Segments {
			sp := fmt.Sprintf("%ssegments.%d.figures.", base, k)
			f := sg.Figures
			value := sg.Value
			if value == "" {
				value = "(none)"
			}
			dv.Segments = append(dv.Segments, segmentRow{
				Field: line(sg.Field), Value: line(value),
				Units:     count(sp+"units", f.Units),
				N:         count(sp+"vs_humans.n", f.VsHumans.N),
				Agreement: pct(sp+"vs_humans.percent_agreement", f.VsHumans.PercentAgreement),
				Kappa:     coef(sp+"vs_humans.cohen_kappa", f.VsHumans.CohenKappa),
				Bias:      signedI(sp+"vs_humans.score_bias", dr.Scale, f.VsHumans.ScoreBias),
			})
		}
		charts, err := d.dimCharts(j, di)
		if err != nil {
			return jv, err
		}
		dv.Charts = charts
		jv.Dimensions = append(jv.Dimensions, dv)
	}
	return jv, nil
}

// meanI writes a mean with its interval: in percent on a share.
func meanI(path string, scale judge.Scale, i stats.Interval) template.HTML {
	if isShare(scale) {
		return pct(path, i)
	}
	if !i.Defined() {
		return fig(path, unitNumber, stats.Undefined, orUndefined(i.Reason))
	}
	return fig(path, unitNumber, i.Format(2, false), "")
}

// dimCharts draws a judge's charts on one dimension.
func (d *Data) dimCharts(j Judge, di int) ([]chart, error) {
	dr := j.Report.Dimensions[di]
	a := dr.Overall.VsHumans
	var out []chart
	add := func(kind, caption string, svg template.HTML, err error) error {
		if err != nil {
			return fmt.Errorf("drawing the %s chart of %s: %w", kind, j.Report.Judge, err)
		}
		out = append(out, chart{Kind: kind, Caption: caption, SVG: svg})
		return nil
	}
	if a.N > 0 {
		svg, err := confusionChart(dr.Scale, a.Confusion, j.Report.Judge)
		if err := add("confusion", "Rows are the humans' label, columns the judge's verdict; the diagonal is agreement.", svg, err); err != nil {
			return nil, err
		}
		svg, err = distributionChart(dr.Scale, a.Confusion, j.Report.Judge)
		if err := add("distribution", "How often the judge and the humans gave each value, on the items both rated.", svg, err); err != nil {
			return nil, err
		}
	}
	if len(dr.Segments) > 0 && a.N > 0 {
		var rows []forestRow
		for _, sg := range dr.Segments {
			v := sg.Value
			if v == "" {
				v = "(none)"
			}
			rows = append(rows, forestRow{name: sg.Field + ": " + v, v: sg.Figures.VsHumans.PercentAgreement})
		}
		svg, err := forestChart(rows, a.PercentAgreement.Value, true, "agreement with the humans (95% interval)", "Agreement per segment")
		if err := add("segments", "Each segment's agreement with its Wilson interval; the dashed line is the whole dataset's.", svg, err); err != nil {
			return nil, err
		}
	}
	if di < len(j.Accumulation) && len(j.Accumulation[di]) > 1 {
		svg, err := accumulationChart(j.Accumulation[di], d.LabelledTogether)
		caption := "Agreement over the first labelled items, in the order they were labelled, with its Wilson band: a curve that has settled will not move much with more labels."
		if d.LabelledTogether {
			caption = "Agreement over the labelled items in dataset order, with its Wilson band. The labels were made at one moment (imported or merged), so this shows how agreement varies along the file — a file sorted by model or task moves it — not whether it settles as labels accumulate."
		}
		if err := add("accumulation", caption, svg, err); err != nil {
			return nil, err
		}
	}
	if s := dr.Swap; s != nil && s.Pairs > 0 {
		svg, err := ordersChart(dr.Scale, s.Orders)
		if err := add("swap", "The judge's verdict with the responses in the original order (rows) and swapped (columns): off the diagonal it changed its mind.", svg, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *Data) pairsViews() ([]pairsView, error) {
	index := map[string]int{}
	for i, jr := range d.Stats.Judges {
		index[jr.Judge] = i
	}
	var dims []string
	byDim := map[string][]int{}
	for k, p := range d.Stats.JudgePairs {
		if _, ok := byDim[p.Dimension]; !ok {
			dims = append(dims, p.Dimension)
		}
		byDim[p.Dimension] = append(byDim[p.Dimension], k)
	}
	var out []pairsView
	for _, dim := range dims {
		pv := pairsView{Dimension: line(dim)}
		var judges []string
		at := map[string]int{}
		addJudge := func(name string) {
			if _, ok := at[name]; !ok {
				at[name] = len(judges)
				judges = append(judges, name)
			}
		}
		for _, k := range byDim[dim] {
			p := d.Stats.JudgePairs[k]
			addJudge(p.Judge)
			addJudge(p.Reference)
		}
		// Judges in the report's order.
		slices.SortStableFunc(judges, func(a, b string) int { return index[a] - index[b] })
		for i, j := range judges {
			at[j] = i
		}
		kappas := map[[2]int]stats.Interval{}
		for _, k := range byDim[dim] {
			p := d.Stats.JudgePairs[k]
			a, b := at[p.Judge], at[p.Reference]
			kappas[[2]int{min(a, b), max(a, b)}] = p.Agreement.CohenKappa
			path := fmt.Sprintf("judge_pairs.%d.agreement.", k)
			pv.Rows = append(pv.Rows, pairRow{
				Judge: line(p.Judge), Reference: line(p.Reference),
				N:         count(path+"n", p.Agreement.N),
				Agreement: pct(path+"percent_agreement", p.Agreement.PercentAgreement),
				Kappa:     coef(path+"cohen_kappa", p.Agreement.CohenKappa),
				AC1:       coef(path+"gwet_ac1", p.Agreement.GwetAC1),
			})
		}
		svg, err := pairChart(judges, kappas, dim)
		if err != nil {
			return nil, fmt.Errorf("drawing judge against judge: %w", err)
		}
		pv.Chart = svg
		out = append(out, pv)
	}
	return out, nil
}

func (d *Data) humansViews() []humansView {
	var out []humansView
	for k, h := range d.Stats.Humans {
		path := fmt.Sprintf("humans.%d.", k)
		hv := humansView{Dimension: line(h.Dimension), Scale: line(string(h.Scale)), Small: line(h.SmallSample), Pairable: h.Pairable}
		for _, a := range h.Annotators {
			hv.Annotators = append(hv.Annotators, line(a))
		}
		hv.Figures = []figRow{
			{"Labelled items", count(path+"labelled", h.Labelled)},
			{"Items with two labels or more", count(path+"pairable", h.Pairable)},
			{"Percent agreement", pct(path+"percent_agreement", h.PercentAgreement)},
			{"Krippendorff's alpha (nominal)", coef(path+"alpha_nominal", h.AlphaNominal)},
			{"Fleiss' kappa", coef(path+"fleiss_kappa", h.FleissKappa)},
			{"Gwet's AC1", coef(path+"gwet_ac1", h.GwetAC1)},
		}
		if h.Scale.Ordinal() {
			hv.Figures = append(hv.Figures,
				figRow{"Krippendorff's alpha (ordinal)", coef(path+"alpha_ordinal", h.AlphaOrdinal)},
				figRow{"Krippendorff's alpha (interval)", coef(path+"alpha_interval", h.AlphaInterval)},
			)
		}
		for i, p := range h.Pairs {
			pp := fmt.Sprintf("%spairs.%d.", path, i)
			hv.Pairs = append(hv.Pairs, annotatorPairRow{
				A: line(p.A), B: line(p.B), N: count(pp+"n", p.N),
				Agreement: pct(pp+"percent_agreement", p.PercentAgreement),
				Kappa:     coef(pp+"cohen_kappa", p.CohenKappa),
			})
		}
		out = append(out, hv)
	}
	return out
}

// The most of one text of a listed disagreement the page holds: its head
// and its tail, the middle marked as cut. Thousands of items with long
// documents would otherwise make a page of hundreds of megabytes; the
// whole text stays in the session (gavel export).
const (
	longHead = 3000
	longTail = 1000
)

// long is a disagreement's text as the page shows it: kept on its lines,
// cut to longHead and longTail bytes around a marked middle.
func long(s string) string { return block(judge.CutText(s, longHead, longTail)) }

func disagreeViewOf(d Disagreement) disagreeView {
	v := disagreeView{
		ID: line(d.ItemID), Rubric: block(d.Rubric), Question: long(d.Question), Gold: long(d.Gold),
		Prediction: long(d.Prediction), ResponseA: long(d.ResponseA), ResponseB: long(d.ResponseB),
	}
	if d.Criterion > 0 {
		v.Criterion = fmt.Sprint(d.Criterion)
	}
	var segs []string
	for _, k := range slices.Sorted(maps.Keys(d.Segments)) {
		segs = append(segs, line(k)+": "+line(d.Segments[k]))
	}
	v.Segments = strings.Join(segs, " · ")
	var judges []string
	seenJudge := map[string]bool{}
	for _, vd := range d.Verdicts {
		vd.Judge, vd.Dimension, vd.Value, vd.Human = line(vd.Judge), line(vd.Dimension), line(vd.Value), line(vd.Human)
		vd.Reason, vd.Raw = long(vd.Reason), long(vd.Raw)
		v.Verdicts = append(v.Verdicts, vd)
		if !seenJudge[vd.Judge] {
			seenJudge[vd.Judge] = true
			judges = append(judges, vd.Judge)
		}
	}
	v.Judges = strings.Join(judges, ", ")
	if len(v.Verdicts) > 0 {
		v.HumanValue = v.Verdicts[0].Human
	}
	seenNote := map[string]bool{}
	for _, h := range d.Humans {
		h.Annotator, h.Dimension, h.Value, h.Via = line(h.Annotator), line(h.Dimension), line(h.Value), line(h.Via)
		if h.Note != "" && !seenNote[h.Annotator] {
			seenNote[h.Annotator] = true
			v.Notes = append(v.Notes, h.Annotator+": "+long(h.Note))
		}
		h.Note = ""
		v.Humans = append(v.Humans, h)
	}
	return v
}

func (d *Data) provenance() provenance {
	var p provenance
	p.Dataset = append(p.Dataset, kv{"Session", line(d.Session)})
	if ds := d.Dataset; ds != nil {
		p.Dataset = append(p.Dataset,
			kv{"Dataset", line(baseName(ds.Path))},
			kv{"Read from", line(ds.Path)},
			kv{"SHA-256", line(ds.SHA256)},
			kv{"Format", line(ds.Format)},
			kv{"Items", thousands(ds.Items)},
			kv{"Session begun", ds.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")},
		)
		for _, role := range slices.Sorted(maps.Keys(ds.Mapping)) {
			p.Mapping = append(p.Mapping, kv{line(role), line(ds.Mapping[role])})
		}
	}
	for _, j := range d.Judges {
		rv := runView{Name: line(j.Report.Judge), Anchor: judgeAnchor(j.Index)}
		if r := j.Run; r != nil {
			info := r.Info
			rv.Facts = append(rv.Facts, kv{"Judge", line(info.Name)})
			model := info.Model
			if model == "" {
				model = "none (offline or imported)"
			}
			rv.Facts = append(rv.Facts, kv{"Model", line(model)})
			params := "none"
			if len(info.Params) > 0 {
				if b, err := json.Marshal(info.Params); err == nil {
					params = string(b)
				}
			}
			rv.Facts = append(rv.Facts, kv{"Parameters", line(params)})
			for _, dim := range info.Dimensions {
				rv.Facts = append(rv.Facts, kv{"Dimension", line(dim.Name) + " (" + line(string(dim.Scale)) + ")"})
			}
			if info.PerCriterion {
				rv.Facts = append(rv.Facts, kv{"Rates", "each rubric criterion"})
			}
			if info.Description != "" {
				rv.Facts = append(rv.Facts, kv{"Description", line(info.Description)})
			}
			rv.Facts = append(rv.Facts, kv{"First run", r.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")})
			rv.Definition = block(info.Definition)
		}
		p.Runs = append(p.Runs, rv)
	}
	by := map[string]int{}
	for _, j := range d.Stats.Judges {
		for _, dr := range j.Dimensions {
			for k, n := range dr.Overall.Selection.ByProvenance {
				by[k] = max(by[k], n)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(by)) {
		p.Labels = append(p.Labels, kv{line(k), thousands(by[k])})
	}
	p.Annotators = d.Annotators
	p.Settings = []kv{
		{"Gavel", line(d.Version)},
		{"Bootstrap seed", fmt.Sprint(d.Stats.Seed)},
		{"Bootstrap resamples", thousands(d.Stats.Resamples)},
		{"Parse errors", d.Stats.ParseErrors},
		{"Truncated verdicts", d.Stats.Truncated},
		{"Pairs answered differently in their two orders", swapTiesText(d.Options.Stats.SwapDisagreeAsTie)},
		{"Statistics schema", fmt.Sprint(d.Stats.SchemaVersion)},
	}
	if s := d.Split; s != nil {
		v := s.Part
		if s.Seed != nil {
			v += fmt.Sprintf(" (split seed %d, %d items)", *s.Seed, s.Items)
		}
		p.Settings = append(p.Settings, kv{"Items covered", v})
	}
	return p
}

// swapTiesText says how the figures count a pair the judge answered
// differently in its two orders (gavel stats --swap-ties).
func swapTiesText(asTie bool) string {
	if asTie {
		return "counted as a tie (--swap-ties)"
	}
	return "compared as answered in the original order"
}
