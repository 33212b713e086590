package stats

import "github.com/gavel-dev/gavel/judge"

// SchemaVersion is the version of the Report's JSON shape. It changes only
// when a field is renamed, removed or changes meaning; new fields may be
// added without a change.
const SchemaVersion = 1

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
	// Judges holds one report per judge, in Input.Judges order.
	Judges []JudgeReport `json:"judges"`
	// JudgePairs compares every two judges (in Input.Judges order) on each
	// dimension they share (same name and scale).
	JudgePairs []JudgePair `json:"judge_pairs"`
	// Humans holds inter-annotator agreement per dimension, in the order
	// dimensions first appear among the judges.
	Humans []HumanAgreement `json:"humans"`
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
	// Corrected is the Rogan–Gladen corrected pass rate; null unless the
	// scale is binary.
	Corrected *Corrected `json:"corrected"`
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
	// ParseErrorRate and APIErrorRate are over Judged.
	ParseErrorRate Estimate `json:"parse_error_rate"`
	APIErrorRate   Estimate `json:"api_error_rate"`
}

// Selection tells an unbiased labelled sample from a hand-picked one.
type Selection struct {
	// Unbiased counts labelled units whose every label was reached in
	// dataset order or at random; Filtered those with a label reached
	// through a filter; Unknown the rest.
	Unbiased int `json:"unbiased"`
	Filtered int `json:"filtered"`
	Unknown  int `json:"unknown"`
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
// labels were all reached in order or at random. The corrected pass rate
// still uses every judged unit for the observed rate.
type UnbiasedPart struct {
	VsHumans  Agreement  `json:"vs_humans"`
	Corrected *Corrected `json:"corrected"`
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
	// value.
	MajorityTies int `json:"majority_ties"`
	// Krippendorff's alpha with missing labels allowed: nominal always,
	// ordinal and interval for ordinal scales (undefined otherwise).
	AlphaNominal  Estimate `json:"alpha_nominal"`
	AlphaOrdinal  Estimate `json:"alpha_ordinal"`
	AlphaInterval Estimate `json:"alpha_interval"`
	// FleissKappa over units with two or more labels (see FleissKappa).
	FleissKappa Estimate `json:"fleiss_kappa"`
	// Pairs holds Cohen's kappa for every two annotators, sorted by name.
	Pairs []AnnotatorPair `json:"pairs"`
}

// AnnotatorPair compares two annotators on the units both labelled.
type AnnotatorPair struct {
	A                string   `json:"a"`
	B                string   `json:"b"`
	N                int      `json:"n"`
	PercentAgreement Interval `json:"percent_agreement"`
	CohenKappa       Estimate `json:"cohen_kappa"`
}
