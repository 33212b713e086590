package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// gradedInput is a session of n items judged by a Likert judge
// ("quality", dimension "correctness"), a binary judge with logprob
// confidences ("docqa", dimension "correct") and one that samples four
// times ("voter"), with random binary human labels on "correct" for most
// items.
func gradedInput(seed uint64, n int) Input {
	r := rand.New(rand.NewPCG(seed, 1))
	in := Input{Judges: []JudgeSpec{
		{Key: "quality", Dimensions: []judge.Dimension{{Name: "correctness", Scale: judge.Likert}}},
		{Key: "docqa", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}},
		{Key: "voter", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}},
	}}
	votes := rand.New(rand.NewPCG(seed, 2)) // its own stream: the others' draws are unchanged
	for i := range n {
		truth := r.Float64() < 0.6
		score := float64(1 + r.IntN(3))
		if truth {
			score += 2
		}
		score = min(max(score+float64(r.IntN(3)-1), 1), 5)
		yes := truth
		if r.Float64() < 0.2 {
			yes = !yes
		}
		conf := 0.5 + r.Float64()/2
		v := 0.0
		if yes {
			v = 1
		}
		u := Unit{ItemID: fmt.Sprint(i), Verdicts: []Verdict{
			{Judge: "quality", Status: judge.StatusOK, Values: map[string]float64{"correctness": score}},
			{Judge: "docqa", Status: judge.StatusOK, Values: map[string]float64{"correct": v}, Confidence: &conf},
		}}
		if i%7 == 3 {
			u.Verdicts[1].Confidence = nil // unknown
		}
		// voter samples four times: its share of YES samples is a
		// probability of YES, its verdict the majority (a 2–2 tie is NO).
		pYes := 0.3
		if truth {
			pYes = 0.75
		}
		var samples []map[string]float64
		k := 0
		for range 4 {
			s := 0.0
			if votes.Float64() < pYes {
				s, k = 1, k+1
			}
			samples = append(samples, map[string]float64{"correct": s})
		}
		vv := 0.0
		if k >= 3 {
			vv = 1
		}
		u.Verdicts = append(u.Verdicts, Verdict{Judge: "voter", Status: judge.StatusOK, Values: map[string]float64{"correct": vv}, Samples: samples})
		if r.Float64() < 0.8 {
			h := 0.0
			if truth {
				h = 1
			}
			u.Labels = []Label{{Annotator: "ann", Values: map[string]float64{"correct": h}, Provenance: "random"}}
		}
		in.Units = append(in.Units, u)
	}
	return in
}

// bruteBest searches every cut of the sweep by counting the pairs afresh,
// and returns the cut of lowest total cost (the lowest on a tie).
func bruteBest(pairs [][2]float64, cuts []float64, cfp, cff float64) float64 {
	best, bestCost := math.NaN(), math.Inf(1)
	for _, t := range cuts {
		cost := 0.0
		for _, p := range pairs {
			pass := p[0] >= t-1e-9
			switch {
			case pass && p[1] == 0:
				cost += cfp
			case !pass && p[1] == 1:
				cost += cff
			}
		}
		if cost < bestCost {
			best, bestCost = t, cost
		}
	}
	return best
}

