package stats

import "github.com/gavel-dev/gavel/judge"

// PlanReport is what a labelling plan's labels say, estimated with the
// plan's design: every planned label is weighted by the inverse of its
// inclusion probability, so the estimates target the mean a human would
// give over ALL items, whatever the design (uniform, stratified, or active
// sampling by the judge's uncertainty). Intervals are design-based 95 %
// normal intervals (see plan.go for the formulas and references).
type PlanReport struct {
	// ID, Design, Seed and Judge restate the plan (PlanInput).
	ID     int    `json:"id"`
	Design string `json:"design"`
	Seed   uint64 `json:"seed"`
	Judge  string `json:"judge"`
	// Dimension and Scale are what is estimated; Measure is "pass_rate"
	// on a binary scale, "mean_score" on an ordinal one.
	Dimension string      `json:"dimension"`
	Scale     judge.Scale `json:"scale"`
	Measure   string      `json:"measure"`
	// Items is N, the number of items in the plan (the dataset); Target
	// is n, the planned number of labels; Selected the items in the plan
	// at its current size.
	Items    int `json:"items"`
	Target   int `json:"target"`
	Selected int `json:"selected"`
	// Labelled counts selected items with a plan label on Dimension
	// (provenance "plan:ID"); Nonresponse those where the annotator
	// chose "can't judge" instead; Pending the rest, not yet labelled.
	Labelled    int `json:"labelled"`
	Nonresponse int `json:"nonresponse"`
	Pending     int `json:"pending"`
	// Verdicts counts items with a plan verdict (the judge's ok verdict
	// at plan time); the others enter PPI with a prediction of 0.
	Verdicts int `json:"verdicts"`
	// Corrections counts the labels counted as the plan's though made
	// another way: a selected item's current label by an annotator who
	// had labelled it following the plan (a later correction by script,
	// filter or another screen). The notes say so when there are any.
	Corrections int `json:"corrections,omitempty"`
	// Assumption states what the estimates assume about nonresponse
	// (missing at random within the design); empty when there is none.
	Assumption string `json:"assumption,omitempty"`
	// OffPlan counts labels on the plan's selected items made otherwise
	// than by following the plan (and labels made following it on items
	// it did not select); they are reported apart and enter no estimate.
	OffPlan PlanOffPlan `json:"off_plan"`
	// HumanMean is the Horvitz–Thompson estimate of the humans' pass rate
	// (or mean score) over all items; HumanMeanHajek the Hájek (ratio)
	// estimate of the same, which divides by the estimated N.
	HumanMean      Interval `json:"human_mean"`
	HumanMeanHajek Interval `json:"human_mean_hajek"`
	// HumanMeanCaution is set on an active plan: a sentence saying the
	// human-only means are less reliable than Score (their intervals
	// under-cover in the coverage simulation). Empty otherwise.
	HumanMeanCaution string `json:"human_mean_caution,omitempty"`
	// JudgeScore is the mean of the plan's verdicts over the items that
	// have one: the benchmark score by the judge alone.
	JudgeScore Estimate `json:"judge_score"`
	// Score is the benchmark score corrected with the labels: active
	// prediction-powered inference (Zrnic & Candès, ICML 2024) — the
	// verdicts' sum plus the inverse-probability-weighted residuals of
	// the labelled items, over N. It is the headline figure.
	Score Interval `json:"score"`
	// Agreement is the Horvitz–Thompson estimate of the share of items on
	// which a human agrees with the plan's verdict (items without a
	// verdict count as disagreement).
	Agreement Interval `json:"agreement"`
	// DesignEffect is the estimated variance of Score under the plan's
	// design over the estimated variance the same estimator would have
	// under a uniform plan (simple random sampling) of the same size,
	// both from the labels (Kish 1965): below 1 the design helped, above
	// 1 it cost precision. DesignEffectNote says so in a sentence.
	DesignEffect     Estimate `json:"design_effect"`
	DesignEffectNote string   `json:"design_effect_note,omitempty"`
	// UniformEquivalent is Labelled / DesignEffect: how many labels of a
	// uniform plan would give Score's interval.
	UniformEquivalent Estimate `json:"uniform_equivalent"`
	// Unclamped holds, by JSON name ("human_mean", "score", …), the
	// point estimates that fell outside the scale's range: the intervals
	// show the point clamped to the range, with their bounds, and these
	// are the unclamped, approximately unbiased values (to average over
	// plans, say). Absent when nothing was clamped.
	Unclamped map[string]float64 `json:"unclamped,omitempty"`
	// Census is set when the plan takes every item (each with
	// probability 1) and every one is labelled: its figures are exact for
	// these items, with no sampling error, so their intervals are points
	// (PlanCensusReason, and a note says why the unweighted figures, which
	// take the same labels for a sample, have intervals).
	Census bool `json:"census,omitempty"`
	// Stop is the stop rule for Score.
	Stop StopRule `json:"stop"`
	// Notes lists problems with the plan's input, one sentence each.
	Notes []string `json:"notes"`
}

// PlanOffPlan describes labels on a plan's items that were not made by
// following the plan (before it, through a filter, by a script, or by
// another plan).
type PlanOffPlan struct {
	// Labels counts such labels on Dimension, Items the items they are
	// on.
	Labels int `json:"labels"`
	Items  int `json:"items"`
	// Mean is their unweighted mean: not an estimate of the benchmark,
	// only shown for comparison.
	Mean Estimate `json:"mean"`
}

// StopRule says how far the headline interval is from the width asked
// for, and how many more planned labels would reach it.
type StopRule struct {
	// Figure is the figure the rule watches: "score".
	Figure string `json:"figure"`
	// TargetWidth is the half-width asked for; HalfWidth the current one.
	TargetWidth float64  `json:"target_width"`
	HalfWidth   Estimate `json:"half_width"`
	// Wait says in a few words why HalfWidth is undefined, for a header
	// ("no label yet", "strata unlabelled", "2 labels needed"); empty
	// when it is defined.
	Wait string `json:"wait,omitempty"`
	// Reached is set when HalfWidth is at most TargetWidth.
	Reached bool `json:"reached"`
	// More is how many more planned labels (extending the plan with the
	// same design) are expected to bring HalfWidth to TargetWidth; 0 when
	// reached, undefined with a reason when it cannot be estimated.
	More Estimate `json:"more"`
	// PlanSize is the plan size (PlanInput.Target) expected to give
	// Labelled + More labels at the share of planned items labelled so
	// far ("can't judge" counts against it); at or below the current
	// target, labelling the plan to its end is expected to suffice.
	PlanSize Estimate `json:"plan_size"`
}
