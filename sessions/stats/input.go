package stats

import "github.com/gavel-dev/gavel/judge"

// Input is everything Compute reads, as plain values a caller copies out
// of a session: the judges to report on and every unit of the dataset with
// its verdicts and labels. Compute never changes it.
type Input struct {
	// Judges lists the judges to report on, in the order of the report.
	Judges []JudgeSpec `json:"judges"`
	// Dimensions lists dimensions people labelled that no judge in Judges
	// rates (a session with labels and no judge): they get the
	// inter-annotator figures. A dimension a judge rates need not be here.
	Dimensions []judge.Dimension `json:"dimensions,omitempty"`
	// Units holds every unit of the dataset, in dataset order: one per item
	// (Criterion 0), plus one per rubric criterion for per-criterion judges.
	// Units nobody judged or labelled still count towards coverage.
	Units []Unit `json:"units"`
	// Labelling is what the session records of how people labelled
	// (guidelines, "can't judge", tags, the time and visibility of each
	// decision); nil when it records none of it.
	Labelling *LabellingInput `json:"labelling,omitempty"`
	// Plan is the labelling plan to estimate from (`gavel stats --plan`);
	// nil when there is none. Report.Plan is filled when it is set.
	Plan *PlanInput `json:"plan,omitempty"`
	// PlanDesigns gives the design ("uniform", "stratified", "active") of
	// every labelling plan of the session, by plan id, so that labels made
	// following a plan (provenance "plan:ID") can be classified: a uniform
	// or stratified plan's labels are a fair sample for the unweighted
	// figures; an active plan's are drawn with unequal probabilities and
	// feed only Report.Plan. A "plan:ID" label whose plan is in neither
	// PlanDesigns nor Plan is set apart like an active plan's: unknown
	// probabilities are not assumed equal.
	PlanDesigns map[int]string `json:"plan_designs,omitempty"`
}

// JudgeSpec names one judge run and what it rates.
type JudgeSpec struct {
	// Key identifies the run (judge name + model + parameters, as the
	// session keys it); Verdict.Judge refers to it.
	Key string `json:"key"`
	// Dimensions lists what the judge rates, each with its scale. A label
	// is compared with the judge on the dimension of the same name.
	Dimensions []judge.Dimension `json:"dimensions"`
	// PerCriterion judges rate rubric criteria (units with Criterion > 0);
	// the others rate whole items (Criterion 0). It decides which units
	// count as the judge's dataset.
	PerCriterion bool `json:"per_criterion,omitempty"`
}

// Unit is one thing that is judged and labelled: an item, or one rubric
// criterion of an item.
type Unit struct {
	ItemID string `json:"item_id"`
	// Criterion is 0 for a whole item, k for rubric criterion k.
	Criterion int `json:"criterion,omitempty"`
	// Segments holds the unit's segment fields (category, task…) for the
	// per-segment tables.
	Segments map[string]string `json:"segments,omitempty"`
	// Verdicts holds every verdict on the unit from any judge, oldest
	// first, re-judges included: the last one of a judge is its current
	// verdict, the earlier ones feed the re-judge flip rate.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Labels holds each annotator's current label. If an annotator appears
	// twice, the later label wins. Adjudications (Provenance
	// "adjudication") are apart: one never replaces the adjudicator's own
	// label as a rater, and none counts as a label between people or in
	// how the unit was selected. The unit's reference on a dimension is
	// its adjudication when it has one (the latest, Label.Seq), else the
	// annotators' majority (a tie: none).
	Labels []Label `json:"labels,omitempty"`
}