func TestOperatingBestCutIsBruteForce(t *testing.T) {
	in := gradedInput(7, 400)
	// The pairs as a user would read them off the input.
	var scorePairs, probPairs [][2]float64
	for _, u := range in.Units {
		if len(u.Labels) == 0 {
			continue
		}
		h := u.Labels[0].Values["correct"]
		scorePairs = append(scorePairs, [2]float64{u.Verdicts[0].Values["correctness"], h})
		yes := 0
		for _, smp := range u.Verdicts[2].Samples {
			yes += int(smp["correct"])
		}
		probPairs = append(probPairs, [2]float64{float64(yes) / 4, h})
	}
	probCuts := make([]float64, 21)
	for k := range probCuts {
		probCuts[k] = float64(k) / 20
	}
	for _, costs := range []Costs{{FalsePass: 1, FalseFail: 1}, {FalsePass: 5, FalseFail: 1}, {FalsePass: 1, FalseFail: 4}} {
		rep := Compute(in, Options{Seed: 1, Resamples: -1, Costs: &costs})
		if len(rep.OperatingPoints) != 2 {
			t.Fatalf("%d operating points, want 2 (quality vs correct, voter)", len(rep.OperatingPoints))
		}
		for _, op := range rep.OperatingPoints {
			pairs, cuts := probPairs, probCuts
			if op.Grade == GradeScore {
				pairs, cuts = scorePairs, []float64{1, 2, 3, 4, 5, 6}
			}
			if op.Labelled != len(pairs) {
				t.Errorf("%s: %d labelled, want %d", op.Judge, op.Labelled, len(pairs))
			}
			if op.Best == nil {
				t.Fatalf("%s: no best cut", op.Judge)
			}
			if want := bruteBest(pairs, cuts, costs.FalsePass, costs.FalseFail); op.Best.Cut != want {
				t.Errorf("%s, costs %v: best cut %v, brute force %v", op.Judge, costs, op.Best.Cut, want)
			}
		}
	}
	// Costlier false passes never lower the best cut.
	lo := Compute(in, Options{Resamples: -1, Costs: &Costs{FalsePass: 1, FalseFail: 1}}).OperatingPoints[0].Best.Cut
	hi := Compute(in, Options{Resamples: -1, Costs: &Costs{FalsePass: 5, FalseFail: 1}}).OperatingPoints[0].Best.Cut
	if hi < lo {
		t.Errorf("best cut %v with costly false passes, below %v", hi, lo)
	}
}

func TestOperatingSweepCounts(t *testing.T) {
	in := gradedInput(3, 200)
	rep := Compute(in, Options{Resamples: -1})
	op := rep.OperatingPoints[0]
	if op.Grade != GradeScore || op.Against != "correct" || op.Judge != "quality" {
		t.Fatalf("first operating point %s %s against %s", op.Judge, op.Grade, op.Against)
	}
	first, last := op.Cuts[0], op.Cuts[len(op.Cuts)-1]
	if first.PassRate.Value != 1 || last.PassRate.Value != 0 {
		t.Errorf("pass rates %v at the lowest cut and %v above the top, want 1 and 0", first.PassRate, last.PassRate)
	}
	if first.FalseFails != 0 || last.FalsePasses != 0 {
		t.Errorf("passing all fails %d; passing none passes %d", first.FalseFails, last.FalsePasses)
	}
	// Every cut's errors add up with its agreement.
	for _, c := range op.Cuts {
		agree := int(math.Round(c.Agreement.Value * float64(op.Labelled)))
		if agree+c.FalsePasses+c.FalseFails != op.Labelled {
			t.Errorf("cut %v: %d agree + %d + %d ≠ %d", c.Cut, agree, c.FalsePasses, c.FalseFails, op.Labelled)
		}
	}
	// A binary judge's logprob confidence is not a probability of YES (a
	// NO's 1 − c holds every other token too): it gets a reliability curve
	// and no sweep.
	for _, op := range rep.OperatingPoints {
		if op.Grade == GradeLogprob {
			t.Errorf("%s is swept over its logprob confidence", op.Judge)
		}
	}
	found := false
	for _, r := range rep.Reliability {
		if r.Judge == "docqa" && r.Confidence == GradeLogprob {
			found = true
			if r.Unknown == 0 {
				t.Errorf("docqa's curve counts no unknown confidence")
			}
		}
	}
	if !found {
		t.Error("docqa has no reliability curve")
	}
}

