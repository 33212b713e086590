package stats

import "github.com/gavel-dev/gavel/judge"

// SchemaVersion is the version of the Report's JSON shape. It changes only
// when a field is renamed, removed or changes meaning; new fields may be
// added without a change. Version 2 gave every coefficient an interval
// (an Interval where version 1 had an Estimate), counted only random
// labels as unbiased, and added the judge table, the benchmark estimates
// and the labels needed.
const SchemaVersion = 2

// Report is everything Compute finds, shaped for `gavel stats --format
// json`: field order is fixed, every number that can be undefined is an
// Estimate or Interval (null plus a reason in JSON, never NaN), lists are
// in a documented order and never null.
type Report struct {
	SchemaVersion int `json:"schema_version"`
	// Seed and Resamples are the bootstrap settings used.
	Seed      uint64 `json:"seed"`
	Resamples int    `json:"resamples"`
	// Units is the number of units in the input.
	Units int `json:"units"`
	// Split says which part of the session's calibration / evaluation
	// split the units are (`gavel stats --split`); set by the caller that
	// chose the units, nil when none did.
	Split *SplitUsed `json:"split,omitempty"`
	// ParseErrors is "exclude" when parse errors are left out of agreement
	// and the judge's score, "fail" when a binary judge's parse error
	// counts as NO (Options.ParseErrorsFail).
	ParseErrors string `json:"parse_errors"`
	// Truncated is "exclude" when truncated verdicts (a prompt the server
	// cut to its context) are left out of agreement and only counted,
	// "include" when their values count like ok ones
	// (Options.IncludeTruncated).
	Truncated string `json:"truncated"`
	// Guidelines says which labels every figure counts, by the guidelines
	// version they were made under: {"filter": "all"} by default,
	// {"filter": "current", "version": N} or {"filter": "version",
	// "version": N} under `gavel stats --guidelines`.
	Guidelines GuidelinesFilter `json:"guidelines"`
	// JudgeTable ranks every judge and dimension by its agreement with the
	// humans: Cohen's kappa, highest first, then n.
	JudgeTable []JudgeRow `json:"judge_table"`
	// Judges holds one report per judge, in Input.Judges order.
	Judges []JudgeReport `json:"judges"`
	// JudgePairs compares every two judges (in Input.Judges order) on each
	// dimension they share (same name and scale).
	JudgePairs []JudgePair `json:"judge_pairs"`
	// Humans holds inter-annotator agreement per dimension, in the order
	// dimensions first appear among the judges.
	Humans []HumanAgreement `json:"humans"`
	// OperatingPoints reads every graded judge dimension (an ordinal
	// score, or a binary verdict with a logprob confidence or samples) at
	// every pass threshold against binary human labels, in judge order.
	OperatingPoints []OperatingPoints `json:"operating_points"`
	// Reliability compares each judge's confidence with its agreement with
	// the humans, for judges whose verdicts carry one, in judge order.
	Reliability []Reliability `json:"reliability"`
	// Labelling is the human side of labelling: guidelines, "can't
	// judge", failure tags and each annotator's reliability; left out
	// when the session records none of it.
	Labelling *Labelling `json:"labelling,omitempty"`
	// Plan is the design-based estimates of a labelling plan (Input.Plan);
	// left out when there is none.
	Plan *PlanReport `json:"plan,omitempty"`
	// Notes lists problems found in the input (verdicts of unknown judges,
	// values off the scale, skipped segment fields…), one sentence each.
	Notes []string `json:"notes"`
}

// JudgeReport is one judge's figures, per dimension.
type JudgeReport struct {
	Judge        string            `json:"judge"`
	PerCriterion bool              `json:"per_criterion"`
	Dimensions   []DimensionReport `json:"dimensions"`
	// Extras counts the categorical fields the judge reported beside its
	// verdicts (error types, reasoning scores, rules), over its current ok
	// verdicts, by field name; never null.
	Extras []ExtraField `json:"extras"`
}

