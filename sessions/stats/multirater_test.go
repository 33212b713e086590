package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// raw4ratersInput is irrCAC's cac.raw4raters (Krippendorff 2011's
// four-observer example) as a session with labels and no judge: four
// annotators on a Likert dimension, missing labels left out.
func raw4ratersInput() Input {
	in := Input{Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Likert}}}
	for u := range krippendorff2011[0] {
		unit := Unit{ItemID: fmt.Sprintf("u%02d", u+1)}
		for o, obs := range krippendorff2011 {
			if !math.IsNaN(obs[u]) {
				unit.Labels = append(unit.Labels, Label{Annotator: string(rune('A' + o)), Values: map[string]float64{"score": obs[u]}, Provenance: "random"})
			}
		}
		in.Units = append(in.Units, unit)
	}
	return in
}

func TestHumansReproducePublishedFigures(t *testing.T) {
	// Every figure of a label-only session equals the published one for
	// the same data: irrCAC README and weighting vignette for
	// cac.raw4raters (pa 0.8181818, Fleiss 0.76117, AC1 0.77544, AC2
	// 0.914), Krippendorff (2011) for alpha (0.743, 0.815, 0.849, 0.797).
	rep := Compute(raw4ratersInput(), Options{Seed: 1})
	if len(rep.Humans) != 1 {
		t.Fatalf("humans = %+v, want one dimension", rep.Humans)
	}
	h := rep.Humans[0]
	if h.Dimension != "score" || h.Scale != judge.Likert || h.Labelled != 12 || h.Pairable != 11 ||
		strings.Join(h.Annotators, ",") != "A,B,C,D" {
		t.Errorf("humans = %+v", h)
	}
	for _, tc := range []struct {
		name      string
		got       Interval
		want, pub float64
		decimals  int
	}{
		{"percent agreement", h.PercentAgreement, 9.0 / 11, 0.8181818, 7},
		{"fleiss", h.FleissKappa, 0.7611692754224111, 0.76117, 5},
		{"ac1", h.GwetAC1, 0.775444068126995, 0.77544, 5},
		{"ac2", h.GwetAC2, 0.9140007235516048, 0.914, 3},
		{"alpha nominal", h.AlphaNominal, 113.0 / 152, 0.743, 3},
		{"alpha ordinal", h.AlphaOrdinal, 108577.0 / 133160, 0.815, 3},
		{"alpha interval", h.AlphaInterval, 951.0 / 1120, 0.849, 3},
		{"alpha ratio", h.AlphaRatio, 18222619.0 / 22852465, 0.797, 3},
	} {
		near(t, tc.name, tc.got.Estimate(), tc.want)
		publishedAs(t, tc.name, tc.got.Estimate(), tc.pub, tc.decimals)
	}
	if !strings.Contains(h.SmallSample, "11 items") {
		t.Errorf("small sample = %q, want a warning about 11 items", h.SmallSample)
	}
	// Pairwise Cohen's kappa: A and B rated units 1–9 together; they
	// differ on unit 6 only (1 vs 2).
	var ab *AnnotatorPair
	for i := range h.Pairs {
		if h.Pairs[i].A == "A" && h.Pairs[i].B == "B" {
			ab = &h.Pairs[i]
		}
	}
	if ab == nil || ab.N != 9 {
		t.Fatalf("pairs = %+v, want A–B over 9 units", h.Pairs)
	}
	c := NewConfusion(judge.Likert.Values())
	for u := range 9 {
		c.Add(krippendorff2011[0][u], krippendorff2011[1][u])
	}
	near(t, "kappa A–B", ab.CohenKappa.Estimate(), c.CohenKappa().Value)
}

