package sessions

import (
	"bytes"
	"encoding/json"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// RestoreExported gives back the items of a file written by `gavel export`
// as they were in the session it came from: each item's Fields become the
// original row (the export's "fields" column) and its Segments the
// export's segment:FIELD columns. A session made from an export then
// holds the same items as the one exported, and exporting it again gives
// the same file. Other datasets are returned as they are; ds itself is
// never changed. OpenReview applies it to the dataset it is given; give
// ImportDataset the dataset as loaded: the judgments live in the columns
// RestoreExported takes away.
func RestoreExported(ds *dataset.Dataset) *dataset.Dataset {
	if ds == nil || len(ds.Items) == 0 {
		return ds
	}
	if _, ok := exportFields(ds.Items[0].Fields); !ok {
		return ds
	}
	out := *ds
	out.Items = make([]judge.Item, len(ds.Items))
	for i, it := range ds.Items {
		if fs, ok := exportFields(it.Fields); ok {
			it.Fields, it.Segments = restoredFields(fs)
		}
		out.Items[i] = it
	}
	return &out
}

// restoredFields reads the original row and the segments of an exported
// row.
func restoredFields(fs []rawField) (json.RawMessage, map[string]string) {
	var fields json.RawMessage
	var segs map[string]string
	for _, f := range fs {
		c, ok := parseExportColumn(f.name)
		if !ok {
			continue
		}
		switch c.kind {
		case colFields:
			fields = originalRow(f.value)
		case prefixSegment:
			// An empty segment and a missing one group the same way in
			// the statistics, and CSV cannot tell them apart: drop both.
			var v any
			if json.Unmarshal(f.value, &v) != nil || scalarText(v) == "" {
				continue
			}
			if segs == nil {
				segs = map[string]string{}
			}
			segs[c.dim] = scalarText(v)
		}
	}
	return fields, segs
}

// originalRow reads the "fields" cell: an object in JSONL, its JSON text
// in CSV; nil when it holds neither.
func originalRow(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		return raw
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if b := bytes.TrimSpace([]byte(s)); len(b) > 0 && b[0] == '{' && json.Valid(b) {
			return b
		}
	}
	return nil
}

// exportMarks are the bytes that start the names of the columns only
// Export writes ("fields", "verdict…", "label…", "note:…"). A row without
// any of them cannot be an exported row, and a byte search says so far
// faster than decoding the row's JSON (a fifth of an import's time before).
var exportMarks = [][]byte{[]byte(`"fields"`), []byte(`"verdict`), []byte(`"label`), []byte(`"note:`)}

// mayBeExported reports whether an object's text holds a name only Export
// writes; false means it surely does not. Export never escapes these
// names, so their bytes appear as written.
func mayBeExported(obj []byte) bool {
	for _, m := range exportMarks {
		if bytes.Contains(obj, m) {
			return true
		}
	}
	return false
}
