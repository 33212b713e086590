package judge

import "encoding/json"

// Item is one row of a dataset after field mapping.
type Item struct {
	// Index is the 0-based position of the item in dataset order.
	Index int `json:"index"`
	// ID is the row's identifier, or its 1-based row number when the
	// dataset has none. IDs are unique within a session.
	ID         string `json:"id"`
	Question   string `json:"question"`
	Gold       string `json:"gold"`
	Prediction string `json:"prediction"`
	// ResponseA and ResponseB are the two responses of a pairwise item
	// (which of them answers the question better); empty otherwise.
	ResponseA string `json:"response_a,omitempty"`
	ResponseB string `json:"response_b,omitempty"`
	// Rubric lists the criteria of a rubric item; empty otherwise.
	Rubric []string `json:"rubric,omitempty"`
	// Segments holds the fields that group items for per-segment
	// statistics, such as "category" or "task".
	Segments map[string]string `json:"segments,omitempty"`
	// Fields is the original row as JSON, kept so that exports and custom
	// judge templates can reach every field the dataset had.
	Fields json.RawMessage `json:"fields,omitempty"`
}

// Pairwise reports whether the item compares two responses.
func (it Item) Pairwise() bool { return it.ResponseA != "" || it.ResponseB != "" }

// Task is one unit of judging work: a whole item (Criterion 0) or one
// rubric criterion of it (Criterion k, 1-based, for Rubric[k-1]).
type Task struct {
	Item      Item
	Criterion int
	// Swapped asks for the pair judged with its two responses shown in
	// the other order (B first), for the position-bias audit.
	Swapped bool
}

// CriterionText returns the rubric criterion a task is about, or "" for a
// whole-item task.
func (t Task) CriterionText() string {
	if t.Criterion < 1 || t.Criterion > len(t.Item.Rubric) {
		return ""
	}
	return t.Item.Rubric[t.Criterion-1]
}
