package stats

import "time"

// Labelling is the report's section on the human side of labelling (SPEC
// "Labelling well"): which guidelines the labels were made under, what
// people could not judge and why, the failure tags, and each annotator's
// own reliability. Null in JSON (left out) when the session records none
// of it; each part is left out when it has nothing to say.
type Labelling struct {
	Guidelines *GuidelinesReport `json:"guidelines,omitempty"`
	CantJudge  *CantJudgeReport  `json:"cant_judge,omitempty"`
	Tags       *TagsReport       `json:"tags,omitempty"`
	// Annotators holds, sorted by name, everyone whose decisions say how
	// they were made.
	Annotators []AnnotatorReliability `json:"annotators,omitempty"`
}

// GuidelinesReport lists the guidelines' versions and the filter in force.
type GuidelinesReport struct {
	Filter GuidelinesFilter `json:"filter"`
	// Versions lists every version, oldest first, with the current labels
	// made under it; the newest is Current.
	Versions []GuidelinesVersionReport `json:"versions"`
	// WithoutGuidelines counts current labels made with no guidelines on
	// screen.
	WithoutGuidelines int `json:"without_guidelines"`
	// LeftOut counts current labels the filter left out of every figure.
	LeftOut int `json:"left_out"`
}

// GuidelinesVersionReport is one version of the guidelines.
type GuidelinesVersionReport struct {
	ID        int64     `json:"id"`
	SHA256    string    `json:"sha256"`
	FirstSeen time.Time `json:"first_seen"`
	Current   bool      `json:"current"`
	Labels    int       `json:"labels"`
}

// CantJudgeReport counts the items people marked "can't judge". Every
// label of a person on an item they marked is left out of every agreement
// figure, between people too.
type CantJudgeReport struct {
	// Total counts (annotator, item) marks; Items the items marked by
	// anyone.
	Total int `json:"total"`
	Items int `json:"items"`
	// LabelsLeftOut counts the current labels the marks left out.
	LabelsLeftOut int          `json:"labels_left_out"`
	ByReason      ReasonCounts `json:"by_reason"`
	// ByAnnotator holds each annotator's marks, sorted by name.
	ByAnnotator []AnnotatorCantJudge `json:"by_annotator"`
}

// ReasonCounts counts "can't judge" marks by reason.
type ReasonCounts struct {
	GoldWrong  int `json:"gold-wrong"`
	Ambiguous  int `json:"ambiguous"`
	Unreadable int `json:"unreadable"`
	Other      int `json:"other"`
}

// AnnotatorCantJudge is one annotator's "can't judge" marks.
type AnnotatorCantJudge struct {
	Annotator string       `json:"annotator"`
	Total     int          `json:"total"`
	ByReason  ReasonCounts `json:"by_reason"`
}

// TagsReport counts the failure tags on the items.
type TagsReport struct {
	// Tags lists the session's tag set in the order added, then any other
	// tag found on an item by name, with the items carrying each (tagged
	// by anyone).
	Tags []TagCount `json:"tags"`
	// Disagreements holds, per judge in report order, the items where the
	// judge's current verdict differs from the humans' label on some
	// dimension, and how many of them carry each tag: the failure modes
	// of that judge's mistakes.
	Disagreements []TagDisagreements `json:"disagreements"`
}

// TagCount is a tag and the number of items carrying it.
type TagCount struct {
	Tag   string `json:"tag"`
	Items int    `json:"items"`
}

// TagDisagreements is one judge's disagreements with the humans by tag.
type TagDisagreements struct {
	Judge string `json:"judge"`
	// Items counts the items with a disagreement; Tagged those of them
	// with any tag.
	Items  int `json:"items"`
	Tagged int `json:"tagged"`
	// Tags lists every tag of TagsReport.Tags, in that order.
	Tags []TagCount `json:"tags"`
}

