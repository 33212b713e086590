package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Charts are drawn by gonum.org/v1/plot onto its SVG canvas (vgsvg), which
// escapes every text it writes and embeds no font: its text names the
// Liberation Sans family, whose metrics laid it out, and the page's style
// sheet lets the browser fall back to a metric-compatible system font
// (Arimo, Arial, Helvetica). Nothing is fetched.

// chartFont is the charts' type face: Liberation Sans, embedded in plot
// for measuring only.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Colours of the charts, readable printed in grey.
var (
	colJudge = color.RGBA{R: 0x25, G: 0x63, B: 0xeb, A: 0xff}
	colHuman = color.RGBA{R: 0xd9, G: 0x77, B: 0x06, A: 0xff}
	colBand  = color.NRGBA{R: 0x93, G: 0xc5, B: 0xfd, A: 0x90}
	colRule  = color.RGBA{R: 0x6b, G: 0x72, B: 0x80, A: 0xff}
)

// chartText makes text from a session safe for a chart: control and
// bidirectional characters shown, one line, at most n characters.
func chartText(s string, n int) string {
	s = safetext.SanitizeLine(s)
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

func newPlot() *plot.Plot {
	p := plot.New()
	set := func(st *text.Style, size vg.Length) { st.Font = font.From(chartFont, size) }
	set(&p.Title.TextStyle, 12)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		set(&a.Label.TextStyle, 11)
		set(&a.Tick.Label, 10)
	}
	set(&p.Legend.TextStyle, 10)
	p.Title.Padding = vg.Points(6)
	return p
}

// svgPrelude is what vgsvg writes before the <svg> element, which an
// inline SVG does without.
var svgPrelude = regexp.MustCompile(`(?s)^.*?(<svg )`)

// svgSize is the root element's size, replaced so the chart scales with
// the page (the viewBox keeps its proportions).
var svgSize = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)

// drawSVG draws p at w×h points and returns it as an inline <svg> element
// labelled for screen readers.
func drawSVG(p *plot.Plot, w, h vg.Length, label string) (template.HTML, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := svgPrelude.ReplaceAllString(b.String(), "$1")
	s = svgSize.ReplaceAllString(s, fmt.Sprintf(`<svg role="img" aria-label="%s" preserveAspectRatio="xMidYMid meet" style="max-width:%.0fpx"`, html.EscapeString(label), w.Points()*4/3))
	return template.HTML(strings.TrimSpace(s)), nil //nolint:gosec // vgsvg escapes every text it writes; label is escaped above
}

// grid is a heat map's values: Z(c, r) is row r from the top.
type grid struct {
	z    [][]float64 // z[row][col], rows top to bottom
	rows int
	cols int
}

