package stats

import (
	"fmt"
	"math"

	"github.com/gavel-dev/gavel/judge"
)

// Agreement is every figure comparing a judge with a reference (the
// humans, or a second judge) over the N units where both gave a value.
type Agreement struct {
	N int `json:"n"`
	// PercentAgreement is exact agreement with a Wilson 95 % interval.
	PercentAgreement Interval `json:"percent_agreement"`
	// CohenKappa, GwetAC1 and AlphaNominal (Krippendorff's alpha at the
	// nominal level) carry a seeded item-bootstrap 95 % interval.
	CohenKappa   Interval `json:"cohen_kappa"`
	GwetAC1      Interval `json:"gwet_ac1"`
	AlphaNominal Interval `json:"alpha_nominal"`
	// SmallSample is set when N is below MinReliableItems: the intervals
	// are then unreliable (the bootstrap understates the uncertainty of a
	// handful of items), and the sentence says so.
	SmallSample string `json:"small_sample,omitempty"`
	// JudgeMean and ReferenceMean are the mean values on these units: pass
	// rates (proportions) on a binary scale, mean scores on an ordinal
	// one, the share of preferences for B (ties counting half) on a
	// pairwise one. Undefined on a nominal scale, whose categories have
	// no mean.
	JudgeMean     Estimate `json:"judge_mean"`
	ReferenceMean Estimate `json:"reference_mean"`
	// ScoreBias = JudgeMean − ReferenceMean, with a seeded percentile
	// bootstrap 95 % interval. Positive: the judge inflates the score (on
	// a pairwise scale, favours B). Undefined on a nominal scale.
	ScoreBias Interval `json:"score_bias"`
	// Ordinal holds the ordinal figures; null unless the scale is ordinal.
	Ordinal *OrdinalAgreement `json:"ordinal"`
	// Binary holds the figures with the reference as truth; null unless the
	// scale is binary.
	Binary *BinaryAgreement `json:"binary"`
	// Classes holds the per-class and macro precision, recall and F1 with
	// the reference as truth; null unless the scale is nominal or pairwise.
	Classes *ClassAgreement `json:"classes"`
	// Confusion is the table itself: rows the reference, columns the judge.
	Confusion Confusion `json:"confusion"`
}

// reasonNoMean is why a nominal scale has no mean or score bias.
const reasonNoMean = "no mean on a nominal scale"

// OrdinalAgreement holds the figures that use the order of an ordinal
// scale (ternary, Likert, 1–10, 0–10…); never on binary, nominal or
// pairwise scales, whose values are categories.
type OrdinalAgreement struct {
	// Step is one step of the scale (0.5 ternary, 1 otherwise), the tolerance
	// of WithinOne.
	Step float64 `json:"step"`
	// Every coefficient carries a seeded item-bootstrap 95 % interval.
	LinearKappa    Interval `json:"linear_kappa"`
	QuadraticKappa Interval `json:"quadratic_kappa"`
	AlphaOrdinal   Interval `json:"alpha_ordinal"`
	AlphaInterval  Interval `json:"alpha_interval"`
	AlphaRatio     Interval `json:"alpha_ratio"`
	// MeanAbsoluteError and MeanSignedDifference (judge − reference) are in
	// scale points.
	MeanAbsoluteError    Interval `json:"mean_absolute_error"`
	MeanSignedDifference Interval `json:"mean_signed_difference"`
	Spearman             Interval `json:"spearman"`
	KendallTauB          Interval `json:"kendall_tau_b"`
	// ExactAgreement equals PercentAgreement; WithinOne allows one step.
	ExactAgreement Interval `json:"exact_agreement"`
	WithinOne      Interval `json:"within_one"`
}

