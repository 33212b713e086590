package report

import (
	"fmt"
	"html/template"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// The operating points of graded judges and their reliability curves:
// every figure a data-fig of stats' operating_points and reliability.

type gradedView struct {
	Title, Small string
	Facts        []figRow
	Cuts         []cutRow
	Best         []figRow
	Band         []figRow
	BandReason   string
	Chart        template.HTML
}

type cutRow struct {
	Best                                                            bool
	Cut, Pass, Agreement, FalsePass, FalseFail, Kappa, FP, FF, Cost template.HTML
}

type reliabilityView struct {
	Title, Small string
	Facts        []figRow
	Bins         []binRow
	Chart        template.HTML
}

type binRow struct {
	Range                    string
	N, Confidence, Agreement template.HTML
}

// colFail draws the false-fail rate.
var colFail = color.RGBA{R: 0xdc, G: 0x26, B: 0x26, A: 0xff}

// gradedViews lays out every operating point and reliability curve.
func (d *Data) gradedViews() ([]gradedView, []reliabilityView, error) {
	var ops []gradedView
	for i, op := range d.Stats.OperatingPoints {
		base := fmt.Sprintf("operating_points.%d.", i)
		gv := gradedView{Title: render.OperatingTitle(op), Small: line(op.SmallSample), BandReason: line(op.BandReason)}
		gv.Facts = []figRow{
			{"Graded items", count(base+"graded", op.Graded)},
			{"Without a grade (unknown or withheld confidence)", count(base+"unknown", op.Unknown)},
			{"Labelled " + line(op.Against), count(base+"labelled", op.Labelled)},
			{"Cost of a false pass", numE(base+"costs.false_pass", stats.Estimate{Value: op.Costs.FalsePass}, -1)},
			{"Cost of a false fail", numE(base+"costs.false_fail", stats.Estimate{Value: op.Costs.FalseFail}, -1)},
		}
		for k, c := range op.Cuts {
			cp := fmt.Sprintf("%scuts.%d.", base, k)
			gv.Cuts = append(gv.Cuts, cutRow{
				Best:      op.Best != nil && c.Cut == op.Best.Cut,
				Cut:       fig(cp+"cut", unitNumber, render.CutText(op, c.Cut), ""),
				Pass:      pctE(cp+"pass_rate", c.PassRate),
				Agreement: pctE(cp+"agreement", c.Agreement.Estimate()),
				FalsePass: pctE(cp+"false_pass_rate", c.FalsePassRate.Estimate()),
				FalseFail: pctE(cp+"false_fail_rate", c.FalseFailRate.Estimate()),
				Kappa:     numE(cp+"cohen_kappa", c.CohenKappa, 3),
				FP:        count(cp+"false_passes", c.FalsePasses),
				FF:        count(cp+"false_fails", c.FalseFails),
				Cost:      numE(cp+"cost", c.Cost, 3),
			})
		}
		if b := op.Best; b != nil {
			bp := base + "best."
			gv.Best = []figRow{
				{"Best cut (least cost)", fig(bp+"cut", unitNumber, render.CutText(op, b.Cut), "")},
				{"Agreement", pct(bp+"agreement", b.Agreement)},
				{"False-pass rate", pct(bp+"false_pass_rate", b.FalsePassRate)},
				{"False-fail rate", pct(bp+"false_fail_rate", b.FalseFailRate)},
				{"Cohen's kappa", numE(bp+"cohen_kappa", b.CohenKappa, 3)},
				{"Pass rate over every graded item", pctE(bp+"pass_rate", b.PassRate)},
			}
		}
		if b := op.Band; b != nil {
			bp := base + "band."
			gv.Band = []figRow{
				{"Send to people from", numE(bp+"low", stats.Estimate{Value: b.Low}, -1)},
				{"up to (not included)", numE(bp+"high", stats.Estimate{Value: b.High}, -1)},
				{"Items sent", count(bp+"sent_items", b.SentItems)},
				{"Share of the graded items sent", pctE(bp+"sent", b.Sent)},
				{"Labelled items the judge keeps", count(bp+"rest", b.Rest)},
				{"Agreement on the items it keeps", pct(bp+"agreement", b.Agreement)},
			}
		}
		svg, err := sweepChart(op)
		if err != nil {
			return nil, nil, err
		}
		gv.Chart = svg
		ops = append(ops, gv)
	}
	var rels []reliabilityView
	for i, r := range d.Stats.Reliability {
		base := fmt.Sprintf("reliability.%d.", i)
		src := render.ConfidenceText(r.Confidence)
		rv := reliabilityView{Title: line(r.Judge) + " · " + line(r.Dimension) + " (" + src + ")", Small: line(r.SmallSample)}
		rv.Facts = []figRow{
			{"Labelled items with a confidence", count(base+"n", r.N)},
			{"Labelled items without one", count(base+"unknown", r.Unknown)},
			{"Expected calibration error", coef(base+"ece", r.ECE)},
		}
		for k, b := range r.Bins {
			if b.N == 0 {
				continue
			}
			bp := fmt.Sprintf("%sbins.%d.", base, k)
			rv.Bins = append(rv.Bins, binRow{Range: stats.FormatNumber(b.Low, 2) + "–" + stats.FormatNumber(b.High, 2),
				N: count(bp+"n", b.N), Confidence: numE(bp+"confidence", b.Confidence, 3), Agreement: pct(bp+"agreement", b.Agreement)})
		}
		svg, err := reliabilityChart(r)
		if err != nil {
			return nil, nil, err
		}
		rv.Chart = svg
		rels = append(rels, rv)
	}
	return ops, rels, nil
}

// sweepChart draws agreement, the false-pass rate and the false-fail rate
// at every cut, with the best cut dashed and the "ask a human" band
// shaded.
func sweepChart(op stats.OperatingPoints) (template.HTML, error) {
	p := newPlot()
	p.Title.Text = "Every pass threshold: " + chartText(op.Judge+" · "+op.Dimension, 40)
	p.X.Label.Text = "cut (the judge passes a grade at least this)"
	if op.Grade == stats.GradeScore {
		p.X.Label.Text = "cut (the judge passes a score at least this)"
	}
	p.Y.Label.Text = "rate"
	lo, hi := op.Cuts[0].Cut, op.Cuts[len(op.Cuts)-1].Cut
	if b := op.Band; b != nil {
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b.Low, Y: 0}, {X: b.High, Y: 0}, {X: b.High, Y: 1}, {X: b.Low, Y: 1}})
		if err != nil {
			return "", err
		}
		poly.Color, poly.LineStyle.Width = colBand, 0
		p.Add(poly)
		p.Legend.Add("ask a human", poly)
	}
	series := []struct {
		name string
		col  color.Color
		at   func(c stats.OperatingCut) float64
	}{
		{"agreement", colJudge, func(c stats.OperatingCut) float64 { return c.Agreement.Value }},
		{"false-pass rate", colHuman, func(c stats.OperatingCut) float64 { return c.FalsePassRate.Value }},
		{"false-fail rate", colFail, func(c stats.OperatingCut) float64 { return c.FalseFailRate.Value }},
	}
	for _, s := range series {
		var pts plotter.XYs
		for _, c := range op.Cuts {
			if v := s.at(c); !math.IsNaN(v) {
				pts = append(pts, plotter.XY{X: c.Cut, Y: v})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return "", err
		}
		l.LineStyle.Color, l.LineStyle.Width = s.col, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	if b := op.Best; b != nil {
		l, err := plotter.NewLine(plotter.XYs{{X: b.Cut, Y: 0}, {X: b.Cut, Y: 1}})
		if err != nil {
			return "", err
		}
		l.LineStyle.Color, l.LineStyle.Dashes = colRule, []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
		p.Legend.Add("best cut", l)
	}
	p.X.Min, p.X.Max = lo, hi
	if op.Grade == stats.GradeScore && len(op.Cuts) <= 12 {
		var ticks plot.ConstantTicks
		for _, c := range op.Cuts {
			ticks = append(ticks, plot.Tick{Value: c.Cut, Label: stats.FormatNumber(c.Cut, -1)})
		}
		p.X.Tick.Marker = ticks
	}
	// Room above 100% for the legend, which would hide the lines.
	p.Y.Min, p.Y.Max = 0, 1.45
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0%"}, {Value: 0.25}, {Value: 0.5, Label: "50%"}, {Value: 0.75}, {Value: 1, Label: "100%"}}
	p.Legend.Top = true
	p.Legend.Left = false
	return drawSVG(p, 440, 260, "Agreement, false-pass and false-fail rates at every pass threshold")
}

// reliabilityChart draws each bin's agreement with the humans (Wilson
// interval) against its mean confidence, beside the diagonal of a
// perfectly calibrated judge.
func reliabilityChart(r stats.Reliability) (template.HTML, error) {
	p := newPlot()
	p.Title.Text = "Reliability: " + chartText(r.Judge+" · "+r.Dimension, 40)
	p.X.Label.Text = "the judge's confidence (mean of the bin)"
	p.Y.Label.Text = "agreement with the humans"
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return "", err
	}
	diag.LineStyle.Color, diag.LineStyle.Dashes = colRule, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(diag)
	p.Legend.Add("perfect calibration", diag)
	var pts plotter.XYs
	var errs plotter.YErrors
	for _, b := range r.Bins {
		if b.N == 0 || !b.Confidence.Defined() || !b.Agreement.Defined() {
			continue
		}
		pts = append(pts, plotter.XY{X: b.Confidence.Value, Y: b.Agreement.Value})
		e := struct{ Low, High float64 }{}
		if b.Agreement.HasBounds() {
			e.Low, e.High = b.Agreement.Value-b.Agreement.Low, b.Agreement.High-b.Agreement.Value
		}
		errs = append(errs, e)
	}
	if len(pts) > 0 {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return "", err
		}
		eb.LineStyle.Color, eb.LineStyle.Width = colJudge, vg.Points(1.5)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return "", err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius = colJudge, vg.Points(3)
		p.Add(eb, sc)
		p.Legend.Add("bins (95% interval)", sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.X.Tick.Marker, p.Y.Tick.Marker = percentTicks{}, percentTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	return drawSVG(p, 360, 300, "Reliability curve: confidence against agreement with the humans")
}