func TestHumansIntervals(t *testing.T) {
	in := raw4ratersInput()
	key := dimKey{"score", judge.Likert}
	var ns notes
	h := buildHumansWith(&in, key, &ns, 7, 1000)
	again := buildHumansWith(&in, key, &ns, 7, 1000)
	other := buildHumansWith(&in, key, &ns, 8, 1000)
	figs := func(r HumanAgreement) map[string]Interval {
		return map[string]Interval{
			"percent agreement": r.PercentAgreement, "fleiss": r.FleissKappa, "ac1": r.GwetAC1, "ac2": r.GwetAC2,
			"alpha nominal": r.AlphaNominal, "alpha ordinal": r.AlphaOrdinal, "alpha interval": r.AlphaInterval, "alpha ratio": r.AlphaRatio,
		}
	}
	a, b, o := figs(h.report), figs(again.report), figs(other.report)
	moved := 0
	for name, iv := range a {
		if !iv.Defined() || !finite(iv.Low) || !finite(iv.High) {
			t.Errorf("%s = %+v, want a value and bounds", name, iv)
			continue
		}
		if iv.Low > iv.Value+1e-12 || iv.High < iv.Value-1e-12 || iv.High > 1+1e-12 {
			t.Errorf("%s = %v [%v, %v]: the interval should hold the estimate and stay ≤ 1", name, iv.Value, iv.Low, iv.High)
		}
		if b[name] != iv {
			t.Errorf("%s: same seed gave %+v then %+v", name, iv, b[name])
		}
		if o[name].Low != iv.Low || o[name].High != iv.High {
			moved++
		}
	}
	if moved == 0 {
		t.Errorf("another seed gave the same intervals")
	}
	for _, p := range h.report.Pairs {
		if p.N >= 5 && (!finite(p.CohenKappa.Low) || !finite(p.CohenKappa.High)) && p.CohenKappa.Reason == "" {
			t.Errorf("pair %s–%s: kappa %+v has no bounds and no reason", p.A, p.B, p.CohenKappa)
		}
	}
	// Without resamples: values, no bounds.
	point := buildHumansWith(&in, key, &ns, 7, 0)
	if iv := point.report.FleissKappa; iv.Value != a["fleiss"].Value || !math.IsNaN(iv.Low) || !math.IsNaN(iv.High) {
		t.Errorf("no resamples: fleiss = %+v", iv)
	}
}

func TestHumansSmallSampleWarning(t *testing.T) {
	for _, pairable := range []int{29, 30} {
		in := Input{Dimensions: []judge.Dimension{{Name: "ok", Scale: judge.Binary}}}
		for u := range pairable + 5 {
			unit := Unit{ItemID: fmt.Sprint(u)}
			unit.Labels = append(unit.Labels, Label{Annotator: "ann", Values: map[string]float64{"ok": float64(u % 2)}})
			if u < pairable {
				unit.Labels = append(unit.Labels, Label{Annotator: "bob", Values: map[string]float64{"ok": float64(u % 3 % 2)}})
			}
			in.Units = append(in.Units, unit)
		}
		h := Compute(in, Options{Resamples: -1}).Humans[0]
		if h.Pairable != pairable || h.Labelled != pairable+5 {
			t.Errorf("pairable %d, labelled %d", h.Pairable, h.Labelled)
		}
		if got := h.SmallSample != ""; got != (pairable < MinReliableItems) {
			t.Errorf("%d pairable units: small sample = %q", pairable, h.SmallSample)
		}
	}
}

// syntheticRatings draws n units rated by up to raters annotators on q
// categories, each annotator missing a unit with probability miss, the
// annotators agreeing with the unit's true category most of the time.
func syntheticRatings(r *rand.Rand, n, raters, q int, miss float64) [][]int {
	out := make([][]int, 0, n)
	for len(out) < n {
		row := make([]int, q)
		truth, got := r.IntN(q), 0
		for range raters {
			if r.Float64() < miss {
				continue
			}
			c := truth
			if r.Float64() < 0.3 {
				c = r.IntN(q)
			}
			row[c]++
			got++
		}
		if got > 0 {
			out = append(out, row)
		}
	}
	return out
}

