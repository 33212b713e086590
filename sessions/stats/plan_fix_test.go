package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/plan"
)

// rankOrder simulates labelling the first m items of an active plan of n
// out of N in its rank order (as the review screen offers them), with
// reps fresh datasets: binary humans at 0.65, a judge right with
// probability c_i = conf(r) that reports c_i. It returns the mean target,
// the mean HT and corrected-score estimates, their coverage, and the
// items taken with certainty per plan.
type rankOrderResult struct {
	target, ht, ppi   float64
	htCover, ppiCover float64
	certain           float64
}

func rankOrder(seed uint64, N, n, m, reps int, conf func(*rand.Rand) float64) rankOrderResult {
	r := rand.New(rand.NewPCG(seed, 1))
	var out rankOrderResult
	units := make([]plan.Unit, N)
	for range reps {
		d := simDataset{y: make([]float64, N), f: make([]float64, N)}
		for i := range N {
			c := conf(r)
			if r.Float64() < 0.65 {
				d.y[i] = 1
			}
			d.f[i] = d.y[i]
			if r.Float64() >= c {
				d.f[i] = 1 - d.y[i]
			}
			d.target += d.y[i]
			units[i] = plan.Unit{Size: math.Sqrt(1 - c), PRN: r.Float64()}
		}
		d.target /= float64(N)
		sel, lam := plan.Select(plan.Active, units, n, 0.2)
		for _, i := range sel {
			if lam[i] >= 1 {
				out.certain++
			}
		}
		fig := simSample(d, sel, lam, func(rank, _ int) bool { return rank < m }).estimate(false)
		out.target += d.target
		out.ht += fig.ht.value
		out.ppi += fig.ppi.value
		if math.Abs(fig.ht.value-d.target) <= fig.ht.halfWidth() {
			out.htCover++
		}
		if math.Abs(fig.ppi.value-d.target) <= fig.ppi.halfWidth() {
			out.ppiCover++
		}
	}
	R := float64(reps)
	out.target /= R
	out.ht /= R
	out.ppi /= R
	out.htCover /= R
	out.ppiCover /= R
	out.certain /= R
	return out
}

// TestPlanRankOrderCertainties (review finding 1): labelling part of an
// active plan in its rank order labels the items taken with certainty
// first. Scaling their probability 1 down with the others' (one response
// group) weighted them up to stand for the rest: the HT mean came out
// 0.48 for a true 0.65 (N 2,000, n 300, 150 labelled, a judge sure of
// most items). With the certain items a response group of their own the
// estimates are unbiased and the corrected score covers.
func TestPlanRankOrderCertainties(t *testing.T) {
	peaked := func(r *rand.Rand) float64 { return 1 - 0.5*math.Pow(r.Float64(), 20) }
	const reps = 300
	res := rankOrder(11, 2000, 300, 150, reps, peaked)
	t.Logf("certain per plan %.1f; target %.4f HT %.4f (coverage %.3f) corrected %.4f (coverage %.3f)",
		res.certain, res.target, res.ht, res.htCover, res.ppi, res.ppiCover)
	if res.certain < 10 {
		t.Fatalf("only %.1f certain items per plan: the case is not exercised", res.certain)
	}
	// The mean of 300 estimates with sd ≈ 0.05 is within 0.01 of the truth.
	for what, v := range map[string]float64{"HT": res.ht, "corrected score": res.ppi} {
		if math.Abs(v-res.target) > 0.01 {
			t.Errorf("%s mean %.4f, target %.4f: biased", what, v, res.target)
		}
	}
	if lo, _ := binomialBand(0.95, reps); res.ppiCover < lo {
		t.Errorf("corrected score coverage %.3f below %.3f", res.ppiCover, lo)
	}
}

