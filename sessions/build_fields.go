package sessions

import "github.com/gavel-dev/gavel/judge"

// elider writes items.fields for a dataset's mapping.
type elider struct {
	mapping map[string]string
}

func newElider(mapping map[string]string) *elider { return &elider{mapping: mapping} }

// fields returns the text items.fields stores for it.
func (e *elider) fields(it *judge.Item) string { return string(it.Fields) }