func TestOperatingBand(t *testing.T) {
	in := gradedInput(11, 500)
	rep := Compute(in, Options{Resamples: -1, Costs: &Costs{FalsePass: 1, FalseFail: 1, BandAgreement: 0.9}})
	op := rep.OperatingPoints[0]
	if op.Band == nil {
		t.Fatalf("no band: %s", op.BandReason)
	}
	b := op.Band
	// Recount the band by hand.
	sent, rest, agree := 0, 0, 0
	for _, u := range in.Units {
		s := u.Verdicts[0].Values["correctness"]
		if s >= b.Low && s < b.High {
			sent++
			continue
		}
		if len(u.Labels) == 0 {
			continue
		}
		rest++
		if (s >= b.High) == (u.Labels[0].Values["correct"] == 1) {
			agree++
		}
	}
	if sent != b.SentItems || rest != b.Rest || b.Agreement.Value != float64(agree)/float64(rest) {
		t.Errorf("band %v–%v: sent %d rest %d agreement %v, recount %d %d %d/%d", b.Low, b.High, b.SentItems, b.Rest, b.Agreement.Value, sent, rest, agree, rest)
	}
	if b.Agreement.Value < 0.9 || b.Rest < MinReliableItems {
		t.Errorf("band leaves %v agreement, below the target", b.Agreement.Value)
	}
	// No narrower band reaches the target.
	for _, c := range op.Cuts {
		for _, d := range op.Cuts {
			if c.Cut >= d.Cut {
				continue
			}
			s, r, a := 0, 0, 0
			for _, u := range in.Units {
				x := u.Verdicts[0].Values["correctness"]
				if x >= c.Cut && x < d.Cut {
					s++
				} else if len(u.Labels) > 0 {
					r++
					if (x >= d.Cut) == (u.Labels[0].Values["correct"] == 1) {
						a++
					}
				}
			}
			if r >= MinReliableItems && float64(a)/float64(r) >= 0.9 && s < b.SentItems {
				t.Errorf("band %v–%v sends %d < %d and reaches the target", c.Cut, d.Cut, s, b.SentItems)
			}
		}
	}
}

// TestReliabilityHandCount checks the bins and the calibration error
// against a count made by hand.
func TestReliabilityHandCount(t *testing.T) {
	// confidence, judge value, human value
	items := []struct{ c, v, h float64 }{
		{0.55, 1, 1}, {0.58, 0, 1}, {0.52, 1, 0}, // bin 5: 3 items, 1 right, mean 0.55
		{0.75, 1, 1}, {0.71, 0, 0}, // bin 7: 2 items, 2 right, mean 0.73
		{0.95, 1, 1}, {0.99, 0, 0}, {0.91, 1, 0}, {1.0, 1, 1}, // bin 9: 4 items, 3 right, mean 0.9625
		{0.65, 1, 1}, // bin 6: 1 item, right, 0.65
	}
	in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}}}
	for i, it := range items {
		c := it.c
		in.Units = append(in.Units, Unit{ItemID: fmt.Sprint(i),
			Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"correct": it.v}, Confidence: &c}},
			Labels:   []Label{{Annotator: "a", Values: map[string]float64{"correct": it.h}}}})
	}
	// one labelled item without a confidence, one with it withheld (nil)
	in.Units = append(in.Units, Unit{ItemID: "x", Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}},
		Labels: []Label{{Annotator: "a", Values: map[string]float64{"correct": 1}}}})
	rep := Compute(in, Options{Seed: 5, Resamples: 200})
	if len(rep.Reliability) != 1 {
		t.Fatalf("%d reliability curves", len(rep.Reliability))
	}
	r := rep.Reliability[0]
	if r.N != 10 || r.Unknown != 1 || r.Confidence != GradeLogprob {
		t.Errorf("n %d unknown %d source %s, want 10 1 logprob", r.N, r.Unknown, r.Confidence)
	}
	want := map[int][3]float64{5: {3, 1, 0.55}, 6: {1, 1, 0.65}, 7: {2, 2, 0.73}, 9: {4, 3, 0.9625}}
	e := 0.0
	for b, bin := range r.Bins {
		w, ok := want[b]
		if !ok {
			if bin.N != 0 || bin.Confidence.Defined() {
				t.Errorf("bin %d: %d items", b, bin.N)
			}
			continue
		}
		if bin.N != int(w[0]) || math.Abs(bin.Agreement.Value-w[1]/w[0]) > 1e-12 || math.Abs(bin.Confidence.Value-w[2]) > 1e-12 {
			t.Errorf("bin %d: n %d agreement %v confidence %v, want %v", b, bin.N, bin.Agreement.Value, bin.Confidence.Value, w)
		}
		e += w[0] / 10 * math.Abs(w[1]/w[0]-w[2])
	}
	if math.Abs(r.ECE.Value-e) > 1e-12 {
		t.Errorf("ECE %v, hand count %v", r.ECE.Value, e)
	}
	if !r.ECE.HasBounds() || r.ECE.Low > r.ECE.Value || r.ECE.High < r.ECE.Low {
		t.Errorf("ECE interval %v", r.ECE)
	}
	again := Compute(in, Options{Seed: 5, Resamples: 200}).Reliability[0].ECE
	if again != r.ECE {
		t.Errorf("same seed, ECE %v then %v", r.ECE, again)
	}
}

