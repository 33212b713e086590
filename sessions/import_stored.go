package sessions

import (
	"unsafe"

	"github.com/gavel-dev/gavel/judge"
)

// ImportFieldsEncoder is StoredFieldsEncoder for a dataset `gavel import`
// reads as a stream (dataset.Stream.StoreFields), except that a row whose
// names say it may be one `gavel export` wrote (mayBeExported) is kept
// whole: the import reads an export's values from the row, and the stored
// form may have elided one (a label "YES" equal to the item's gold).
// Names are never elided, so the stored form says it as well as the row,
// and is shorter to search. Whole or stored, the session stores the same
// text for a row. Make one per goroutine.
func ImportFieldsEncoder() func(*judge.Item) string {
	stored := StoredFieldsEncoder()
	return func(it *judge.Item) string {
		f := stored(it)
		// Searched in place: mayBeExported only reads.
		if mayBeExported(unsafe.Slice(unsafe.StringData(f), len(f))) {
			return string(it.Fields)
		}
		return f
	}
}