// TestPlanCertainGroups: by hand — an active plan of 4 with one certain
// item; the certain item and one other labelled. The certain item keeps
// p = 1, the other stands for the 3 uncertain planned items (p = π·1/3).
// Without the certain item's label, it is merged with the uncertain
// items (with a note); with only the certain item labelled there is no
// estimate.
func TestPlanCertainGroups(t *testing.T) {
	pc := planCase{
		design:   "active",
		verdicts: repeat(1, 10),
		probs:    []float64{1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25},
		selected: []int{0, 1, 2, 3},
		labels:   map[int][]Label{0: planLabel(1), 1: planLabel(0)},
	}
	r := planReport(planPtr(pc.input()))
	// HT: (1/1 + 0/(0.5/3))/10 = 0.1.
	planNear(t, "HT", r.HumanMean.Value, 0.1)

	pc.labels = map[int][]Label{1: planLabel(1), 2: planLabel(0)}
	r = planReport(planPtr(pc.input()))
	// Merged: 2 of 4 respond, p = 0.5·2/4: HT (1/0.25)/10.
	planNear(t, "HT merged", r.HumanMean.Value, 0.4)
	if !strings.Contains(strings.Join(r.Notes, " "), "takes with certainty has no label yet") {
		t.Errorf("notes %q", r.Notes)
	}

	pc.labels = map[int][]Label{0: planLabel(1)}
	r = planReport(planPtr(pc.input()))
	if r.Score.Defined() || !strings.Contains(r.Score.Reason, "all on items the plan takes with certainty") {
		t.Errorf("only the certain item labelled: score %+v", r.Score)
	}
}

// TestPlanSatterthwaiteStrata (review finding 14): across strata the
// degrees of freedom are Satterthwaite's (ΣV_h)²/Σ(V_h²/(n_h − 1))
// (Cochran 1977, eq. 5.16), not a per-label count capped at m − H.
// Stratum A: 100 items, 10 drawn (π 0.1); B: 20 items, 5 drawn (π 0.25).
func TestPlanSatterthwaiteStrata(t *testing.T) {
	const N = 120
	pc := planCase{design: "stratified", verdicts: repeat(1, N), probs: make([]float64, N), strata: make([]string, N), labels: map[int][]Label{}}
	ya := []float64{1, 1, 0, 1, 0, 1, 1, 1, 0, 1}
	yb := []float64{0, 0, 1, 0, 1}
	for i := range N {
		if i < 100 {
			pc.probs[i], pc.strata[i] = 0.1, "A"
		} else {
			pc.probs[i], pc.strata[i] = 0.25, "B"
		}
	}
	for k, y := range ya {
		pc.selected = append(pc.selected, k)
		pc.labels[k] = planLabel(y)
	}
	for k, y := range yb {
		pc.selected = append(pc.selected, 100+k)
		pc.labels[100+k] = planLabel(y)
	}
	r := planReport(planPtr(pc.input()))
	// A: mean 0.7, s² = 0.7·0.3·10/9 = 0.2333…; V_A = 100²·0.9·s²/10.
	// B: mean 0.4, s² = 0.4·0.6·5/4 = 0.3; V_B = 20²·0.75·0.3/5.
	sa, sb := 0.7*0.3*10/9, 0.4*0.6*5/4
	va, vb := 100*100*0.9*sa/10, 20*20*0.75*sb/5
	df := (va + vb) * (va + vb) / (va*va/9 + vb*vb/4)
	checkInterval(t, "HT", r.HumanMean, (70+8)/120.0, math.Sqrt(va+vb)/N, df, 0, 1)
}

