package stats

import "github.com/gavel-dev/gavel/judge"

// Reference is the humans' reference label of one unit on one dimension,
// as every agreement figure reads it: the single label, or the
// annotators' majority.
type Reference struct {
	// Labelled is set when some annotator labelled the unit on the
	// dimension (with a value on its scale).
	Labelled bool
	// Tie is set when the annotators tie on the most common value: the
	// unit has no reference label.
	Tie bool
	// Value is the reference value when Labelled and not Tie.
	Value float64
}

// References returns the reference label of each unit of in (in.Units'
// order) on dimension d.
func References(in Input, d judge.Dimension) []Reference {
	var ns notes
	h := buildHumansWith(&in, dimKey{d.Name, d.Scale}, &ns, 0, 0)
	out := make([]Reference, len(in.Units))
	for u, ref := range h.ref {
		switch {
		case ref >= 0:
			out[u] = Reference{Labelled: true, Value: h.cats[ref]}
		case ref == refTie:
			out[u] = Reference{Labelled: true, Tie: true}
		}
	}
	return out
}

// SplitUsed says which items of a session's calibration / evaluation split
// a report or comparison covers.
type SplitUsed struct {
	// Part is "evaluation", "calibration" (validation included) or "all".
	Part string `json:"part"`
	// Seed and Calibration are the split's seed and calibration share;
	// null when the session has no split.
	Seed        *uint64  `json:"seed"`
	Calibration *float64 `json:"calibration"`
	// Items counts the items covered.
	Items int `json:"items"`
}
