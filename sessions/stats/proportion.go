package stats

import "math"

// z975 is the 97.5th percentile of the standard normal distribution, for
// two-sided 95 % intervals.
const z975 = 1.959963984540054

// Wilson is the proportion successes/n with its Wilson (1927) score 95 %
// interval — method 3 of Newcombe (1998), "Two-sided confidence intervals
// for the single proportion", Statistics in Medicine 17:857–872 — which
// behaves well near 0 and 1 and for small n, unlike the normal
// approximation. Undefined when n ≤ 0; successes is clamped to [0, n].
func Wilson(successes, n int) Interval {
	if n <= 0 {
		return undefinedInterval(reasonNoItems)
	}
	successes = min(max(successes, 0), n)
	nf := float64(n)
	p := float64(successes) / nf
	z2 := z975 * z975
	centre := p + z2/(2*nf)
	half := z975 * math.Sqrt((p*(1-p)+z2/(4*nf))/nf)
	den := 1 + z2/nf
	lo, hi := (centre-half)/den, (centre+half)/den
	if successes == 0 {
		lo = 0
	}
	if successes == n {
		hi = 1
	}
	return Interval{Value: p, Low: math.Max(lo, 0), High: math.Min(hi, 1)}
}

// BinaryAgreement holds the figures of a binary (NO = 0, YES = 1) judge
// read against a reference taken as the truth, YES being the positive
// class. Rates are proportions in [0, 1] with Wilson 95 % intervals.
type BinaryAgreement struct {
	// TruePositives: judge YES, reference YES.
	TruePositives int `json:"true_positives"`
	// FalsePositives: judge YES, reference NO (the judge passed a failure).
	FalsePositives int `json:"false_positives"`
	// FalseNegatives: judge NO, reference YES (the judge failed a pass).
	FalseNegatives int `json:"false_negatives"`
	// TrueNegatives: judge NO, reference NO.
	TrueNegatives int `json:"true_negatives"`
	// Precision = TP / (TP + FP): of the judge's YES, the share that are YES.
	Precision Interval `json:"precision"`
	// Recall (sensitivity, true-positive rate) = TP / (TP + FN).
	Recall Interval `json:"recall"`
	// Specificity (true-negative rate) = TN / (TN + FP).
	Specificity Interval `json:"specificity"`
	// F1 = 2TP / (2TP + FP + FN).
	F1 Estimate `json:"f1"`
	// BalancedAccuracy = (recall + specificity) / 2.
	BalancedAccuracy Estimate `json:"balanced_accuracy"`
	// FalsePassRate = FP / (FP + TN): of the items the reference failed,
	// the share the judge passed — its leniency. Equals 1 − specificity.
	FalsePassRate Interval `json:"false_pass_rate"`
	// FalseFailRate = FN / (FN + TP): of the items the reference passed,
	// the share the judge failed — its harshness. Equals 1 − recall.
	FalseFailRate Interval `json:"false_fail_rate"`
}

// Binary returns the binary figures, or false when the table's categories
// are not exactly 0 and 1.
func (c Confusion) Binary() (BinaryAgreement, bool) {
	if len(c.Categories) != 2 || c.Categories[0] != 0 || c.Categories[1] != 1 {
		return BinaryAgreement{}, false
	}
	tp, fp := c.Counts[1][1], c.Counts[0][1]
	fn, tn := c.Counts[1][0], c.Counts[0][0]
	b := BinaryAgreement{
		TruePositives: tp, FalsePositives: fp, FalseNegatives: fn, TrueNegatives: tn,
		Precision:     withReason(Wilson(tp, tp+fp), "the judge never said YES"),
		Recall:        withReason(Wilson(tp, tp+fn), "the reference never said YES"),
		Specificity:   withReason(Wilson(tn, tn+fp), "the reference never said NO"),
		FalsePassRate: withReason(Wilson(fp, fp+tn), "the reference never said NO"),
		FalseFailRate: withReason(Wilson(fn, fn+tp), "the reference never said YES"),
		F1:            ratio(float64(2*tp), float64(2*tp+fp+fn), "no YES from either side"),
	}
	if b.Recall.Defined() && b.Specificity.Defined() {
		b.BalancedAccuracy = defined((b.Recall.Value + b.Specificity.Value) / 2)
	} else {
		b.BalancedAccuracy = undefined("needs both YES and NO from the reference")
	}
	return b, true
}

// withReason replaces the generic reason of an undefined interval.
func withReason(i Interval, reason string) Interval {
	if !i.Defined() {
		i.Reason = reason
	}
	return i
}
