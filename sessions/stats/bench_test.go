package stats

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// benchInput builds n labelled units: two judges rating a binary and a
// Likert dimension, one annotator on every unit and a second on one in
// ten, ten segment values, a third of the labels reached through a filter,
// one unit in twenty re-judged and three samples per verdict of one judge.
func benchInput(n int) Input {
	r := rand.New(rand.NewPCG(1, 1))
	dims := []judge.Dimension{{Name: "correct", Scale: judge.Binary}, {Name: "quality", Scale: judge.Likert}}
	in := Input{Judges: []JudgeSpec{{Key: "match", Dimensions: dims}, {Key: "llm", Dimensions: dims}}}
	noisy := func(v, lo, hi float64) float64 {
		if r.IntN(5) == 0 {
			return lo + float64(r.IntN(int(hi-lo)+1))
		}
		return v
	}
	provs := []string{"random", "order", "filter:disagreements"}
	in.Units = make([]Unit, n)
	for i := range in.Units {
		c := float64(r.IntN(2))
		q := float64(1 + r.IntN(5))
		judgeVals := func() map[string]float64 {
			return map[string]float64{"correct": noisy(c, 0, 1), "quality": noisy(q, 1, 5)}
		}
		u := Unit{ItemID: strconv.Itoa(i), Segments: map[string]string{"category": "c" + strconv.Itoa(i%10)}}
		u.Verdicts = []Verdict{
			{Judge: "match", Status: judge.StatusOK, Values: judgeVals()},
			{Judge: "llm", Status: judge.StatusOK, Values: judgeVals(), Samples: []map[string]float64{judgeVals(), judgeVals(), judgeVals()}},
		}
		if i%20 == 0 {
			u.Verdicts = append(u.Verdicts, Verdict{Judge: "llm", Status: judge.StatusOK, Values: judgeVals()})
		}
		if i%50 == 0 {
			u.Verdicts[0] = Verdict{Judge: "match", Status: judge.StatusParseError}
		}
		u.Labels = []Label{{Annotator: "alice", Values: map[string]float64{"correct": c, "quality": q}, Provenance: provs[r.IntN(3)]}}
		if i%10 == 0 {
			u.Labels = append(u.Labels, Label{Annotator: "bob", Values: map[string]float64{"correct": noisy(c, 0, 1), "quality": noisy(q, 1, 5)}, Provenance: "random"})
		}
		in.Units[i] = u
	}
	return in
}

// BenchmarkCompute100k is the spec's performance target: all statistics,
// 1,000 bootstrap resamples, 100,000 labelled items (target < 1 s/op).
// It also reports CPU seconds per op, which a busy shared machine does not
// inflate the way it inflates wall time.
func BenchmarkCompute100k(b *testing.B) {
	in := benchInput(100_000)
	b.ResetTimer()
	start, ok := cpuSeconds()
	for range b.N {
		Compute(in, Options{Seed: 1, Resamples: 1000})
	}
	if end, ok2 := cpuSeconds(); ok && ok2 {
		b.ReportMetric((end-start)/float64(b.N), "cpu-s/op")
	}
}

// BenchmarkAgreement100k is one judge-vs-human table over 100,000 items,
// tabulation included.
func BenchmarkAgreement100k(b *testing.B) {
	j, h := randomPairs(rand.New(rand.NewPCG(2, 2)), judge.Likert, 100_000)
	b.ResetTimer()
	for range b.N {
		c, _ := Tabulate(judge.Likert.Values(), j, h)
		AgreementOf(c, judge.Likert, 1, 1000)
	}
}

// BenchmarkKendallSlices100k is tau-b on 100,000 continuous pairs.
func BenchmarkKendallSlices100k(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	x, y := make([]float64, 100_000), make([]float64, 100_000)
	for i := range x {
		x[i] = r.NormFloat64()
		y[i] = x[i] + r.NormFloat64()
	}
	b.ResetTimer()
	for range b.N {
		KendallTauB(x, y)
	}
}

// BenchmarkAgreementOfBootstrap is AgreementOf with 1,000 bootstrap
// resamples on a binary and a Likert table of 1,000 items: the item
// bootstrap of every coefficient, whose cost does not grow with the items.
func BenchmarkAgreementOfBootstrap(b *testing.B) {
	for _, scale := range []judge.Scale{judge.Binary, judge.Likert} {
		j, h := randomPairs(rand.New(rand.NewPCG(4, 4)), scale, 1000)
		c, _ := Tabulate(scale.Values(), j, h)
		b.Run(string(scale), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				AgreementOf(c, scale, 1, 1000)
			}
		})
	}
}
