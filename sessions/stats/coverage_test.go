package stats

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// The coverage of AgreementOf's bootstrap intervals for Cohen's kappa and
// Gwet's AC1, by simulation. The design was fixed before looking at the
// results: a binary judge with sensitivity 0.9 and specificity 0.75 on
// items that pass at 0.7 (the humans' verdict), n = 200 items a dataset.

const (
	covPrevalence  = 0.7
	covSensitivity = 0.9
	covSpecificity = 0.75
	covItems       = 200
)

// covJoint is the population's joint distribution, p[human][judge] over
// NO = 0, YES = 1.
func covJoint() [2][2]float64 {
	var p [2][2]float64
	p[1][1] = covPrevalence * covSensitivity
	p[1][0] = covPrevalence * (1 - covSensitivity)
	p[0][1] = (1 - covPrevalence) * (1 - covSpecificity)
	p[0][0] = (1 - covPrevalence) * covSpecificity
	return p
}

// covPopulation is the population's kappa and AC1, from the definitions.
func covPopulation() (kappa, ac1 float64) {
	p := covJoint()
	po := p[0][0] + p[1][1]
	human := [2]float64{p[0][0] + p[0][1], p[1][0] + p[1][1]}
	judge := [2]float64{p[0][0] + p[1][0], p[0][1] + p[1][1]}
	pe := human[0]*judge[0] + human[1]*judge[1]
	kappa = (po - pe) / (1 - pe)
	// AC1 with q = 2: pe = Σ πk(1 − πk) / (q − 1), πk the mean of the two
	// raters' shares.
	peAC1 := 0.0
	for k := range 2 {
		pi := (human[k] + judge[k]) / 2
		peAC1 += pi * (1 - pi)
	}
	ac1 = (po - peAC1) / (1 - peAC1)
	return kappa, ac1
}

type covResult struct {
	datasets                        int
	covered, truthBelow, truthAbove [2]int // kappa, AC1
	noBounds                        [2]int
	widthSum                        [2]float64
	populationKappa, popAC1         float64
	resamplesPerDataset, size       int
}

// covSimulate draws datasets of covItems items from the population and
// counts how often each interval holds the population value.
func covSimulate(seed uint64, datasets, resamples int) covResult {
	kappa, ac1 := covPopulation()
	res := covResult{datasets: datasets, populationKappa: kappa, popAC1: ac1, resamplesPerDataset: resamples, size: covItems}
	p := covJoint()
	r := rand.New(rand.NewPCG(seed, 0xc0fe))
	for d := range datasets {
		c := NewConfusion(judge.Binary.Values())
		for range covItems {
			u := r.Float64()
			switch {
			case u < p[1][1]:
				c.Counts[1][1]++
			case u < p[1][1]+p[1][0]:
				c.Counts[1][0]++
			case u < p[1][1]+p[1][0]+p[0][1]:
				c.Counts[0][1]++
			default:
				c.Counts[0][0]++
			}
		}
		a := AgreementOf(c, judge.Binary, deriveSeed(seed, "coverage", strconv.Itoa(d)), resamples)
		for i, x := range []struct {
			iv   Interval
			want float64
		}{{a.CohenKappa, kappa}, {a.GwetAC1, ac1}} {
			switch {
			case !x.iv.HasBounds():
				res.noBounds[i]++
			case x.want < x.iv.Low:
				res.truthBelow[i]++
			case x.want > x.iv.High:
				res.truthAbove[i]++
			default:
				res.covered[i]++
			}
			if x.iv.HasBounds() {
				res.widthSum[i] += x.iv.High - x.iv.Low
			}
		}
	}
	return res
}

// covCheck holds each coverage to [lo, hi] and logs it.
func covCheck(t *testing.T, res covResult, lo, hi float64) {
	t.Helper()
	t.Logf("population kappa %.6f, AC1 %.6f; %d datasets of %d items, %d resamples each",
		res.populationKappa, res.popAC1, res.datasets, res.size, res.resamplesPerDataset)
	for i, name := range []string{"Cohen's kappa", "Gwet's AC1"} {
		cov := float64(res.covered[i]) / float64(res.datasets)
		se := math.Sqrt(cov * (1 - cov) / float64(res.datasets))
		t.Logf("%s: coverage %.4f (SE %.4f), truth below the interval %d, above %d, no bounds %d, mean width %.4f",
			name, cov, se, res.truthBelow[i], res.truthAbove[i], res.noBounds[i], res.widthSum[i]/float64(res.datasets))
		if cov < lo || cov > hi {
			t.Errorf("%s: the 95 %% intervals held the population value in %.2f %% of %d datasets, want %.1f–%.1f %%",
				name, 100*cov, res.datasets, 100*lo, 100*hi)
		}
	}
}

// TestAgreementCoverage is the quick check: 400 datasets, 500 resamples
// each, coverage within 93–97 % (about ±1.8 binomial SE around 95 %).
func TestAgreementCoverage(t *testing.T) {
	covCheck(t, covSimulate(1, 400, 500), 0.93, 0.97)
}

// TestAgreementCoverageLong is the coverage benchmark the spec asks for:
// 2,000 datasets, 1,000 resamples each, coverage within three binomial
// SE of 95 % (±1.5 points). It takes a few seconds; set
// GAVEL_COVERAGE_LONG=1 to run it.
func TestAgreementCoverageLong(t *testing.T) {
	if os.Getenv("GAVEL_COVERAGE_LONG") != "1" {
		t.Skip("the long coverage benchmark runs with GAVEL_COVERAGE_LONG=1")
	}
	const datasets = 2000
	band := 3 * math.Sqrt(0.95*0.05/datasets)
	covCheck(t, covSimulate(2, datasets, 1000), 0.95-band, 0.95+band)
}
