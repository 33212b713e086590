package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/gavel-dev/gavel/judge"
)

// Operating points of graded judges: a judge whose verdict carries a grade
// — a score on an ordinal scale, or on a binary scale the probability of
// YES from its logprob confidence or from its samples — is read at every
// cut of that grade against binary human labels, as it would be deployed
// with that pass threshold.

// Grade sources, as OperatingPoints.Grade and Reliability.Confidence name
// them.
const (
	// GradeScore is an ordinal judge's score itself: it passes an item
	// when the score is at least the cut.
	GradeScore = "score"
	// GradeLogprob is the probability the judge gave its own answer, from
	// logprobs (Verdict.Confidence); on a binary scale the grade is the
	// probability of YES: the confidence of a YES, one minus that of a NO.
	GradeLogprob = "logprob"
	// GradeSamples is the share of the verdict's samples that agree: on a
	// binary scale the grade is the share of samples saying YES.
	GradeSamples = "samples"
)

// Costs weigh the two errors a pass threshold trades against each other,
// for OperatingPoints.Best, and set the agreement the "ask a human" band
// must reach on the items it does not send to people.
type Costs struct {
	// FalsePass is the cost of a judge's YES where the human said NO;
	// FalseFail that of a NO where the human said YES. Both ≥ 0.
	FalsePass float64 `json:"false_pass"`
	FalseFail float64 `json:"false_fail"`
	// BandAgreement is the agreement with the humans the band must leave
	// on the rest; 0 means DefaultBandAgreement.
	BandAgreement float64 `json:"band_agreement"`
}

// DefaultBandAgreement is the agreement the "ask a human" band aims for
// on the items it leaves to the judge.
const DefaultBandAgreement = 0.95

// DefaultCosts weighs both errors alike.
var DefaultCosts = Costs{FalsePass: 1, FalseFail: 1, BandAgreement: DefaultBandAgreement}

// cutTolerance absorbs rounding in a grade computed as 1 − confidence or
// a share of samples: a grade passes a cut when grade ≥ cut − cutTolerance.
const cutTolerance = 1e-9

// probabilityCuts is the number of steps of the sweep over a probability
// grade: cuts 0, 0.05, …, 1.
const probabilityCuts = 20

// OperatingPoints reads one graded judge dimension at every cut against
// the humans' binary labels on Against (the judge's own dimension when it
// is binary; for an ordinal judge, each binary dimension people labelled
// on its items). Every labelled pair counts, however it was reached: see
// the dimension's Selection for whether they are a fair sample.
type OperatingPoints struct {
	Judge     string      `json:"judge"`
	Dimension string      `json:"dimension"`
	Scale     judge.Scale `json:"scale"`
	// Grade is GradeScore or GradeSamples (a logprob confidence is not a
	// probability of YES: it gets a reliability curve, not a sweep).
	Grade string `json:"grade"`
	// Against is the binary dimension of the human labels.
	Against string `json:"against"`
	// Graded counts the judge's ok verdicts with a grade; Unknown those
	// without one (no confidence, or one withheld as meaningless; fewer
	// than two samples), left out of every figure below.
	Graded  int `json:"graded"`
	Unknown int `json:"unknown"`
	// Labelled counts the graded items with a human label on Against (a
	// single label or the annotators' majority).
	Labelled    int    `json:"labelled"`
	SmallSample string `json:"small_sample,omitempty"`
	// Costs are the costs Best minimises.
	Costs Costs `json:"costs"`
	// Cuts is the sweep, lowest cut first: an item passes a cut when its
	// grade is at least the cut. For a score, every point of the scale and
	// one step above the top (nothing passes); for a probability, 0 to 1
	// in steps of 0.05.
	Cuts []OperatingCut `json:"cuts"`
	// Best is the cut of lowest mean cost per labelled item, the lowest
	// such cut on a tie; null when no item is labelled.
	Best *OperatingCut `json:"best"`
	// Band is the narrowest "ask a human" band: null when no band leaves
	// Costs.BandAgreement on MinReliableItems or more labelled items it
	// keeps, with BandReason saying why.
	Band       *Band  `json:"band"`
	BandReason string `json:"band_reason,omitempty"`
}

// OperatingCut is the judge deployed with one pass threshold.
type OperatingCut struct {
	// Cut: the judge passes an item whose grade is at least Cut.
	Cut float64 `json:"cut"`
	// PassRate is the share of graded items that pass: the judge's score
	// over its whole dataset at this cut.
	PassRate Estimate `json:"pass_rate"`
	// Agreement, FalsePassRate (of the human NOs, the share passed) and
	// FalseFailRate (of the human YESes, the share failed) have Wilson
	// intervals; CohenKappa is the point estimate.
	Agreement     Interval `json:"agreement"`
	FalsePassRate Interval `json:"false_pass_rate"`
	FalseFailRate Interval `json:"false_fail_rate"`
	CohenKappa    Estimate `json:"cohen_kappa"`
	FalsePasses   int      `json:"false_passes"`
	FalseFails    int      `json:"false_fails"`
	// Cost = (FalsePass·false passes + FalseFail·false fails) / labelled.
	Cost Estimate `json:"cost"`
}