// DimensionReport is a judge's figures on one dimension: over its whole
// dataset, per segment, and its own consistency.
type DimensionReport struct {
	Dimension string      `json:"dimension"`
	Scale     judge.Scale `json:"scale"`
	// Overall covers every unit of the judge's dataset.
	Overall Figures `json:"overall"`
	// Segments holds the same figures for each value of each segment field,
	// ordered by field then value (byte order); units without the field
	// are grouped under the empty value.
	Segments []SegmentFigures `json:"segments"`
	// Rejudges is how often re-judging a unit changed this value.
	Rejudges Flips `json:"rejudges"`
	// Samples is how often the samples of one verdict disagreed.
	Samples Flips `json:"samples"`
	// Swap is the swap audit: how the judge's verdicts change when the two
	// responses are shown in the other order. Null unless the scale is
	// pairwise and the judge gave verdicts in the swapped order.
	Swap *SwapAudit `json:"swap"`
}

// SegmentFigures is the figures of the units whose Field is Value.
type SegmentFigures struct {
	Field   string  `json:"field"`
	Value   string  `json:"value"`
	Figures Figures `json:"figures"`
}

// Figures is the table of a judge and dimension over a set of units (all,
// or one segment).
type Figures struct {
	// Units is the number of units in the set.
	Units int `json:"units"`
	// Judging counts the judge's current verdicts by status; errors are
	// kept here and never count as agreement or disagreement.
	Judging Judging `json:"judging"`
	// Labelled is the number of units with at least one human label on the
	// dimension; Coverage = Labelled / Units.
	Labelled int      `json:"labelled"`
	Coverage Estimate `json:"coverage"`
	// HumanTies counts labelled units whose annotators tie on the most
	// common value: they have no human majority and are left out of
	// VsHumans.
	HumanTies int `json:"human_ties"`
	// VsHumans compares the judge's current ok verdicts with the humans'
	// label — the single label, or the annotators' majority — on every
	// unit that has both.
	VsHumans Agreement `json:"vs_humans"`
	// Corrected is the Rogan–Gladen corrected pass rate from the fair
	// labels (see Selection.Fair); null unless the scale is binary, its
	// PassRate undefined with a reason when there are no fair labels.
	Corrected *Corrected `json:"corrected"`
	// Benchmark is the score a human would give the judged items, by
	// prediction-powered inference from every verdict and the fair
	// labels; null unless the scale has a mean (Scale.Numeric).
	Benchmark *Benchmark `json:"benchmark"`
	// LabelsNeeded says about how many more random labels would bring the
	// interval of agreement, kappa and the corrected score to ±2 and ±5
	// points.
	LabelsNeeded []LabelsNeeded `json:"labels_needed"`
	// Selection says how the labelled units were reached.
	Selection Selection `json:"selection"`
}

// Judging counts a judge's current verdicts on a set of units.
type Judging struct {
	// Judged is the number of units with a current verdict of the judge.
	Judged int `json:"judged"`
	// OK counts ok verdicts with a value on the dimension's scale.
	OK int `json:"ok"`
	// NoValue counts ok verdicts without a usable value for the dimension
	// (missing, NaN or off the scale).
	NoValue     int `json:"no_value"`
	ParseErrors int `json:"parse_errors"`
	APIErrors   int `json:"api_errors"`
	// Truncated counts truncated verdicts: answers to a prompt the server
	// cut to its context. They are not in OK, even when
	// Options.IncludeTruncated counts their values in agreement.
	Truncated int `json:"truncated"`
	// ParseErrorRate, APIErrorRate and TruncatedRate are over Judged.
	ParseErrorRate Estimate `json:"parse_error_rate"`
	APIErrorRate   Estimate `json:"api_error_rate"`
	TruncatedRate  Estimate `json:"truncated_rate"`
}