func TestMultiRaterBootstrapIsTheUnitBootstrap(t *testing.T) {
	// Drawing pattern multiplicities from the multinomial, drawing units
	// one by one, and resampling the rows by hand and calling the public
	// functions must give the same intervals up to Monte Carlo error.
	cats := []float64{1, 2, 3, 4, 5}
	rows := syntheticRatings(rand.New(rand.NewPCG(1, 2)), 600, 3, len(cats), 0.25)
	s := newPatternSet(cats, true)
	for _, row := range rows {
		s.add(row)
	}
	const resamples = 1000
	byPattern := s.intervals(11, resamples, true, true)
	byUnit := s.intervals(12, resamples, true, false)

	r := rand.New(rand.NewPCG(3, 4))
	naive := make([][]float64, numMultiFigures)
	pick := make([][]int, len(rows))
	for range resamples {
		for i := range pick {
			pick[i] = rows[r.IntN(len(rows))]
		}
		for f, e := range []Estimate{
			figPercentAgreement: PercentAgreementMulti(pick), figFleiss: FleissKappa(pick), figAC1: GwetAC1Multi(pick),
			figAC2: GwetAC2Multi(pick, cats), figAlphaNominal: alphaOfRows(pick, cats, Nominal),
			figAlphaOrdinal: alphaOfRows(pick, cats, Ordinal), figAlphaInterval: alphaOfRows(pick, cats, IntervalLevel),
			figAlphaRatio: alphaOfRows(pick, cats, Ratio),
		} {
			naive[f] = append(naive[f], e.Value)
		}
	}
	for f := range numMultiFigures {
		lo, hi := percentileInterval(naive[f])
		for name, iv := range map[string]Interval{"patterns": byPattern[f], "units": byUnit[f]} {
			if math.Abs(iv.Low-lo) > 0.02 || math.Abs(iv.High-hi) > 0.02 {
				t.Errorf("figure %d by %s: [%.4f, %.4f], naive bootstrap [%.4f, %.4f]", f, name, iv.Low, iv.High, lo, hi)
			}
		}
		if byPattern[f].Value != byUnit[f].Value {
			t.Errorf("figure %d: point %v vs %v", f, byPattern[f].Value, byUnit[f].Value)
		}
	}
}

// alphaOfRows is Krippendorff's alpha of count rows through
// KrippendorffAlpha's reliability-data form.
func alphaOfRows(rows [][]int, cats []float64, level Level) Estimate {
	maxR := 0
	for _, row := range rows {
		r := 0
		for _, x := range row {
			r += x
		}
		maxR = max(maxR, r)
	}
	data := make([][]float64, maxR)
	for o := range data {
		data[o] = make([]float64, len(rows))
		for u := range rows {
			data[o][u] = math.NaN()
		}
	}
	for u, row := range rows {
		o := 0
		for k, x := range row {
			for range x {
				data[o][u] = cats[k]
				o++
			}
		}
	}
	return KrippendorffAlpha(data, level)
}