// Band sends the items whose grade is in [Low, High) to people: the judge
// fails those below Low and passes those at High or above.
type Band struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Sent is the share of graded items in the band (SentItems of them):
	// the labelling it asks for.
	SentItems int      `json:"sent_items"`
	Sent      Estimate `json:"sent"`
	// Rest counts the labelled items outside the band, and Agreement is
	// the judge's agreement with the humans on them (Wilson interval).
	Rest      int      `json:"rest"`
	Agreement Interval `json:"agreement"`
}

// gradedUnit is one graded item: its grade and the human's binary label
// (-1 none).
type gradedUnit struct {
	grade float64
	human int8
}

// operatingPoints builds the sweep of one graded judge dimension against
// the human binary dimension h.
func operatingPoints(judgeKey string, jd *judgeDim, grade string, units []gradedUnit, unknown int, against string, costs Costs) OperatingPoints {
	op := OperatingPoints{Judge: judgeKey, Dimension: jd.key.name, Scale: jd.key.scale, Grade: grade,
		Against: against, Graded: len(units), Unknown: unknown, Costs: costs, Cuts: []OperatingCut{}}
	cuts := sweepCuts(jd.key.scale, grade)
	// bucket counts per cut interval k: grade in [cut k, cut k+1).
	total, yes, no := make([]int, len(cuts)+1), make([]int, len(cuts)+1), make([]int, len(cuts)+1)
	for _, u := range units {
		b := bucketOf(cuts, u.grade) + 1 // 0: below every cut
		total[b]++
		switch u.human {
		case 1:
			yes[b]++
			op.Labelled++
		case 0:
			no[b]++
			op.Labelled++
		}
	}
	if op.Labelled > 0 && op.Labelled < MinReliableItems {
		op.SmallSample = smallSampleWarning(op.Labelled)
	}
	// above[k] counts the items passing cut k (buckets k+1 and up).
	above := func(xs []int, k int) int { return sum(xs[k+1:]) }
	bestCost := math.Inf(1)
	for k, t := range cuts {
		pass, tp, fp := above(total, k), above(yes, k), above(no, k)
		fn, tn := sum(yes)-tp, sum(no)-fp
		conf := NewConfusion([]float64{0, 1})
		conf.Counts[0][0], conf.Counts[0][1], conf.Counts[1][0], conf.Counts[1][1] = tn, fp, fn, tp
		row := OperatingCut{Cut: t, PassRate: ratio(float64(pass), float64(len(units)), "no graded items"),
			Agreement: withReason(Wilson(tp+tn, op.Labelled), reasonNoPairs), CohenKappa: conf.CohenKappa(),
			FalsePasses: fp, FalseFails: fn,
			FalsePassRate: withReason(Wilson(fp, fp+tn), "no item the humans failed"),
			FalseFailRate: withReason(Wilson(fn, fn+tp), "no item the humans passed"),
			Cost:          ratio(costs.FalsePass*float64(fp)+costs.FalseFail*float64(fn), float64(op.Labelled), reasonNoPairs)}
		op.Cuts = append(op.Cuts, row)
		if row.Cost.Defined() && row.Cost.Value < bestCost {
			bestCost = row.Cost.Value
			op.Best = &op.Cuts[len(op.Cuts)-1]
		}
	}
	if op.Best != nil {
		b := *op.Best // a copy, not an alias into Cuts
		op.Best = &b
	}
	op.Band, op.BandReason = bestBand(cuts, total, yes, no, len(units), costs.BandAgreement)
	return op
}

// sweepCuts lists the cuts of a grade, ascending.
func sweepCuts(scale judge.Scale, grade string) []float64 {
	if grade == GradeScore {
		vals := scale.Values()
		cuts := append([]float64(nil), vals...)
		step := 1.0
		if len(vals) > 1 {
			step = vals[len(vals)-1] - vals[len(vals)-2]
		}
		return append(cuts, vals[len(vals)-1]+step)
	}
	cuts := make([]float64, probabilityCuts+1)
	for k := range cuts {
		cuts[k] = float64(k) / probabilityCuts
	}
	return cuts
}

// bucketOf is the index of the highest cut the grade passes, -1 when it
// passes none.
func bucketOf(cuts []float64, g float64) int {
	b := -1
	for k, t := range cuts {
		if g >= t-cutTolerance {
			b = k
		}
	}
	return b
}