func (g grid) Dims() (c, r int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.z[g.rows-1-r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

type paletteOf []color.Color

func (p paletteOf) Colors() []color.Color { return p }

// blues is the heat maps' palette, light to dark.
func blues() palette.Palette {
	p, err := brewer.GetPalette(brewer.TypeSequential, "Blues", 9)
	if err != nil {
		return paletteOf{color.White, colJudge}
	}
	return p
}

// heatMap draws a table of counts or figures: rows top to bottom, names
// on each side, each cell labelled with text[row][col].
func heatMap(z [][]float64, texts [][]string, cols, rows []string, xLabel, yLabel, title string, lo, hi float64) (template.HTML, error) {
	g := grid{z: z, rows: len(rows), cols: len(cols)}
	p := newPlot()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	hm := plotter.NewHeatMap(g, blues())
	if !(hi > lo) {
		hi = lo + 1
	}
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.RGBA{R: 0xf3, G: 0xf4, B: 0xf6, A: 0xff}
	hm.Underflow, hm.Overflow = hm.NaN, hm.NaN
	p.Add(hm)
	var xys plotter.XYs
	var labels []string
	var styles []text.Style
	for r := range rows {
		for c := range cols {
			xys = append(xys, plotter.XY{X: float64(c), Y: float64(len(rows) - 1 - r)})
			labels = append(labels, texts[r][c])
			st := text.Style{Font: font.From(chartFont, 11), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler, Color: color.Black}
			if v := z[r][c]; !math.IsNaN(v) && (v-lo)/(hi-lo) > 0.55 {
				st.Color = color.White
			}
			styles = append(styles, st)
		}
	}
	if len(xys) > 0 {
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return "", err
		}
		l.TextStyle = styles
		p.Add(l)
	}
	p.X.Tick.Marker = names(cols, false)
	p.Y.Tick.Marker = names(rows, true)
	p.X.Min, p.X.Max = -0.5, float64(len(cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	w := vg.Points(math.Max(260, 110+70*float64(len(cols))))
	h := vg.Points(math.Max(200, 90+42*float64(len(rows))))
	return drawSVG(p, w, h, title)
}

// names ticks a categorical axis: names[i] at i, or, reversed, at
// len-1-i (rows drawn top to bottom).
func names(ns []string, reversed bool) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(ns))
	for i, n := range ns {
		at := float64(i)
		if reversed {
			at = float64(len(ns) - 1 - i)
		}
		t[i] = plot.Tick{Value: at, Label: n}
	}
	return t
}

// confusionChart is a judge's confusion matrix as a heat map: rows the
// humans, columns the judge, each cell its count and share of the items.
func confusionChart(scale judge.Scale, c stats.Confusion, judgeName string) (template.HTML, error) {
	cats := categoryNames(scale, c)
	n := 0
	hi := 0.0
	for _, row := range c.Counts {
		for _, v := range row {
			n += v
			hi = math.Max(hi, float64(v))
		}
	}
	z := make([][]float64, len(c.Counts))
	texts := make([][]string, len(c.Counts))
	for r, row := range c.Counts {
		z[r] = make([]float64, len(row))
		texts[r] = make([]string, len(row))
		for col, v := range row {
			z[r][col] = float64(v)
			texts[r][col] = fmt.Sprint(v)
			if n > 0 && len(row) <= 5 {
				texts[r][col] += "  (" + stats.FormatPercent(float64(v)/float64(n), 1) + ")"
			}
		}
	}
	return heatMap(z, texts, cats, cats, "judge: "+chartText(judgeName, 40), "humans", "Confusion matrix", 0, hi)
}

// categoryNames names the categories of a table for a chart.
func categoryNames(scale judge.Scale, c stats.Confusion) []string {
	out := make([]string, len(c.Categories))
	for i, v := range c.Categories {
		out[i] = chartText(scale.Format(v), 14)
	}
	return out
}

// distributionChart sets the judge's values beside the humans' on the
// items both rated: the table's column and row sums.
func distributionChart(scale judge.Scale, c stats.Confusion, judgeName string) (template.HTML, error) {
	k := len(c.Categories)
	judged, human := make(plotter.Values, k), make(plotter.Values, k)
	for r, row := range c.Counts {
		for col, v := range row {
			human[r] += float64(v)
			judged[col] += float64(v)
		}
	}
	p := newPlot()
	p.Title.Text = "Values given, judge and humans"
	p.Y.Label.Text = "items"
	w := vg.Points(math.Max(10, math.Min(36, 160/float64(max(k, 1)))))
	bj, err := plotter.NewBarChart(judged, w)
	if err != nil {
		return "", err
	}
	bh, err := plotter.NewBarChart(human, w)
	if err != nil {
		return "", err
	}
	bj.Color, bj.LineStyle.Width = colJudge, 0
	bh.Color, bh.LineStyle.Width = colHuman, 0
	bj.Offset, bh.Offset = -w/2, w/2
	p.Add(bj, bh)
	p.Legend.Add(chartText("judge ("+judgeName+")", 40), bj)
	p.Legend.Add("humans", bh)
	p.Legend.Top = true
	p.NominalX(categoryNames(scale, c)...)
	p.Y.Min = 0
	p.Y.Max *= 1.3 // room for the legend
	p.Y.Tick.Marker = countTicks{}
	return drawSVG(p, vg.Points(math.Max(300, 120+60*float64(k))), 230, "Values given by the judge and by the humans")
}

// forestRow is one line of a forest plot.
type forestRow struct {
	name string
	v    stats.Interval
}

// forestChart draws each row's figure with its interval, first row on
// top, with a dashed line at ref (NaN for none). percent shows the axis
// in percent. Rows whose figure is undefined are named but not drawn.
func forestChart(rows []forestRow, ref float64, percent bool, xLabel, title string) (template.HTML, error) {
	var ns []string
	for _, r := range rows {
		ns = append(ns, chartText(r.name, 32))
	}
	p := newPlot()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if !r.v.Defined() {
			continue
		}
		lo, hi = math.Min(lo, r.v.Value), math.Max(hi, r.v.Value)
		if r.v.HasBounds() {
			lo, hi = math.Min(lo, r.v.Low), math.Max(hi, r.v.High)
		}
	}
	// Keep every row's place: the undefined ones stay as gaps.
	var placed []forestRow
	var ys []float64
	for i, r := range rows {
		if r.v.Defined() {
			placed = append(placed, r)
			ys = append(ys, float64(len(rows)-1-i))
		}
	}
	if len(placed) > 0 {
		pts := make(plotter.XYs, len(placed))
		for i, r := range placed {
			pts[i] = plotter.XY{X: r.v.Value, Y: ys[i]}
		}
		bars := &xErr{pts: pts, rows: placed}
		eb, err := plotter.NewXErrorBars(bars)
		if err != nil {
			return "", err
		}
		eb.LineStyle.Color, eb.LineStyle.Width = colJudge, vg.Points(1.5)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return "", err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = colJudge, draw.BoxGlyph{}, vg.Points(3)
		p.Add(eb, sc)
	}
	if !math.IsNaN(ref) && !math.IsInf(ref, 0) {
		l, err := plotter.NewLine(plotter.XYs{{X: ref, Y: -0.5}, {X: ref, Y: float64(len(rows)) - 0.5}})
		if err != nil {
			return "", err
		}
		l.LineStyle.Color, l.LineStyle.Dashes = colRule, []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
		lo, hi = math.Min(lo, ref), math.Max(hi, ref)
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	pad := math.Max((hi-lo)*0.08, 0.01)
	p.X.Min, p.X.Max = lo-pad, hi+pad
	if percent {
		p.X.Min, p.X.Max = math.Max(p.X.Min, 0), math.Min(p.X.Max, 1)
		p.X.Tick.Marker = percentTicks{}
	}
	p.Y.Tick.Marker = names(ns, true)
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	return drawSVG(p, 420, vg.Points(math.Max(140, 80+22*float64(len(rows)))), title)
}

type xErr struct {
	pts  plotter.XYs
	rows []forestRow
}

func (x *xErr) Len() int                    { return len(x.pts) }
func (x *xErr) XY(i int) (float64, float64) { return x.pts[i].X, x.pts[i].Y }
func (x *xErr) XError(i int) (float64, float64) {
	r := x.rows[i].v
	if !r.HasBounds() {
		return 0, 0
	}
	return r.Value - r.Low, r.High - r.Value
}

// percentTicks labels a proportion axis in percent.
type percentTicks struct{}

func (percentTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo*100, hi*100)
	for i := range ts {
		ts[i].Value /= 100
		if ts[i].Label != "" {
			ts[i].Label += "%"
		}
	}
	return ts
}