// AnnotatorReliability is how one person labelled: how much, how fast,
// whether they tired, agreed with themselves, and were swayed by the
// judge's verdict. Under a guidelines filter (gavel stats --guidelines)
// every figure counts the decisions made under the version kept, as the
// agreement figures count its labels.
type AnnotatorReliability struct {
	Annotator string `json:"annotator"`
	// Decisions counts live key presses that labelled, accepted or marked
	// "can't judge" an item, re-tests included.
	Decisions int `json:"decisions"`
	// Timed counts the decisions whose time on screen is known and at
	// most PauseSeconds; Paused those above it, left out as pauses.
	Timed  int `json:"timed"`
	Paused int `json:"paused"`
	// MedianSeconds is the median time from the item appearing to the
	// decision, over the timed decisions.
	MedianSeconds Estimate `json:"median_seconds"`
	// Fatigue compares the first and the last quarter of each sitting;
	// null when no sitting has FatigueMinDecisions decisions.
	Fatigue *Fatigue `json:"fatigue"`
	// Retest is the agreement of the person with themselves on the items
	// shown to them again blind, per dimension; [] when none.
	Retest []RetestAgreement `json:"retest"`
	// Anchoring compares, per judge, agreement with its verdict on blind
	// labels and on decisions made with it shown; [] when no decision of
	// known visibility meets a verdict.
	Anchoring []Anchoring `json:"anchoring"`
}

// PauseSeconds is the longest time on one item counted as work: a longer
// one is a pause (a coffee, a meeting) and is left out of the medians.
const PauseSeconds = 300

// FatigueMinDecisions is the fewest decisions a sitting needs for its
// first and last quarters to hold one decision each.
const FatigueMinDecisions = 4

// Fatigue compares the first quarter of each sitting with its last.
type Fatigue struct {
	// Sittings counts the sittings compared (those of at least
	// FatigueMinDecisions decisions).
	Sittings int            `json:"sittings"`
	First    QuarterFigures `json:"first_quarter"`
	Last     QuarterFigures `json:"last_quarter"`
}

// QuarterFigures are the decisions of the first (or last) quarter of the
// sittings together.
type QuarterFigures struct {
	Decisions     int      `json:"decisions"`
	MedianSeconds Estimate `json:"median_seconds"`
	// Judges holds, per judge in report order, the agreement of those
	// decisions' labels with the judge's current verdict.
	Judges []JudgeShare `json:"judges"`
}

// JudgeShare is how often labels agreed with one judge's verdict.
type JudgeShare struct {
	Judge string `json:"judge"`
	Share
}

// Share is a proportion with its count: Agreed of N, with a Wilson 95 %
// interval.
type Share struct {
	N         int      `json:"n"`
	Agreed    int      `json:"agreed"`
	Agreement Interval `json:"agreement"`
}

// RetestAgreement is intra-rater agreement on one dimension: the re-test
// label against the person's label the item had when it came back.
type RetestAgreement struct {
	Dimension string `json:"dimension"`
	Scale     string `json:"scale"`
	Pairs     int    `json:"pairs"`
	// PercentAgreement has a Wilson interval, CohenKappa an item
	// bootstrap one.
	PercentAgreement Interval `json:"percent_agreement"`
	CohenKappa       Interval `json:"cohen_kappa"`
	// Stable is false under MinReliableItems pairs: the figures are not
	// yet stable.
	Stable bool `json:"stable"`
}

// Anchoring compares a person's agreement with one judge when the
// verdict was hidden (blind) and when this judge's verdict was on screen
// (shown, accepts included; decisions made with another judge's verdict
// on screen count for neither).
type Anchoring struct {
	Judge string `json:"judge"`
	Blind Share  `json:"blind"`
	Shown Share  `json:"shown"`
	// Difference is shown − blind agreement with Newcombe's hybrid score
	// 95 % interval for independent proportions (NewcombeIndependent).
	Difference Interval `json:"difference"`
	// Large is set when the difference is large (LargeAnchoring), and
	// Sentence then says so plainly.
	Large    bool   `json:"large"`
	Sentence string `json:"sentence,omitempty"`
}

// LargeAnchoring is the difference between agreement with the verdict
// shown and blind that the report calls large: ten percentage points, a
// gap that would move a judge's agreement with the humans by as much as
// the choice between two judges often does. The difference counts as
// large only when its 95 % interval also leaves out 0, so that a handful
// of labels cannot raise the alarm; smaller or uncertain gaps are shown
// without a comment.
const LargeAnchoring = 0.10