// bestBand finds the band [cuts[i], cuts[j]) that sends the smallest
// share of graded items to people while the judge agrees with the humans
// on at least target of the labelled items left to it, of which there
// must be MinReliableItems or more (else a band that keeps one lucky
// item would do); on a tie the one with the higher agreement on the
// rest, then the lower band.
func bestBand(cuts []float64, total, yes, no []int, graded int, target float64) (*Band, string) {
	if graded == 0 {
		return nil, "no graded items"
	}
	if sum(yes)+sum(no) == 0 {
		return nil, reasonNoPairs
	}
	// prefix sums over buckets: p[b] counts buckets < b.
	prefix := func(xs []int) []int {
		p := make([]int, len(xs)+1)
		for i, x := range xs {
			p[i+1] = p[i] + x
		}
		return p
	}
	pt, py, pn := prefix(total), prefix(yes), prefix(no)
	// Items failing cut i are in buckets 0..i (bucket index k+1 holds
	// grades in [cut k, cut k+1)); those passing cut j in buckets j+1 and up.
	// A single cut that already reaches the target needs no band: no item
	// has to go to people (a band is never better than sending none).
	for i := range cuts {
		agree := pn[i+1] + py[len(yes)] - py[i+1]
		labelled := pn[len(no)] + py[len(yes)]
		if labelled >= MinReliableItems && float64(agree) >= (target-cutTolerance)*float64(labelled) {
			return nil, fmt.Sprintf("none needed: at the cut %s alone the judge agrees with the humans on %d of %d labelled items (at least %s)", FormatNumber(cuts[i], 2), agree, labelled, FormatNumber(100*target, 0)+"%")
		}
	}
	var best *Band
	bestSent, bestAgree := 0, -1.0
	for i := range cuts {
		for j := i + 1; j < len(cuts); j++ {
			sent := pt[j+1] - pt[i+1]
			failNo := pn[i+1]
			passYes := py[len(yes)] - py[j+1]
			rest := pn[i+1] + py[i+1] + (py[len(yes)] - py[j+1]) + (pn[len(no)] - pn[j+1])
			if rest < MinReliableItems {
				continue // too few labels left to tell its agreement
			}
			agree := float64(failNo+passYes) / float64(rest)
			if agree < target-cutTolerance {
				continue
			}
			if best == nil || sent < bestSent || (sent == bestSent && agree > bestAgree) {
				best = &Band{Low: cuts[i], High: cuts[j], SentItems: sent,
					Sent: ratio(float64(sent), float64(graded), "no graded items"),
					Rest: rest, Agreement: Wilson(failNo+passYes, rest)}
				bestSent, bestAgree = sent, agree
			}
		}
	}
	if best == nil {
		return nil, fmt.Sprintf("no band leaves the judge %s agreement on %d or more labelled items it keeps", FormatPercent(target, 0), MinReliableItems)
	}
	return best, ""
}

// Reliability compares a judge's confidence in its verdicts with how often
// they agree with the humans, on the judge's own dimension: a reliability
// curve in ten bins of confidence, and the expected calibration error.
type Reliability struct {
	Judge     string      `json:"judge"`
	Dimension string      `json:"dimension"`
	Scale     judge.Scale `json:"scale"`
	// Confidence is GradeLogprob (Verdict.Confidence) or GradeSamples (the
	// share of the verdict's samples that gave its value).
	Confidence string `json:"confidence"`
	// N counts the labelled items whose verdict has a confidence; Unknown
	// the labelled items whose verdict has none (left out).
	N           int    `json:"n"`
	Unknown     int    `json:"unknown"`
	SmallSample string `json:"small_sample,omitempty"`
	// Bins are [0, 0.1), [0.1, 0.2), …, [0.9, 1]: each with its items, their
	// mean confidence and their agreement with the humans (Wilson).
	Bins []ReliabilityBin `json:"bins"`
	// ECE, the expected calibration error, is Σ (n_bin / N)·|agreement −
	// mean confidence| over the bins, with a seeded percentile bootstrap
	// over the items.
	ECE Interval `json:"ece"`
}

// ReliabilityBin is one bin of the reliability curve.
type ReliabilityBin struct {
	Low        float64  `json:"low"`
	High       float64  `json:"high"`
	N          int      `json:"n"`
	Confidence Estimate `json:"confidence"`
	Agreement  Interval `json:"agreement"`
}

// ReliabilityBins is the number of bins of the reliability curve.
const ReliabilityBins = 10

// confidentUnit is one labelled item with the judge's confidence and
// whether the judge agreed with the humans.
type confidentUnit struct {
	conf  float64
	right bool
}

// binOf is the reliability bin of a confidence.
func binOf(c float64) int {
	return min(max(int(c*ReliabilityBins+cutTolerance), 0), ReliabilityBins-1)
}