// Selection tells an unbiased labelled sample from a hand-picked one.
// Only labels reached at random (a seeded random order, a sample, a plan)
// are a fair sample: a dataset is often sorted (by model, by difficulty),
// so its first rows are not like the rest.
type Selection struct {
	// Unbiased counts labelled units whose every label was reached at
	// random; Order those with a label reached in dataset order (and none
	// through a filter); Filtered those with a label reached through a
	// filter or written by a script (gavel label); Unknown the rest
	// (imported labels, whose selection is not known).
	Unbiased int `json:"unbiased"`
	Order    int `json:"order"`
	Filtered int `json:"filtered"`
	Unknown  int `json:"unknown"`
	// Planned counts labelled units with a label made following an active
	// labelling plan (or a plan of unknown design), and none through a
	// filter, in dataset order or of unknown provenance: drawn with
	// unequal probabilities, they feed only Report.Plan's weighted
	// estimates. Left out of JSON when 0.
	Planned int `json:"planned,omitempty"`
	// Census is set when every judged unit is labelled: the labelled units
	// are then the whole dataset, however they were reached, and every
	// label is fair.
	Census bool `json:"census"`
	// Fair is the number of labelled units the corrected pass rate and the
	// benchmark estimate use: all of them on a census, else Unbiased.
	Fair int `json:"fair"`
	// FilteredShare = Filtered / labelled units.
	FilteredShare Estimate `json:"filtered_share"`
	// ByProvenance counts labels (not units) by their provenance string;
	// an empty provenance is counted as "unknown".
	ByProvenance map[string]int `json:"by_provenance"`
	// Warning is a sentence for the screen when FilteredShare exceeds
	// Options.FilteredShareWarn; empty otherwise.
	Warning string `json:"warning,omitempty"`
	// UnbiasedPart holds the figures over the unbiased labelled units
	// alone; null when no labelled unit was reached through a filter.
	UnbiasedPart *UnbiasedPart `json:"unbiased_part"`
}

// UnbiasedPart is the comparison with humans restricted to units whose
// labels were all reached at random.
type UnbiasedPart struct {
	VsHumans Agreement `json:"vs_humans"`
}

// Flips measures a judge's consistency with itself.
type Flips struct {
	// Units counts units with two or more ok values to compare.
	Units int `json:"units"`
	// Flipped counts those whose values were not all the same.
	Flipped int `json:"flipped"`
	// Rate = Flipped / Units with a Wilson 95 % interval.
	Rate Interval `json:"rate"`
}

// JudgePair compares two judges on one dimension, the first as "judge" and
// the second as "reference" in Agreement.
type JudgePair struct {
	Judge     string      `json:"judge"`
	Reference string      `json:"reference"`
	Dimension string      `json:"dimension"`
	Scale     judge.Scale `json:"scale"`
	Agreement Agreement   `json:"agreement"`
}

// HumanAgreement is agreement among annotators on one dimension. The
// judge against the annotators' majority is Figures.VsHumans.
type HumanAgreement struct {
	Dimension string      `json:"dimension"`
	Scale     judge.Scale `json:"scale"`
	// Annotators lists who labelled the dimension, sorted.
	Annotators []string `json:"annotators"`
	// Labelled counts units with at least one label; Pairable those with
	// two or more (the only ones that carry agreement).
	Labelled int `json:"labelled"`
	Pairable int `json:"pairable"`
	// MajorityTies counts units whose annotators tie on the most common
	// value, and no adjudication settles.
	MajorityTies int `json:"majority_ties"`
	// Adjudicated counts units whose reference is an adjudicator's label
	// (provenance "adjudication"; the latest when there are several)
	// rather than the annotators' majority. Adjudications are in no other
	// figure here: not the annotators, the pairs nor the agreement.
	Adjudicated int `json:"adjudicated"`
	// AwaitingAdjudication counts units where two people's labels differ
	// and no adjudication settles them: none was made, or a person's label
	// changed after the latest one (the adjudication queue's size;
	// can't-judge decisions left out, as everywhere).
	AwaitingAdjudication int `json:"awaiting_adjudication"`
	// SmallSample is set when fewer than MinReliableItems units are
	// pairable: the intervals are then unreliable.
	SmallSample string `json:"small_sample,omitempty"`
	// Every figure below carries a seeded 95 % interval from a bootstrap
	// over the units with at least one label.
	//
	// PercentAgreement is the multi-rater observed agreement: the mean
	// over pairable units of each unit's share of agreeing pairs of labels
	// (irrCAC's pa.coeff.raw), not the pooled share when units have
	// different numbers of labels.
	PercentAgreement Interval `json:"percent_agreement"`
	// Krippendorff's alpha with missing labels allowed: nominal always,
	// ordinal, interval and ratio for ordinal scales (undefined otherwise).
	AlphaNominal  Interval `json:"alpha_nominal"`
	AlphaOrdinal  Interval `json:"alpha_ordinal"`
	AlphaInterval Interval `json:"alpha_interval"`
	AlphaRatio    Interval `json:"alpha_ratio"`
	// FleissKappa and GwetAC1 follow Gwet's irrCAC with missing labels
	// (see FleissKappa); GwetAC2 is AC1 with quadratic weights, for
	// ordinal scales (undefined otherwise).
	FleissKappa Interval `json:"fleiss_kappa"`
	GwetAC1     Interval `json:"gwet_ac1"`
	GwetAC2     Interval `json:"gwet_ac2"`
	// Pairs holds Cohen's kappa for every two annotators, sorted by name.
	Pairs []AnnotatorPair `json:"pairs"`
}