// Verdict is one judge run on a unit, reduced to what statistics need.
type Verdict struct {
	// Judge is the JudgeSpec.Key of the judge that gave it. Verdicts of
	// judges not in Input.Judges are ignored.
	Judge  string       `json:"judge"`
	Status judge.Status `json:"status"`
	// Swapped marks a pairwise verdict made with the two responses shown
	// in the other order (values in the original A/B terms). It is the
	// second order of the judge's current verdict, for the swap audit,
	// never a re-judge: the last unswapped verdict is the current one.
	Swapped bool `json:"swapped,omitempty"`
	// Values holds one value per dimension name (for a judge run with
	// several samples, the majority). A missing or NaN value, or one that
	// is not on the dimension's scale, counts as no value.
	Values map[string]float64 `json:"values,omitempty"`
	// Samples holds each sample's values when the judge sampled several
	// times (--samples N); empty otherwise. They feed the sample flip rate.
	Samples []map[string]float64 `json:"samples,omitempty"`
	// Extra holds the short categorical fields the judge reported beside
	// its values (bbh's error_type and reasoning_score, match's rule), as
	// text; they are counted in JudgeReport.Extras.
	Extra map[string]string `json:"extra,omitempty"`
	// Confidence is the probability the judge gave its own answer (from
	// logprobs, or imported), in [0, 1]; nil when unknown, and when the
	// judge withheld it as meaningless. It feeds the operating points and
	// the reliability curve of single-dimension judges.
	Confidence *float64 `json:"confidence,omitempty"`
}

// Label is one annotator's label on a unit.
type Label struct {
	Annotator string `json:"annotator"`
	// Values holds one value per dimension name; a missing or NaN value,
	// or one off the scale, means the annotator did not label it.
	Values map[string]float64 `json:"values,omitempty"`
	// Provenance says how the annotator reached the unit: "order" (in
	// dataset order) and "random" (a seeded random order) give unbiased
	// samples; "filter:NAME" (e.g. "filter:disagreements") and "script"
	// (gavel label) do not; "plan:ID" (following labelling plan ID) is
	// fair for a uniform or stratified plan and, for an active plan,
	// feeds only Report.Plan; "adjudication" (ProvenanceAdjudication)
	// marks an adjudicator's label, which is no rater's: it settles the
	// unit's reference (see Unit.Labels); any other value, the empty
	// string included, is unknown.
	Provenance string `json:"provenance,omitempty"`
	// Seq orders the labels in time when the caller knows it (a session
	// gives the action's id): a larger Seq was made later; 0 means
	// unknown. Only adjudications read it: of several on a dimension, the
	// one with the largest Seq (the later in Labels on a tie) is the
	// reference, and a person's label with a larger Seq than it (changed
	// after the adjudication) puts a disagreement back among those
	// waiting for adjudication.
	Seq int64 `json:"seq,omitempty"`
}

// Options tunes Compute.
type Options struct {
	// Seed seeds every bootstrap; the same Seed and Input give the same
	// Report, byte for byte.
	Seed uint64
	// Resamples is the number of bootstrap resamples per interval: 0 means
	// DefaultResamples, a negative number turns the bootstrap off (the
	// bootstrap bounds are then undefined).
	Resamples int
	// FilteredShareWarn is the share of labelled units reached through a
	// filter above which Selection.Warning is set: 0 means
	// DefaultFilteredShareWarn.
	FilteredShareWarn float64
	// MaxSegmentValues skips a segment field with more distinct values than
	// this (the report notes it): 0 means DefaultMaxSegmentValues.
	MaxSegmentValues int
	// ParseErrorsFail counts a parse error of a binary judge as NO (the
	// judge's score as deployed, where an unreadable answer fails the
	// item); API errors stay out. By default parse errors are left out of
	// agreement and only counted.
	ParseErrorsFail bool
	// IncludeTruncated counts the values of truncated verdicts (answers to
	// a prompt the server cut to its context) like ok ones wherever the
	// judge is scored; by default they are left out and only counted
	// (Judging.Truncated counts them either way).
	IncludeTruncated bool
	// SwapDisagreeAsTie counts a pair judged in both orders whose two
	// verdicts disagree as a tie when the judge is compared with humans
	// (SPEC "Pairwise judgments": a winner forced on such a pair is noise).
	// It changes Figures.VsHumans only; the swap audit, the judge's
	// counts and judge-vs-judge comparisons keep the original order's
	// verdict. On a scale without a tie such pairs are left out.
	SwapDisagreeAsTie bool
	// Costs weigh a false pass and a false fail when the operating points
	// choose a graded judge's best cut; nil means DefaultCosts (1 and 1).
	Costs *Costs
}

