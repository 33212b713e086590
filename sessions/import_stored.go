package sessions

import "github.com/gavel-dev/gavel/judge"

// ImportFieldsEncoder is StoredFieldsEncoder for a dataset `gavel import`
// reads as a stream (dataset.Stream.StoreFields): a row whose names say it
// may be one `gavel export` wrote (mayBeExported) is kept whole, since the
// import reads an export's values from the row itself and the stored form
// may have elided one (a verdict "A" equal to the item's gold). Names are
// never elided, so the rows an import takes for an export's are the same
// either way. Whole or stored, the session stores the same text for a row.
// Make one per goroutine.
func ImportFieldsEncoder() func(*judge.Item) string {
	stored := StoredFieldsEncoder()
	return func(it *judge.Item) string {
		if mayBeExported(it.Fields) {
			return string(it.Fields)
		}
		return stored(it)
	}
}