// countTicks labels an axis of counts with whole numbers only.
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			continue
		}
		if t.Label != "" {
			t.Label = fmt.Sprintf("%.0f", t.Value)
		}
		out = append(out, t)
	}
	return out
}

// accumulationChart draws agreement with the humans as labels accumulated:
// the agreement over the first labelled items with its Wilson band, and a
// dashed line at the last value.
func accumulationChart(points []Point, together bool) (template.HTML, error) {
	var line, upper, lower plotter.XYs
	for _, pt := range points {
		if !pt.Agreement.Defined() {
			continue
		}
		line = append(line, plotter.XY{X: float64(pt.Labelled), Y: pt.Agreement.Value})
		if pt.Agreement.HasBounds() {
			upper = append(upper, plotter.XY{X: float64(pt.Labelled), Y: pt.Agreement.High})
			lower = append(lower, plotter.XY{X: float64(pt.Labelled), Y: pt.Agreement.Low})
		}
	}
	p := newPlot()
	p.Title.Text = "Agreement as labels accumulate"
	p.X.Label.Text = "items labelled, in the order they were labelled"
	if together {
		p.X.Label.Text = "labelled items, in dataset order (labelled together)"
	}
	p.Y.Label.Text = "agreement"
	if len(upper) > 1 {
		band := append(plotter.XYs{}, upper...)
		for i := len(lower) - 1; i >= 0; i-- {
			band = append(band, lower[i])
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return "", err
		}
		poly.Color, poly.LineStyle.Width = colBand, 0
		p.Add(poly)
	}
	if len(line) > 0 {
		l, err := plotter.NewLine(line)
		if err != nil {
			return "", err
		}
		l.LineStyle.Color, l.LineStyle.Width = colJudge, vg.Points(1.5)
		p.Add(l)
		last := line[len(line)-1].Y
		ref, err := plotter.NewLine(plotter.XYs{{X: line[0].X, Y: last}, {X: line[len(line)-1].X, Y: last}})
		if err != nil {
			return "", err
		}
		ref.LineStyle.Color, ref.LineStyle.Dashes = colRule, []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(ref)
	}
	p.Y.Min, p.Y.Max = math.Max(p.Y.Min-0.02, 0), math.Min(p.Y.Max+0.02, 1)
	p.Y.Tick.Marker = percentTicks{}
	p.X.Min = 0
	return drawSVG(p, 420, 230, "Agreement with the humans as labels accumulate")
}

