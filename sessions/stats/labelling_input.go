package stats

import "time"

// LabellingInput is what a session records of the human side of
// labelling (SPEC "Labelling well"): the guidelines' versions, the
// "can't judge" decisions, the failure tags and every decision with how
// it was made. Input.Labelling is nil for a session that records none of
// it (one labelled before schema v8, or imported), and the report then
// has no labelling section.
//
// The units' labels already leave out the labels of an annotator on an
// item that annotator marked "can't judge", and, under a guidelines
// filter, the labels made under another version: the reader applies both,
// so that every agreement figure of the report, between people too, sees
// the same labels.
type LabellingInput struct {
	// Guidelines says which labels the figures count (Filter) and lists
	// every version with the number of current labels made under it.
	Guidelines GuidelinesInput `json:"guidelines"`
	// CantJudge holds every (annotator, item) currently marked "can't
	// judge", by annotator, each in the order first marked.
	CantJudge []CantJudgeMark `json:"cant_judge,omitempty"`
	// CantJudgeLabels is the number of current labels the marks left out
	// of the units.
	CantJudgeLabels int `json:"cant_judge_labels,omitempty"`
	// LeftOut counts, per item, the current labels left out of the units
	// (by a "can't judge" mark or the guidelines filter), so that a report
	// on part of the units (gavel stats --split) counts only its items'.
	// CantJudgeLabels and Guidelines.LeftOut are the whole session's; an
	// input without LeftOut (built by hand) is counted by them.
	LeftOut []ItemLeftOut `json:"left_out,omitempty"`
	// TagSet is the session's set of failure tags, in the order added.
	TagSet []string `json:"tag_set,omitempty"`
	// Tags holds every failure tag currently on an item, by annotator,
	// each in the order first tagged.
	Tags []TagMark `json:"tags,omitempty"`
	// Decisions holds, oldest first, every live label, accept and
	// "can't judge" action of the annotators whose decisions say how they
	// were made (the verdict shown or hidden, the time on screen, or a
	// re-test recorded). Actions of one key press share a Group: a
	// decision.
	Decisions []Decision `json:"decisions,omitempty"`
}

// GuidelinesInput is what the session knows of its guidelines.
type GuidelinesInput struct {
	Filter GuidelinesFilter `json:"filter"`
	// Versions lists every version, oldest first.
	Versions []GuidelinesVersion `json:"versions,omitempty"`
	// WithoutGuidelines counts current labels made with no guidelines on
	// screen (and every label made before schema v8).
	WithoutGuidelines int `json:"without_guidelines,omitempty"`
	// LeftOut counts current labels the filter left out of the units.
	LeftOut int `json:"left_out,omitempty"`
}

// GuidelinesFilter says which labels the figures count, by the
// guidelines version they were made under (gavel stats --guidelines).
type GuidelinesFilter struct {
	// Filter is "all" (every label, the default), "current" (those made
	// under the newest version) or "version" (those made under Version).
	Filter string `json:"filter"`
	// Version is the version kept; 0 (left out of JSON) for "all".
	Version int64 `json:"version,omitempty"`
}

// The values of GuidelinesFilter.Filter.
const (
	FilterAll     = "all"
	FilterCurrent = "current"
	FilterVersion = "version"
)

// GuidelinesVersion is one version of the guidelines.
type GuidelinesVersion struct {
	// ID is the version's number in the session, from 1, in the order
	// the versions were first seen.
	ID        int64     `json:"id"`
	SHA256    string    `json:"sha256"`
	FirstSeen time.Time `json:"first_seen"`
	// Labels counts the current labels made under this version (over the
	// whole session, before any filter).
	Labels int `json:"labels"`
}

// ItemLeftOut counts the current labels on one item left out of the
// units: CantJudge those of annotators who marked the item "can't judge",
// Guidelines those made under another guidelines version than the filter
// keeps.
type ItemLeftOut struct {
	ItemID     string `json:"item_id"`
	CantJudge  int    `json:"cant_judge,omitempty"`
	Guidelines int    `json:"guidelines,omitempty"`
}

// CantJudgeMark is one annotator's current "can't judge" on an item.
type CantJudgeMark struct {
	ItemID    string `json:"item_id"`
	Annotator string `json:"annotator"`
	// Reason is gold-wrong, ambiguous, unreadable or other.
	Reason string `json:"reason"`
}

// The reasons an item cannot be judged, as sessions records them.
const (
	ReasonGoldWrong  = "gold-wrong"
	ReasonAmbiguous  = "ambiguous"
	ReasonUnreadable = "unreadable"
	ReasonOther      = "other"
)

// TagMark is one failure tag an annotator put on an item.
type TagMark struct {
	ItemID    string `json:"item_id"`
	Annotator string `json:"annotator"`
	Tag       string `json:"tag"`
}

// Decision is one live label, accept or "can't judge" action.
type Decision struct {
	// Group is the key press the action belongs to: the actions of one
	// group are one decision (a label on two dimensions, say).
	Group     int64  `json:"group"`
	Annotator string `json:"annotator"`
	ItemID    string `json:"item_id"`
	Criterion int    `json:"criterion,omitempty"`
	// Kind is "label", "accept" or "cant_judge".
	Kind string `json:"kind"`
	// Dimension and Value are a label's or an accept's; HasValue is false
	// for a "can't judge" and for a value its scale cannot read.
	Dimension string  `json:"dimension,omitempty"`
	Value     float64 `json:"value,omitempty"`
	HasValue  bool    `json:"has_value,omitempty"`
	// Shown is "blind" when the judge's verdict was hidden, "shown" when
	// it was on screen, "" when not recorded.
	Shown string `json:"shown,omitempty"`
	// ShownJudge is, with Shown "shown", the JudgeSpec.Key of the judge
	// whose verdict was on screen: the anchoring check counts the
	// decision on the shown side of that judge alone ("" counts for
	// none). A blind decision counts for every judge.
	ShownJudge string `json:"shown_judge,omitempty"`
	// Retest marks the decision of a re-test: the item shown again,
	// blind, to the person who labelled it.
	Retest bool `json:"retest,omitempty"`
	// Seconds is the time from the item appearing to the decision, when
	// Timed.
	Seconds float64 `json:"seconds,omitempty"`
	Timed   bool    `json:"timed,omitempty"`
	// Sitting names the review (one process, open to quit) that made it;
	// "" when not recorded.
	Sitting string `json:"sitting,omitempty"`
	// Guidelines is the guidelines version on screen, 0 for none. Only a
	// guidelines filter reads it (the reliability figures then count the
	// decisions made under the version kept), so the session's reader
	// fills it only under one.
	Guidelines int64 `json:"guidelines,omitempty"`
	// Unit is a hint from the reader that made the input: the index + 1 of
	// the decision's unit in Input.Units (0: none). Compute uses it when
	// that unit has the decision's item and criterion, and otherwise finds
	// the unit by them: a million lookups by item id cost more than the
	// rest of the labelling section. Not in the JSON.
	Unit int32 `json:"-"`
}

// live reports whether the decision was made on the review screen: only
// those record how (the verdict's visibility, the time on screen, or a
// re-test); `gavel label` records a sitting alone.
func (d *Decision) live() bool { return d.Shown != "" || d.Timed || d.Retest }

// The values of Decision.Shown and Decision.Kind.
const (
	ShownBlind    = "blind"
	ShownVerdict  = "shown"
	KindLabel     = "label"
	KindAccept    = "accept"
	KindCantJudge = "cant_judge"
)