// Samples give the grade when there is no logprob confidence.
func TestOperatingSamples(t *testing.T) {
	in := Input{Judges: []JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "ok", Scale: judge.Binary}}}}}
	yes := map[string]float64{"ok": 1}
	no := map[string]float64{"ok": 0}
	in.Units = []Unit{
		{ItemID: "a", Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: yes, Samples: []map[string]float64{yes, yes, no}}},
			Labels: []Label{{Annotator: "p", Values: yes}}},
		{ItemID: "b", Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: no, Samples: []map[string]float64{no, no, yes}}},
			Labels: []Label{{Annotator: "p", Values: yes}}},
		{ItemID: "c", Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK, Values: no, Samples: []map[string]float64{no, no, no}}},
			Labels: []Label{{Annotator: "p", Values: no}}},
	}
	rep := Compute(in, Options{Resamples: -1})
	op := rep.OperatingPoints[0]
	if op.Grade != GradeSamples || op.Graded != 3 {
		t.Fatalf("grade %s graded %d", op.Grade, op.Graded)
	}
	// P(YES): 2/3, 1/3, 0. The cut at 0.3 passes a and b: no error.
	if op.Best == nil || op.Best.Cost.Value != 0 || op.Best.Cut > 1.0/3 || op.Best.Cut <= 0 {
		t.Errorf("best %+v", op.Best)
	}
	rel := rep.Reliability[0]
	if rel.Bins[6].N != 2 || rel.Bins[9].N != 1 {
		t.Errorf("bins %+v", rel.Bins)
	}
	b, _ := json.Marshal(rep.OperatingPoints)
	if strings.Contains(string(b), "NaN") {
		t.Errorf("NaN in JSON: %s", b)
	}
}

// The ECE is the per-item sum over bins, also for confidences on either
// side of a bin's edge that round to one grain (0.0996 and 0.1004): the
// bootstrap's cells never cross an edge.
func TestECEAtBinEdges(t *testing.T) {
	items := []confidentUnit{{0.0996, true}, {0.0996, true}, {0.1004, false}, {0.1004, false}, {0.1004, true}, {0.55, true}, {0.55, false}, {0.9, true}}
	var n, right, conf [ReliabilityBins]float64
	for _, it := range items {
		b := int(it.conf * ReliabilityBins)
		n[b]++
		conf[b] += it.conf
		if it.right {
			right[b]++
		}
	}
	want := 0.0
	for b := range n {
		if n[b] > 0 {
			want += n[b] / float64(len(items)) * math.Abs(right[b]/n[b]-conf[b]/n[b])
		}
	}
	if got := ece(items); math.Abs(got-want) > 1e-12 {
		t.Errorf("ECE %v, by hand %v", got, want)
	}
}

// A single cut that already reaches the target agreement needs no band:
// nothing is sent to people.
func TestNoBandNeeded(t *testing.T) {
	var in Input
	in.Judges = []JudgeSpec{{Key: "quality", Dimensions: []judge.Dimension{{Name: "correctness", Scale: judge.Likert}}}}
	in.Dimensions = []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	for i := range 60 {
		score, h := 2.0, 0.0
		if i%2 == 0 {
			score, h = 4, 1
		}
		in.Units = append(in.Units, Unit{ItemID: fmt.Sprint(i),
			Verdicts: []Verdict{{Judge: "quality", Status: judge.StatusOK, Values: map[string]float64{"correctness": score}}},
			Labels:   []Label{{Annotator: "ann", Values: map[string]float64{"correct": h}, Provenance: "random"}}})
	}
	ops := Compute(in, Options{Resamples: -1}).OperatingPoints
	if len(ops) != 1 {
		t.Fatalf("%d operating points", len(ops))
	}
	if ops[0].Band != nil || !strings.Contains(ops[0].BandReason, "none needed") {
		t.Errorf("band %+v (%q) for a judge that agrees at one cut", ops[0].Band, ops[0].BandReason)
	}
}