// TestPlanCollapsedStrata (review finding 6): a stratum with a single
// label gets an interval, its variance estimated with the stratum nearest
// in probability as one (collapsed strata, Cochran 1977, sec. 5A.12), and
// a note says so; the notes' grammar holds when no variance can be had.
func TestPlanCollapsedStrata(t *testing.T) {
	// Three strata: a (20 items, π 0.5), b (10, π 0.1), c (50, π 0.2); b
	// has one label, estimated with c, the nearest in probability.
	var strata []string
	var probs []float64
	add := func(name string, n int, p float64) {
		for range n {
			strata, probs = append(strata, name), append(probs, p)
		}
	}
	add("a", 20, 0.5)
	add("b", 10, 0.1)
	add("c", 50, 0.2)
	ya := []float64{1, 1, 1, 0, 1, 1, 1, 1, 0, 1}
	yc := []float64{1, 0, 0, 1, 1, 0, 1, 1, 1, 0}
	pc := planCase{design: "stratified", verdicts: repeat(1, 80), probs: probs, strata: strata, labels: map[int][]Label{}}
	for k, y := range ya {
		pc.selected = append(pc.selected, k)
		pc.labels[k] = planLabel(y)
	}
	pc.selected = append(pc.selected, 20)
	pc.labels[20] = planLabel(1)
	for k, y := range yc {
		pc.selected = append(pc.selected, 30+k)
		pc.labels[30+k] = planLabel(y)
	}
	r := planReport(planPtr(pc.input()))
	if !r.HumanMean.HasBounds() || !r.Score.HasBounds() || !r.Stop.HalfWidth.Defined() {
		t.Fatalf("a stratum with one label: human mean %+v score %+v stop %+v", r.HumanMean, r.Score, r.Stop)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "collapsed strata") {
		t.Errorf("notes %q", r.Notes)
	}
	// The variance is a's own plus b and c's taken as one stratum.
	sample := func(ys []float64, p ...float64) *planSample {
		s := &planSample{n: 80, y: ys, groups: 1}
		for i := range ys {
			s.p = append(s.p, p[min(i, len(p)-1)])
			s.group = append(s.group, 0)
		}
		return s
	}
	va, dfa, _ := sample(ya, 0.5).hrVar(ya)
	ybc := append([]float64{1}, yc...)
	vbc, dfbc, _ := sample(ybc, 0.1, 0.2).hrVar(ybc)
	df := (va + vbc) * (va + vbc) / (va*va/dfa + vbc*vbc/dfbc)
	value := (8/0.5 + 1/0.1 + 6/0.2) / 80
	checkInterval(t, "HT", r.HumanMean, value, math.Sqrt(va+vbc)/80, df, 0, 1)

	// One label below certainty in all: no variance, and a note in
	// grammar.
	pc.selected, pc.labels = []int{0, 1}, map[int][]Label{0: planLabel(1)}
	pc.strata = nil
	pc.design = "uniform"
	r = planReport(planPtr(pc.input()))
	joined := strings.Join(r.Notes, " ")
	if r.Score.HasBounds() || !strings.Contains(joined, "intervals need at least 2 labels") || strings.Contains(joined, "intervals needs") {
		t.Errorf("one label: score %+v notes %q", r.Score, joined)
	}
}

// TestPlanZeroVarianceStop (review finding 2): two labels agreeing with
// their verdicts gave a half-width of 0 and stopped the plan. The
// half-width is now the rule-of-three bound 3·range/m_eff, and the stop
// rule asks for the labels that bring it to the target (3/0.05 = 60).
func TestPlanZeroVarianceStop(t *testing.T) {
	pc := planCase{design: "uniform", verdicts: repeat(1, 1000), probs: repeat(0.1, 1000), labels: map[int][]Label{}}
	for i := range 100 {
		pc.selected = append(pc.selected, i)
	}
	pc.labels[0], pc.labels[1] = planLabel(1), planLabel(1)
	r := planReport(planPtr(pc.input()))
	if r.Stop.Reached {
		t.Errorf("two agreeing labels reach the stop rule: %+v", r.Stop)
	}
	planNear(t, "half-width", r.Stop.HalfWidth.Value, 1.5)
	planNear(t, "more", r.Stop.More.Value, 58)
	if r.Score.Low != 0 || r.Score.High != 1 {
		t.Errorf("score interval %+v, want the whole range", r.Score)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "rule-of-three") {
		t.Errorf("notes %q", r.Notes)
	}
	// 60 agreeing labels reach ±0.05.
	for i := 2; i < 60; i++ {
		pc.labels[i] = planLabel(1)
	}
	r = planReport(planPtr(pc.input()))
	if !r.Stop.Reached {
		t.Errorf("60 agreeing labels: %+v", r.Stop)
	}
	// A census of certain items is exact: no bound needed.
	pc = planCase{design: "uniform", verdicts: repeat(1, 3), probs: repeat(1, 3), selected: []int{0, 1, 2},
		labels: map[int][]Label{0: planLabel(1), 1: planLabel(1), 2: planLabel(1)}}
	r = planReport(planPtr(pc.input()))
	if r.Score.Low != 1 || r.Score.High != 1 || !r.Stop.Reached {
		t.Errorf("census: score %+v stop %+v", r.Score, r.Stop)
	}
}