// Defaults for Options' zero values.
const (
	DefaultResamples         = 1000
	DefaultFilteredShareWarn = 0.5
	DefaultMaxSegmentValues  = 50
)

func (o Options) withDefaults() Options {
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Resamples < 0 {
		o.Resamples = 0
	}
	if !(o.FilteredShareWarn > 0) { // also catches NaN
		o.FilteredShareWarn = DefaultFilteredShareWarn
	}
	if o.MaxSegmentValues <= 0 {
		o.MaxSegmentValues = DefaultMaxSegmentValues
	}
	return o
}

// PlanInput is a labelling plan (`gavel plan`) as the statistics read it:
// which items it asked people to label, with what inclusion probability,
// and the judge verdicts it was drawn from. The estimates in
// Report.Plan weight each planned label by the inverse of its
// probability, so they stay unbiased whatever the design.
type PlanInput struct {
	// ID is the plan's id in its session; labels made while following
	// the plan carry the provenance "plan:ID".
	ID int `json:"id"`
	// Design is "uniform", "stratified" or "active".
	Design string `json:"design"`
	// Seed is the seed the plan's permanent random numbers came from.
	Seed uint64 `json:"seed"`
	// Judge is the JudgeSpec.Key of the run whose verdicts the plan was
	// drawn from and whose verdicts its estimates use ("" for a uniform
	// plan drawn without a judge).
	Judge string `json:"judge"`
	// Dimension is the dimension estimated: the judge's single (or
	// first) dimension, or the labelled dimension when there is no judge.
	Dimension string `json:"dimension"`
	// Target is the number of items the plan asks to label (n).
	Target int `json:"target"`
	// Units holds one row per item of the dataset, in dataset order:
	// PPI uses every verdict, labelled or not.
	Units []PlanUnit `json:"units"`
	// TargetWidth is the interval half-width the stop rule aims for, in
	// the dimension's units (0.05 = ±5 points on a pass rate); 0 means
	// DefaultTargetWidth.
	TargetWidth float64 `json:"target_width,omitempty"`
}

// PlanUnit is one item's row in a plan.
type PlanUnit struct {
	// Unit indexes Input.Units: the item's Criterion-0 unit.
	Unit int `json:"unit"`
	// Probability is the item's inclusion probability λ_i in (0, 1] at
	// the plan's current size.
	Probability float64 `json:"probability"`
	// Selected is set when the item is in the plan at its current size.
	Selected bool `json:"selected,omitempty"`
	// Verdict is the plan's verdict on Dimension (the judge's ok verdict
	// recorded when the plan was drawn); nil when there was none. A
	// re-judge after the plan does not change it.
	Verdict *float64 `json:"verdict,omitempty"`
	// ItemID, when set, is the item's id: a row whose unit has another id
	// (indices gone stale, e.g. units dropped after the plan was read) is
	// ignored with a note rather than read as another item's.
	ItemID string `json:"item_id,omitempty"`
	// Stratum is the item's stratum in a stratified plan ("" otherwise):
	// the variance is summed over strata, and nonresponse is reweighted
	// within each.
	Stratum string `json:"stratum,omitempty"`
	// PlanAnnotators lists the annotators who labelled the item on
	// Dimension following this plan (via "plan:ID") at some time, also
	// when a later label of theirs made another way replaced it; undone
	// labels do not count. Their current label on a selected item is the
	// plan's response whatever its via (a correction); nil reads only the
	// current "plan:ID" labels.
	PlanAnnotators []string `json:"plan_annotators,omitempty"`
}

// DefaultTargetWidth is the stop rule's half-width when
// PlanInput.TargetWidth is 0: ±5 points on a rate.
const DefaultTargetWidth = 0.05