// AgreementOf computes every figure of c for the given scale, the table
// being over the scale's values (NewConfusion(scale.Values())), so that
// the chance terms of kappa, AC1 and alpha count every category of the
// scale. The figures follow the scale's kind: ordinal figures on ordinal
// scales only, the binary classifier figures on binary ones, per-class
// figures on nominal and pairwise ones, means and score bias wherever a
// mean means something (Scale.Numeric).
//
// Each coefficient's value is its method's on c. Its bounds, and the score
// bias's, come from one item bootstrap of the table with the given seed
// and number of resamples (see bootstrapTable): every coefficient is
// computed on the same resamples, so the score bias and the mean signed
// difference of an ordinal scale, which are the same figure, get the same
// interval. The bounds are undefined with resamples ≤ 0, and, with a
// reason, when fewer than 90 % of the resamples define the coefficient.
// Proportions (percent agreement, within-one, the binary rates) carry
// Wilson intervals instead.
func AgreementOf(c Confusion, scale judge.Scale, seed uint64, resamples int) Agreement {
	a := Agreement{
		N:                c.N(),
		PercentAgreement: c.PercentAgreement(),
		Confusion:        c,
	}
	if a.N > 0 && a.N < MinReliableItems {
		a.SmallSample = smallSampleWarning(a.N)
	}
	// One bootstrap for every coefficient: the place of each is its index
	// in coefs, its value the method's.
	var (
		coefs  []tableCoef
		points []Estimate
		dests  []*Interval
	)
	add := func(dst *Interval, e Estimate, f tableCoef) {
		coefs, points, dests = append(coefs, f), append(points, e), append(dests, dst)
	}
	add(&a.CohenKappa, c.CohenKappa(), coefCohenKappa)
	add(&a.GwetAC1, c.GwetAC1(), coefGwetAC1)
	add(&a.AlphaNominal, c.KrippendorffAlpha(Nominal), coefAlphaNominal)
	if scale.Numeric() {
		a.JudgeMean, a.ReferenceMean = c.JudgeMean(), c.ReferenceMean()
		add(&a.ScoreBias, c.ScoreBias(seed, 0).Estimate(), coefMSD)
	} else {
		a.JudgeMean, a.ReferenceMean = undefined(reasonNoMean), undefined(reasonNoMean)
		a.ScoreBias = undefinedInterval(reasonNoMean)
	}
	if scale.Categorical() {
		// Positions (0, 1, 2…) stand for the categories: name them.
		a.Confusion.Names = categoryNames(scale, c.Categories)
		cl := c.Classes(a.Confusion.Names)
		a.Classes = &cl
	}
	if scale.Ordinal() {
		step := scaleStep(c.Categories)
		o := &OrdinalAgreement{
			Step:           step,
			ExactAgreement: a.PercentAgreement,
			WithinOne:      c.WithinOne(step),
		}
		add(&o.LinearKappa, c.WeightedKappa(Linear), coefLinearKappa)
		add(&o.QuadraticKappa, c.WeightedKappa(Quadratic), coefQuadraticKappa)
		add(&o.AlphaOrdinal, c.KrippendorffAlpha(Ordinal), coefAlphaOrdinal)
		add(&o.AlphaInterval, c.KrippendorffAlpha(IntervalLevel), coefAlphaInterval)
		add(&o.AlphaRatio, c.KrippendorffAlpha(Ratio), coefAlphaRatio)
		add(&o.MeanAbsoluteError, c.MeanAbsoluteError(), coefMAE)
		add(&o.MeanSignedDifference, c.MeanSignedDifference(), coefMSD)
		add(&o.Spearman, c.Spearman(), coefSpearman)
		add(&o.KendallTauB, c.KendallTauB(), coefKendallTauB)
		a.Ordinal = o
	}
	for i, b := range c.bootstrapTable(seed, "agreement", resamples, coefs) {
		*dests[i] = withBounds(points[i], b)
	}
	if b, ok := c.Binary(); ok && scale.Kind() == judge.KindBinary {
		a.Binary = &b
	}
	return a
}

// categoryNames names each of cats as the scale does.
func categoryNames(scale judge.Scale, cats []float64) []string {
	names := make([]string, len(cats))
	for i, v := range cats {
		names[i] = scale.Format(v)
	}
	return names
}

// scaleStep is the smallest gap between two categories.
func scaleStep(cats []float64) float64 {
	step := math.Inf(1)
	for i := 1; i < len(cats); i++ {
		step = min(step, cats[i]-cats[i-1])
	}
	if math.IsInf(step, 1) {
		return 0
	}
	return step
}

// MinReliableItems is the number of items below which a bootstrap
// interval is flagged as unreliable: with fewer, the resamples repeat a
// handful of patterns and the percentile interval is too narrow.
const MinReliableItems = 30

// smallSampleWarning is the sentence shown beside figures over n items,
// n below MinReliableItems.
func smallSampleWarning(n int) string {
	return fmt.Sprintf("only %s: the intervals are unreliable below %d", itemsWord(n), MinReliableItems)
}

// pointOnly is an estimate as an interval whose bounds are not known.
func pointOnly(e Estimate) Interval {
	return Interval{Value: e.Value, Low: math.NaN(), High: math.NaN(), Reason: e.Reason}
}
