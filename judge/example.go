package judge

// Example is a labelled item shown to a judge as a few-shot example
// ({examples} in a judge file's template): the item, what the human said
// on each dimension and why. Examples come only from the calibration part
// of a session's split (sessions.Store.FewShot), never from the items the
// judge is scored on.
type Example struct {
	Item Item
	// Labels holds the human's value per dimension name, on the
	// dimension's scale (Scale.Format writes it as the judge would).
	Labels map[string]float64
	// Note is the human's note on the item, the example's reason; empty
	// when they wrote none.
	Note string
}
