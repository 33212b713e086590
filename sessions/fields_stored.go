package sessions

import "github.com/gavel-dev/gavel/judge"

// StoredFieldsEncoder returns a function giving the text items.fields
// stores for an item (its row with the text of its own columns and
// segments elided; see build_fields.go), for a reader that keeps items in
// that form from the start, as a reopened review does
// (dataset.Stream.StoreFields): a million rows then take little more than
// their texts. WholeFields gives the row back, and a session built from
// such items stores the same text as from the rows. The function keeps
// scratch space: make one per goroutine.
func StoredFieldsEncoder() func(*judge.Item) string {
	return newElider(nil).fields
}