// pairChart is judge against judge: Cohen's kappa of every two judges on
// one dimension.
func pairChart(judges []string, pairs map[[2]int]stats.Interval, dimension string) (template.HTML, error) {
	k := len(judges)
	z := make([][]float64, k)
	texts := make([][]string, k)
	for r := range k {
		z[r] = make([]float64, k)
		texts[r] = make([]string, k)
		for c := range k {
			switch v, ok := pairs[[2]int{min(r, c), max(r, c)}]; {
			case r == c:
				z[r][c], texts[r][c] = math.NaN(), ""
			case !ok || !v.Defined():
				z[r][c], texts[r][c] = math.NaN(), stats.Undefined
			default:
				z[r][c], texts[r][c] = v.Value, stats.FormatNumber(v.Value, 2)
			}
		}
	}
	ns := make([]string, k)
	for i, j := range judges {
		ns[i] = chartText(j, 22)
	}
	title := "Cohen's kappa between judges: " + chartText(dimension, 30)
	g := grid{z: z, rows: k, cols: k}
	p := newPlot()
	p.Title.Text = title
	hm := plotter.NewHeatMap(g, blues())
	hm.Min, hm.Max = 0, 1
	hm.NaN = color.RGBA{R: 0xf3, G: 0xf4, B: 0xf6, A: 0xff}
	hm.Underflow = color.RGBA{R: 0xfe, G: 0xe2, B: 0xe2, A: 0xff}
	p.Add(hm)
	var xys plotter.XYs
	var labels []string
	var styles []text.Style
	for r := range k {
		for c := range k {
			xys = append(xys, plotter.XY{X: float64(c), Y: float64(k - 1 - r)})
			labels = append(labels, texts[r][c])
			st := text.Style{Font: font.From(chartFont, 9), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler, Color: color.Black}
			if v := z[r][c]; !math.IsNaN(v) && v > 0.55 {
				st.Color = color.White
			}
			styles = append(styles, st)
		}
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return "", err
	}
	l.TextStyle = styles
	p.Add(l)
	p.X.Tick.Marker = names(ns, false)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.Y.Tick.Marker = names(ns, true)
	p.X.Min, p.X.Max = -0.5, float64(k)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(k)-0.5
	side := math.Max(260, 150+34*float64(k))
	return drawSVG(p, vg.Points(side), vg.Points(side), title)
}

// ordersChart is a pairwise judge's swap audit: its verdicts in the
// original order against those with the responses swapped.
func ordersChart(scale judge.Scale, c stats.Confusion) (template.HTML, error) {
	cats := categoryNames(scale, c)
	hi := 0.0
	z := make([][]float64, len(c.Counts))
	texts := make([][]string, len(c.Counts))
	for r, row := range c.Counts {
		z[r] = make([]float64, len(row))
		texts[r] = make([]string, len(row))
		for col, v := range row {
			z[r][col], texts[r][col] = float64(v), fmt.Sprint(v)
			hi = math.Max(hi, float64(v))
		}
	}
	return heatMap(z, texts, cats, cats, "swapped order", "original order", "Verdicts in both orders", 0, hi)
}