// reliability builds the reliability curve of items.
func reliability(judgeKey string, jd *judgeDim, source string, items []confidentUnit, unknown int, seed uint64, resamples int) Reliability {
	r := Reliability{Judge: judgeKey, Dimension: jd.key.name, Scale: jd.key.scale, Confidence: source,
		N: len(items), Unknown: unknown, Bins: make([]ReliabilityBin, ReliabilityBins)}
	if r.N > 0 && r.N < MinReliableItems {
		r.SmallSample = smallSampleWarning(r.N)
	}
	confSum, right := make([]float64, ReliabilityBins), make([]int, ReliabilityBins)
	for _, it := range items {
		b := binOf(it.conf)
		r.Bins[b].N++
		confSum[b] += it.conf
		if it.right {
			right[b]++
		}
	}
	for b := range r.Bins {
		bin := &r.Bins[b]
		bin.Low, bin.High = float64(b)/ReliabilityBins, float64(b+1)/ReliabilityBins
		bin.Confidence = ratio(confSum[b], float64(bin.N), "no item in this bin")
		bin.Agreement = withReason(Wilson(right[b], bin.N), "no item in this bin")
	}
	if r.N == 0 {
		r.ECE = undefinedInterval("no labelled item has a confidence")
		return r
	}
	r.ECE = Interval{Value: ece(items), Low: math.NaN(), High: math.NaN()}
	if resamples <= 0 {
		return r
	}
	// Resample the items as a multinomial draw over cells of items with
	// the same confidence to three decimals and the same correctness, each
	// cell standing at its items' mean confidence: the cost of a resample
	// then does not grow with the number of items. The point estimate
	// above uses every item's own confidence.
	cells := eceCells(items)
	counts := make([]int, len(cells))
	for i, c := range cells {
		counts[i] = c.n
	}
	rng := newRand(seed, "ece")
	draw := make([]int, len(cells))
	samples := make([]float64, resamples)
	for s := range samples {
		multinomial(rng, len(items), counts, draw)
		samples[s] = eceOfCells(cells, draw)
	}
	r.ECE.Low, r.ECE.High = percentileInterval(samples)
	return r
}

// eceCell is the items of one confidence (to 1/eceGrain) and correctness.
type eceCell struct {
	conf  float64 // their mean confidence
	right bool
	n     int
}

// eceGrain is the resolution of the bootstrap's cells of confidence.
const eceGrain = 1000

// eceCells groups items into cells, in order of confidence: by bin, then
// confidence to eceGrain, then correctness. A cell never crosses a bin's
// edge (0.0996 and 0.1004 round alike but lie in two bins), so the cells
// at full weight give exactly the point ECE.
func eceCells(items []confidentUnit) []eceCell {
	type cellKey struct{ bin, grain, right int }
	sums := map[cellKey]float64{}
	ns := map[cellKey]int{}
	for _, it := range items {
		k := cellKey{binOf(it.conf), int(math.Round(min(max(it.conf, 0), 1) * eceGrain)), 0}
		if it.right {
			k.right = 1
		}
		sums[k] += it.conf
		ns[k]++
	}
	keys := make([]cellKey, 0, len(ns))
	for k := range ns {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b cellKey) int {
		return cmp.Or(cmp.Compare(a.bin, b.bin), cmp.Compare(a.grain, b.grain), cmp.Compare(a.right, b.right))
	})
	out := make([]eceCell, 0, len(keys))
	for _, k := range keys {
		out = append(out, eceCell{conf: sums[k] / float64(ns[k]), right: k.right == 1, n: ns[k]})
	}
	return out
}

// eceOfCells is the expected calibration error of cells, cell i counted
// weight[i] times.
func eceOfCells(cells []eceCell, weight []int) float64 {
	var n, right, conf [ReliabilityBins]float64
	total := 0.0
	for i, c := range cells {
		w := float64(weight[i])
		if w == 0 {
			continue
		}
		b := binOf(c.conf)
		n[b] += w
		conf[b] += w * c.conf
		if c.right {
			right[b] += w
		}
		total += w
	}
	return calibrationError(n, right, conf, total)
}

// ece is the expected calibration error of items: the sum over their cells
// (eceCells), each counted as many times as it holds items — the same
// code the bootstrap resamples cells with, so the point and its interval
// are one statistic.
func ece(items []confidentUnit) float64 {
	cells := eceCells(items)
	w := make([]int, len(cells))
	for i, c := range cells {
		w[i] = c.n
	}
	return eceOfCells(cells, w)
}

// calibrationError is Σ (n_b / total)·|right_b/n_b − conf_b/n_b|.
func calibrationError(n, right, conf [ReliabilityBins]float64, total float64) float64 {
	e := 0.0
	for b := range n {
		if n[b] > 0 {
			e += n[b] / total * math.Abs(right[b]/n[b]-conf[b]/n[b])
		}
	}
	return e
}
