package tui

import (
	"math"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// A run's current verdicts are held compactly: a judge.Verdict is ~192
// bytes with its strings, maps and time, and a review of a million judged
// items held one per item (1.88× the dataset file in memory, where SPEC
// asks for under 1.5×). The screen's lists, filters, orders and tallies
// read an item's status, criterion, values and confidence only; the
// pane, for the one item on display, reads the rest, rebuilt from the
// record and the run's tables (runView.verdict). What a record cannot
// hold (a reason, extra fields, raw output, an error; the rare value
// outside its fields) is kept beside it, by item, in verdictTables.more.
// Token counts, latency and retries are not kept: nothing on the screen
// shows them (the session has them).

// cverdict is one verdict as the screen holds it: 32 bytes.
type cverdict struct {
	at   int64   // At in Unix nanoseconds; noTime for the zero time or one kept in more
	conf float64 // *Confidence; NaN for none
	vals uint32  // index in verdictTables.values; 0 for no values
	crit int32   // Criterion (a rubric's criteria are counted in the tens)
	// next is 1 + the index in verdictSlots.rest of the item's next
	// criterion; 0 for none.
	next   uint32
	model  uint16 // index in verdictTables.models; 0 for none
	status uint8  // one of the status codes; 0 for an empty slot
	more   bool   // verdictTables.more holds its other fields
}

// noTime marks a record whose time is the zero time, or is kept in more.
const noTime = math.MinInt64

// Status codes: the statuses a judge gives, fixed; any other status
// (none is written today) is kept in more.
const (
	codeNone uint8 = iota // an empty slot
	codeOK
	codeParseError
	codeAPIError
	codeTruncated
	codeOther // the status is in more
)

var statusCodes = map[judge.Status]uint8{
	judge.StatusOK:         codeOK,
	judge.StatusParseError: codeParseError,
	judge.StatusAPIError:   codeAPIError,
	judge.StatusTruncated:  codeTruncated,
}

var codeStatus = [...]judge.Status{codeOK: judge.StatusOK, codeParseError: judge.StatusParseError,
	codeAPIError: judge.StatusAPIError, codeTruncated: judge.StatusTruncated}

// verdictSlots are a run's verdicts of one order: an item's first
// criterion in first (indexed by item), its others in rest, chained.
type verdictSlots struct {
	first []cverdict
	rest  []cverdict
}

// made reports whether the slots exist (the swapped order's are made at
// its first verdict).
func (s *verdictSlots) made() bool { return s.first != nil }

// extend lengthens the slots to n items, with room for total (extend).
func (s *verdictSlots) extend(n, total int) {
	if s.made() {
		s.first = extend(s.first, n, total)
	}
}

// head returns an item's first verdict, nil when it has none.
func (s *verdictSlots) head(item int) *cverdict {
	if item < 0 || item >= len(s.first) || s.first[item].status == codeNone {
		return nil
	}
	return &s.first[item]
}

// after returns the item's verdict after c, nil after its last.
func (s *verdictSlots) after(c *cverdict) *cverdict {
	if c.next == 0 {
		return nil
	}
	return &s.rest[c.next-1]
}

// has reports whether an item has a verdict.
func (s *verdictSlots) has(item int) bool { return s.head(item) != nil }

// count is how many verdicts an item has.
func (s *verdictSlots) count(item int) int {
	n := 0
	for c := s.head(item); c != nil; c = s.after(c) {
		n++
	}
	return n
}

// find returns an item's verdict of a criterion, nil when it has none.
func (s *verdictSlots) find(item, crit int) *cverdict {
	for c := s.head(item); c != nil; c = s.after(c) {
		if int(c.crit) == crit {
			return c
		}
	}
	return nil
}

// set stores c as an item's verdict of its criterion: in place of the
// one it replaces (returned, with true), else after the item's others.
func (s *verdictSlots) set(item int, c cverdict) (cverdict, bool) {
	if s.first[item].status == codeNone {
		c.next = 0
		s.first[item] = c
		return cverdict{}, false
	}
	// ref is where the verdict is: 0 for first, else next's number. An
	// index, not a pointer: the append below may move rest.
	ref := uint32(0)
	for {
		x := s.at(item, ref)
		if x.crit == c.crit {
			old := *x
			c.next = x.next
			*x = c
			return old, true
		}
		if x.next == 0 {
			break
		}
		ref = x.next
	}
	c.next = 0
	s.rest = append(s.rest, c)
	s.at(item, ref).next = uint32(len(s.rest))
	return cverdict{}, false
}

// at is an item's verdict at ref (set).
func (s *verdictSlots) at(item int, ref uint32) *cverdict {
	if ref == 0 {
		return &s.first[item]
	}
	return &s.rest[ref-1]
}

// verdictMore is what a record does not hold of a verdict.
type verdictMore struct {
	reason, raw, err string
	extra            map[string]any
	at               time.Time    // when the record's at is noTime and hasAt
	hasAt            bool         // a time outside int64 nanoseconds
	conf             *float64     // a NaN confidence
	status           judge.Status // when the record's status is codeOther
	model            string       // when the run has more models than its table holds
}

// valueEntry is one Values map of the run's verdicts. A one-dimension map
// (nearly every judge's) is read from dim and x without a map look-up.
type valueEntry struct {
	m   map[string]float64 // the map verdicts share; nil for an unshared one-dimension value
	dim string
	x   float64
	one bool
}

// get is the value of a dimension.
func (e *valueEntry) get(name string) (float64, bool) {
	if e.one {
		if name != e.dim {
			return 0, false
		}
		return e.x, true
	}
	x, ok := e.m[name]
	return x, ok
}

// values is the entry's map for a whole verdict.
func (e *valueEntry) values() map[string]float64 {
	if e.m == nil && e.one {
		return map[string]float64{e.dim: e.x}
	}
	return e.m
}

// oneValue is a one-dimension value, by its bits: NaN is found again.
type oneValue struct {
	dim  string
	bits uint64
}

// sharedValues is how many distinct one-dimension values keep a map the
// verdicts share; further values (a judge of continuous scores) keep an
// entry each, without a map, and a whole verdict of them makes its own.
const sharedValues = 1 << 16

// modelsKept is the most models the table holds; a verdict of any other
// keeps its model in more.
const modelsKept = math.MaxUint16

// verdictTables are what a run's records point into, both orders.
type verdictTables struct {
	values  []valueEntry // [0] is no values
	valueAt map[oneValue]uint32
	models  []string // [0] is ""
	modelAt map[string]uint16
	more    map[vkey]verdictMore
}

func newVerdictTables() verdictTables {
	return verdictTables{
		values:  make([]valueEntry, 1),
		valueAt: map[oneValue]uint32{},
		models:  []string{""},
		modelAt: map[string]uint16{"": 0},
		more:    map[vkey]verdictMore{},
	}
}

// valueIndex returns the entry of a Values map, added when new.
func (t *verdictTables) valueIndex(m map[string]float64) uint32 {
	if len(m) == 0 {
		return 0
	}
	if len(m) > 1 {
		// Several dimensions: rare, one entry per verdict.
		t.values = append(t.values, valueEntry{m: m})
		return uint32(len(t.values) - 1)
	}
	var e valueEntry
	for d, x := range m {
		e = valueEntry{dim: d, x: x, one: true}
	}
	k := oneValue{e.dim, math.Float64bits(e.x)}
	if i, ok := t.valueAt[k]; ok {
		return i
	}
	if len(t.valueAt) < sharedValues {
		e.m = m
		t.valueAt[k] = uint32(len(t.values))
	}
	t.values = append(t.values, e)
	return uint32(len(t.values) - 1)
}

// pack makes the record of a verdict, keeping in more what it cannot
// hold (key names the slot; the caller drops what more held for a
// verdict it replaces when the new one keeps nothing there).
func (t *verdictTables) pack(vd *judge.Verdict, key vkey) cverdict {
	c := cverdict{crit: int32(vd.Criterion), at: noTime, conf: math.NaN(), vals: t.valueIndex(vd.Values)}
	var mo verdictMore
	extra := vd.Reason != "" || vd.Raw != "" || vd.Error != "" || vd.Extra != nil
	mo.reason, mo.raw, mo.err, mo.extra = vd.Reason, vd.Raw, vd.Error, vd.Extra
	if !vd.At.IsZero() {
		if n := vd.At.UnixNano(); n != noTime && time.Unix(0, n).Equal(vd.At) {
			c.at = n
		} else {
			mo.at, mo.hasAt, extra = vd.At, true, true
		}
	}
	if vd.Confidence != nil {
		if x := *vd.Confidence; x == x {
			c.conf = x
		} else {
			mo.conf, extra = vd.Confidence, true
		}
	}
	if code, ok := statusCodes[vd.Status]; ok {
		c.status = code
	} else {
		c.status, mo.status, extra = codeOther, vd.Status, true
	}
	if i, ok := t.modelAt[vd.Model]; ok {
		c.model = i
	} else if len(t.models) < modelsKept {
		c.model = uint16(len(t.models))
		t.modelAt[vd.Model] = c.model
		t.models = append(t.models, vd.Model)
	} else {
		mo.model, extra = vd.Model, true
	}
	if extra {
		c.more = true
		t.more[key] = mo
	}
	return c
}

// unpack rebuilds the whole verdict of a record (key names its slot).
func (t *verdictTables) unpack(c *cverdict, key vkey, itemID string) judge.Verdict {
	v := judge.Verdict{
		ItemID:    itemID,
		Criterion: int(c.crit),
		Swapped:   key.swapped,
		Values:    t.values[c.vals].values(),
		Model:     t.models[c.model],
	}
	if c.status < codeOther {
		v.Status = codeStatus[c.status]
	}
	if c.at != noTime {
		v.At = time.Unix(0, c.at)
	}
	if c.conf == c.conf {
		x := c.conf
		v.Confidence = &x
	}
	if c.more {
		mo := t.more[key]
		v.Reason, v.Raw, v.Error, v.Extra = mo.reason, mo.raw, mo.err, mo.extra
		if mo.hasAt {
			v.At = mo.at
		}
		if mo.conf != nil {
			v.Confidence = mo.conf
		}
		if c.status == codeOther {
			v.Status = mo.status
		}
		if mo.model != "" {
			v.Model = mo.model
		}
	}
	return v
}

// value is a record's value of a dimension when it is ok.
func (t *verdictTables) value(c *cverdict, dim string) (float64, bool) {
	if c == nil || c.status != codeOK {
		return 0, false
	}
	return t.values[c.vals].get(dim)
}
