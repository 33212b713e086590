package dataset

import (
	"encoding/binary"
	"strings"
)

// interner shares one Segments map among the items whose segment values
// are equal. Segments repeat (a handful of categories over a million
// rows), and a map per item would cost more than the item itself.
type interner struct {
	maps map[string]map[string]string
	key  []byte
}

// maxInterned bounds the table; past it, items get maps of their own.
const maxInterned = 4096

func (in *interner) init(n int) {
	if n > 0 {
		in.maps = map[string]map[string]string{}
	}
}

// get returns the Segments map for the given values (parallel to refs;
// "" for a missing value), or nil when every value is missing. With own,
// a new map holds copies of the values: they may be slices of a buffer
// read again.
func (in *interner) get(refs []fieldRef, vals []string, own bool) map[string]string {
	key := in.key[:0]
	any := false
	for i, v := range vals {
		if v == "" {
			continue
		}
		any = true
		key = binary.AppendUvarint(key, uint64(i))
		key = binary.AppendUvarint(key, uint64(len(v)))
		key = append(key, v...)
	}
	in.key = key
	if !any {
		return nil
	}
	if m, ok := in.maps[string(key)]; ok {
		return m
	}
	m := make(map[string]string, len(vals))
	for i, v := range vals {
		if v != "" {
			if own {
				v = strings.Clone(v)
			}
			m[refs[i].path] = v
		}
	}
	if len(in.maps) < maxInterned {
		in.maps[string(key)] = m
	}
	return m
}
