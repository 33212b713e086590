package judge

// Row is one thing a person labels on an item for a judge: one of the
// judge's dimensions, on the whole item (Criterion 0) or on one rubric
// criterion (Criterion k, from 1).
type Row struct {
	Criterion int
	Dimension Dimension
}

// Rows lists what a person labels on an item for a judge, in the order
// the review screen offers them: for each of the judge's tasks on the item
// (Tasks), each of its dimensions. The review screen and `gavel label`
// both take an item's rows from here, so that a label written by a script
// lands on a row the screen would have offered, on the same scale.
func Rows(info Info, it Item) []Row {
	ts := Tasks(info, it)
	out := make([]Row, 0, len(ts)*len(info.Dimensions))
	for _, t := range ts {
		for _, d := range info.Dimensions {
			out = append(out, Row{Criterion: t.Criterion, Dimension: d})
		}
	}
	return out
}