// AnnotatorPair compares two annotators on the units both labelled.
type AnnotatorPair struct {
	A                string   `json:"a"`
	B                string   `json:"b"`
	N                int      `json:"n"`
	PercentAgreement Interval `json:"percent_agreement"`
	CohenKappa       Interval `json:"cohen_kappa"`
}

// JudgeRow is one line of the judge table: a judge on one dimension
// against the humans, every figure with its 95 % interval. False-pass and
// false-fail are undefined unless the scale is binary; agreement, kappa
// and AC1 come from Figures.VsHumans over the judge's whole dataset.
type JudgeRow struct {
	// Rank is the row's place, from 1; rows whose kappa is undefined come
	// last, by n.
	Rank             int         `json:"rank"`
	Judge            string      `json:"judge"`
	Dimension        string      `json:"dimension"`
	Scale            judge.Scale `json:"scale"`
	N                int         `json:"n"`
	PercentAgreement Interval    `json:"percent_agreement"`
	CohenKappa       Interval    `json:"cohen_kappa"`
	GwetAC1          Interval    `json:"gwet_ac1"`
	ScoreBias        Interval    `json:"score_bias"`
	FalsePassRate    Interval    `json:"false_pass_rate"`
	FalseFailRate    Interval    `json:"false_fail_rate"`
	SmallSample      string      `json:"small_sample,omitempty"`
}

// Benchmark is the score (pass rate, mean score, share of B) a human
// would give the judged items, estimated two ways from the fair labels:
// from the labels alone, and by prediction-powered inference (PPI++:
// Angelopoulos et al., Science 2023; Angelopoulos, Duchi and Zrnic 2024),
// which adds every judge verdict and stays unbiased however wrong the judge
// is.
type Benchmark struct {
	// Judged is the number of units with an ok verdict (N + n); Labelled
	// the number of them with a fair label (n).
	Judged   int `json:"judged"`
	Labelled int `json:"labelled"`
	// LabelsOnly is the humans' mean over the n labelled units, with a
	// normal 95 % interval: what the labels say without the judge.
	LabelsOnly Interval `json:"labels_only"`
	// PPI is the prediction-powered mean with its 95 % interval; undefined
	// with a reason when there are no fair labels.
	PPI Interval `json:"ppi"`
	// Lambda is PPI++'s power-tuning weight on the judge (0: the judge is
	// ignored, 1: plain PPI).
	Lambda Estimate `json:"lambda"`
	// EffectiveLabels is how many random labels alone would give an
	// interval as narrow as PPI's: the n labels and the verdicts together
	// are worth that many labels.
	EffectiveLabels Estimate `json:"effective_labels"`
}

// LabelsNeeded is about how many more random labels would bring one
// figure's interval to a half-width of 0.02 and 0.05 (±2 and ±5
// percentage points for rates, ±0.02 and ±0.05 for coefficients),
// assuming the interval narrows as one over the square root of the
// number of labels. Zero means the width is reached.
type LabelsNeeded struct {
	// Figure is "percent_agreement", "cohen_kappa" or
	// "corrected_pass_rate".
	Figure string `json:"figure"`
	// N is the number of labels the current interval rests on, and
	// HalfWidth its current half-width.
	N         int      `json:"n"`
	HalfWidth Estimate `json:"half_width"`
	For2      Estimate `json:"for_2"`
	For5      Estimate `json:"for_5"`
}