func TestMultiRaterMatchesDefinitions(t *testing.T) {
	// The pattern sums equal the figures computed unit by unit: alpha
	// through the reliability-data form, the others through
	// testdata/reference.py's formulas written out here in floats.
	cats := []float64{0, 0.5, 1}
	rows := syntheticRatings(rand.New(rand.NewPCG(5, 6)), 300, 4, len(cats), 0.4)
	s := newPatternSet(cats, true)
	for _, row := range rows {
		s.add(row)
	}
	iv := s.multiRaterIntervals(1, 0, true)
	for f, level := range map[multiFigure]Level{figAlphaNominal: Nominal, figAlphaOrdinal: Ordinal, figAlphaInterval: IntervalLevel, figAlphaRatio: Ratio} {
		if want := alphaOfRows(rows, cats, level); math.Abs(iv[f].Value-want.Value) > 1e-12 {
			t.Errorf("alpha %v = %v, reliability data give %v", level, iv[f].Value, want.Value)
		}
	}
	var pa, paQ float64
	var paired int
	pi := make([]float64, len(cats))
	for _, row := range rows {
		r := 0
		for _, x := range row {
			r += x
		}
		for k, x := range row {
			pi[k] += float64(x) / float64(r) / float64(len(rows))
		}
		if r < 2 {
			continue
		}
		paired++
		for k, x := range row {
			pa += float64(x*(x-1)) / float64(r*(r-1))
			xw := 0.0
			for l, y := range row {
				d := cats[k] - cats[l]
				xw += (1 - d*d) * float64(y)
			}
			paQ += float64(x) * (xw - 1) / float64(r*(r-1))
		}
	}
	pa, paQ = pa/float64(paired), paQ/float64(paired)
	var fl, g, tw float64
	for k, p := range pi {
		fl += p * p
		g += p * (1 - p)
		for l := range cats {
			d := cats[k] - cats[l]
			tw += 1 - d*d
		}
	}
	for _, tc := range []struct {
		f    multiFigure
		want float64
	}{
		{figPercentAgreement, pa},
		{figFleiss, (pa - fl) / (1 - fl)},
		{figAC1, (pa - g/2) / (1 - g/2)},
		{figAC2, (paQ - tw*g/6) / (1 - tw*g/6)},
	} {
		if math.Abs(iv[tc.f].Value-tc.want) > 1e-12 {
			t.Errorf("figure %d = %v, want %v", tc.f, iv[tc.f].Value, tc.want)
		}
	}
}

func TestHumansOneAnnotatorAndNominal(t *testing.T) {
	in := Input{Dimensions: []judge.Dimension{{Name: "grade", Scale: "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED"}}}
	for u := range 40 {
		in.Units = append(in.Units, Unit{ItemID: fmt.Sprint(u), Labels: []Label{
			{Annotator: "ann", Values: map[string]float64{"grade": float64(u % 3)}},
			{Annotator: "bob", Values: map[string]float64{"grade": float64(u % 2)}},
		}})
	}
	h := Compute(in, Options{Seed: 3}).Humans[0]
	if !h.FleissKappa.Defined() || !h.AlphaNominal.Defined() || h.SmallSample != "" {
		t.Errorf("nominal: %+v", h)
	}
	if h.GwetAC2.Defined() || h.AlphaOrdinal.Defined() || h.AlphaRatio.Defined() || h.GwetAC2.Reason == "" {
		t.Errorf("nominal scale got ordinal figures: ac2 %+v, alpha ordinal %+v", h.GwetAC2, h.AlphaOrdinal)
	}
	for i := range in.Units {
		in.Units[i].Labels = in.Units[i].Labels[:1]
	}
	h = Compute(in, Options{Seed: 3}).Humans[0]
	if h.FleissKappa.Defined() || h.PercentAgreement.Defined() || !strings.Contains(h.FleissKappa.Reason, "two or more annotators") {
		t.Errorf("one annotator: fleiss %+v, pa %+v", h.FleissKappa, h.PercentAgreement)
	}
}

// BenchmarkHumansMillion is the humans' side of `gavel stats` on a million
// units, three annotators with missing labels, on a binary and a Likert
// dimension, with the default 1,000 resamples.
func BenchmarkHumansMillion(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	in := Input{Dimensions: []judge.Dimension{{Name: "ok", Scale: judge.Binary}, {Name: "score", Scale: judge.Likert}}}
	in.Units = make([]Unit, 1_000_000)
	for u := range in.Units {
		in.Units[u].ItemID = fmt.Sprint(u)
		for _, who := range []string{"ann", "bob", "cy"} {
			if r.Float64() < 0.3 {
				continue
			}
			in.Units[u].Labels = append(in.Units[u].Labels, Label{Annotator: who, Provenance: "random",
				Values: map[string]float64{"ok": float64(r.IntN(2)), "score": float64(1 + r.IntN(5))}})
		}
	}
	b.ResetTimer()
	for range b.N {
		var ns notes
		for _, d := range in.Dimensions {
			buildHumansWith(&in, dimKey{d.Name, d.Scale}, &ns, 1, DefaultResamples)
		}
	}
}