// TestPlanClampedPoint (review finding 16): a weighted estimate past the
// scale's end printed outside its own (clamped) interval. The point is
// clamped too, the raw value kept in Unclamped, with a note.
func TestPlanClampedPoint(t *testing.T) {
	v := repeat(1, 10)
	v[0], v[1] = 0, 0
	pc := planCase{design: "uniform", verdicts: v, probs: repeat(0.2, 10), selected: []int{0, 1},
		labels: map[int][]Label{0: planLabel(1), 1: planLabel(1)}}
	r := planReport(planPtr(pc.input()))
	// (8 + 2/0.2)/10 = 1.8.
	if r.Score.Value != 1 || r.Score.Low > r.Score.Value || r.Score.High < r.Score.Value {
		t.Errorf("score %+v", r.Score)
	}
	planNear(t, "unclamped score", r.Unclamped["score"], 1.8)
	if _, ok := r.Unclamped["human_mean"]; ok {
		t.Errorf("human mean clamped: %v", r.Unclamped)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "shown at its end") {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestPlanUndefinedKeepsOffPlan (review findings 13 and 17): with no plan
// label yet, labels off the plan keep their mean, and a plan whose every
// item is "can't judge" says so rather than "not labelled yet".
func TestPlanUndefinedKeepsOffPlan(t *testing.T) {
	pc := planCase{design: "active", verdicts: repeat(1, 4), probs: repeat(0.5, 4), selected: []int{0, 1},
		labels: map[int][]Label{0: {{Annotator: "x", Values: map[string]float64{"ok": 1}, Provenance: "random"}}}}
	r := planReport(planPtr(pc.input()))
	if r.OffPlan.Labels != 1 || !r.OffPlan.Mean.Defined() || r.OffPlan.Mean.Value != 1 {
		t.Errorf("off plan %+v", r.OffPlan)
	}
	pc.labels, pc.cant = nil, []int{0, 1}
	r = planReport(planPtr(pc.input()))
	if !strings.Contains(r.Score.Reason, "every planned item is marked can't judge") {
		t.Errorf("all can't judge: %q", r.Score.Reason)
	}
	pc.cant = []int{0}
	r = planReport(planPtr(pc.input()))
	if !strings.Contains(r.Score.Reason, "(0 of 2; 1 can't judge or tied)") {
		t.Errorf("one can't judge: %q", r.Score.Reason)
	}
}

// TestPlanActiveHumanCaution (review finding 12): on an active plan the
// human-only means under-cover (89–94 % for 95 % in simulation), so the report
// flags them; a uniform plan's are plain simple random sampling and get
// no flag.
func TestPlanActiveHumanCaution(t *testing.T) {
	pc := planCase{design: "active", verdicts: repeat(1, 10), probs: []float64{0.4, 0.4, 0.4, 0.4, 0.3, 0.3, 0.5, 0.5, 0.4, 0.4}, selected: []int{0, 1, 2, 3},
		labels: map[int][]Label{0: planLabel(1), 1: planLabel(0), 2: planLabel(0), 3: planLabel(1)}}
	if r := planReport(planPtr(pc.input())); !strings.Contains(r.HumanMeanCaution, "less reliable than the corrected score") {
		t.Errorf("active: caution %q", r.HumanMeanCaution)
	}
	pc.design = "uniform"
	if r := planReport(planPtr(pc.input())); r.HumanMeanCaution != "" {
		t.Errorf("uniform: caution %q", r.HumanMeanCaution)
	}
}

// TestPlanStratifiedUnequalRates (review finding 19): a stratified
// plan's labels are fair for the unweighted figures only when its strata
// are sampled at rates within 10 % of each other; otherwise (the
// at-least-one allocation gives a small stratum a higher rate) they are
// set apart like an active plan's. Read from Input.Plan's units, or from
// PlanDesigns' DesignStratifiedUnequal for the session's other plans.
func TestPlanStratifiedUnequalRates(t *testing.T) {
	mk := func(probs []float64, designs map[int]string) Selection {
		pc := planCase{design: "stratified", verdicts: repeat(1, 6), probs: probs,
			strata: []string{"a", "a", "a", "b", "b", "b"}, selected: []int{0, 3},
			labels: map[int][]Label{0: planLabel(1), 3: planLabel(0)}}
		in := pc.input()
		if designs != nil {
			in.Plan = nil
		}
		in.PlanDesigns = designs
		return Compute(in, Options{Resamples: -1}).Judges[0].Dimensions[0].Overall.Selection
	}
	for _, tc := range []struct {
		name              string
		probs             []float64
		designs           map[int]string
		unbiased, planned int
	}{
		{"equal rates", repeat(1.0/3, 6), nil, 2, 0},
		{"within 10%", []float64{0.3, 0.3, 0.3, 0.32, 0.32, 0.32}, nil, 2, 0},
		{"unequal rates", []float64{0.2, 0.2, 0.2, 0.5, 0.5, 0.5}, nil, 0, 2},
		{"another plan, unequal", nil, map[int]string{1: DesignStratifiedUnequal}, 0, 2},
		{"another plan, stratified", nil, map[int]string{1: "stratified"}, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := tc.probs
			if probs == nil {
				probs = repeat(0.5, 6)
			}
			sel := mk(probs, tc.designs)
			if sel.Unbiased != tc.unbiased || sel.Planned != tc.planned {
				t.Errorf("unbiased %d planned %d, want %d %d", sel.Unbiased, sel.Planned, tc.unbiased, tc.planned)
			}
		})
	}
	if !StrataRatesEqual([]float64{0.1, 0.11}) || StrataRatesEqual([]float64{0.1, 0.111}) || !StrataRatesEqual(nil) {
		t.Error("StrataRatesEqual's 10 % bound")
	}
}

// TestPlanCorrections (review finding 10): an annotator who labelled a
// planned item following the plan and corrected it later another way (by
// script, say) left the item without a plan label: pending, i.e. missing
// at random, though corrections gather where the first label was in
// doubt. The current label now counts as the plan's response, and the
// report counts and says so. A label by someone who never labelled the
// item on the plan stays off the plan.
func TestPlanCorrections(t *testing.T) {
	script := func(who string, v float64) Label {
		return Label{Annotator: who, Values: map[string]float64{"ok": v}, Provenance: ProvenanceScript}
	}
	pc := planCase{design: "uniform", verdicts: repeat(1, 8), probs: repeat(0.5, 8), selected: []int{0, 1, 2, 3},
		labels: map[int][]Label{
			0: planLabel(1),
			1: planLabel(1),
			2: {script("ann", 0)}, // corrected: ann labelled it on the plan before
			3: {script("bo", 0)},  // bo never labelled it on the plan: off the plan
			4: {script("ann", 1)}, // not selected: not the plan's, whatever came before
		}}
	in := pc.input()
	r := planReport(&in)
	if r.Labelled != 2 || r.Pending != 2 || r.Corrections != 0 {
		t.Fatalf("without the history: labelled %d pending %d corrections %d", r.Labelled, r.Pending, r.Corrections)
	}
	in.Plan.Units[2].PlanAnnotators = []string{"ann"}
	in.Plan.Units[4].PlanAnnotators = []string{"ann"}
	r = planReport(&in)
	if r.Labelled != 3 || r.Pending != 1 || r.Corrections != 1 || r.OffPlan.Labels != 1 {
		t.Errorf("labelled %d pending %d corrections %d off plan %d", r.Labelled, r.Pending, r.Corrections, r.OffPlan.Labels)
	}
	// y = 1 1 0 at p = 0.5·3/4: HT (2/0.375)/8.
	planNear(t, "HT", r.HumanMean.Value, 2/0.375/8)
	if !strings.Contains(strings.Join(r.Notes, " "), "1 label on plan 1's items was corrected later") {
		t.Errorf("notes %q", r.Notes)
	}
}
