package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gavel-dev/gavel/judge"
)

// A Stream is a dataset whose items are handed out in file order while
// the rest of the file is still parsed, so that a screen can show the
// first rows of a million at once. The file is read whole and mapped
// first (the mapping is decided from the first rows, as Load decides
// it); what needs every row — a bad row further on, duplicate ids, the
// empty-role warnings, the hash — is known when the parse ends (Wait).
//
// Only plain JSONL read without SkipBad streams: there the items read
// so far never change. A JSON document, CSV, TSV or lm-evaluation-harness
// samples (whose ids depend on every row's filter), and any file read
// with SkipBad (a duplicate id found at the end would remove a row
// already handed out), are read whole by OpenStream, as Load reads
// them.
type Stream struct {
	head      Dataset // the dataset before its items (Head)
	lines     int
	streaming bool
	slots     []judge.Item // the parse's slots, packed from the front

	l         *loader
	sum       func() string // the file's hash, once computed
	startHash func()        // starts computing it
	mu        sync.Mutex
	cond      sync.Cond
	// done[c] is set when chunk c is parsed, clean[c] when it had no
	// bad row; chunks are packed in order up to the first not done or
	// not clean.
	done, clean []bool
	next        int // the first chunk not packed
	packed      int // l.items[:packed] are final
	ended       bool
	ds          *Dataset // the whole dataset once ended without error
	err         error
}

// streamFirstRows is how many lines the first chunk holds: the first
// screen's page is parsed on its own, before anything else.
const streamFirstRows = 2000

// streamChunk is the size of the chunks after the first: small enough
// that pages of items reach the screen steadily (about 7,000 rows of
// 600 bytes), big enough that a chunk's fixed cost does not show. A
// variable so that tests can cut small files into many chunks.
var streamChunk = 4 << 20

// OpenStream reads the dataset file at path, maps its fields and starts
// parsing its rows in the background (see Stream). Errors that show
// before any row is parsed — the file, the format, the mapping — are
// returned here, as Load returns them; a bad row, even the first, is
// Items' and Wait's error. Standard input ("-") is read whole.
func OpenStream(path string, opts Options) (*Stream, error) {
	if path == "" || path == "-" {
		ds, err := Load(path, opts)
		if err != nil {
			return nil, err
		}
		return wholeStream(ds), nil
	}
	data, err := readFile(path, opts)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return streamData(path, abs, data, opts)
}

// streamData is OpenStream on the file's bytes; it owns data.
func streamData(name, abs string, data []byte, opts Options) (*Stream, error) {
	ds := &Dataset{Path: abs, Name: name}
	// The hash starts once the first page is parsed (or when it is
	// needed): before, it would take a core from the first page.
	ch := make(chan string, 1)
	var started atomic.Bool
	startHash := sync.OnceFunc(func() {
		started.Store(true)
		go func(stored []byte) {
			h := sha256.Sum256(stored)
			ch <- hex.EncodeToString(h[:])
		}(data)
	})
	sum := sync.OnceValue(func() string { startHash(); return <-ch })
	s, err := startStream(ds, data, opts, sum, startHash)
	if err != nil {
		if started.Load() {
			sum() // as Load, which returns once its hash is done; one not started is not begun
		}
		return nil, err
	}
	return s, nil
}

// wholeStream is a Stream of a dataset already read whole.
func wholeStream(ds *Dataset) *Stream {
	s := &Stream{head: *ds, lines: len(ds.Items), ended: true, ds: ds, packed: len(ds.Items)}
	s.head.Items = nil
	s.cond.L = &s.mu
	return s
}

// startStream maps the text of data and starts the parse; formats that do
// not stream are read whole here.
func startStream(ds *Dataset, data []byte, opts Options, sum func() string, startHash func()) (*Stream, error) {
	l, text, format, err := prepareLoad(ds, data, opts)
	if err != nil {
		return nil, err
	}
	whole := func() (*Stream, error) {
		err := l.loadText(text, format)
		ds.SHA256 = sum()
		if err != nil {
			return nil, err
		}
		return wholeStream(ds), nil
	}
	if format != "jsonl" || opts.SkipBad {
		startHash()
		return whole()
	}
	if err := l.mapJSONL(text, format); err != nil {
		return nil, err
	}
	if l.harness {
		startHash()
		// Harness ids get their filter appended when the file holds
		// several, which only the last row may tell.
		if err := l.parseLines(text); err != nil {
			return nil, err
		}
		err := l.finish()
		if err == nil {
			l.checkEmptyRoles()
		}
		ds.SHA256 = sum()
		if err != nil {
			return nil, err
		}
		return wholeStream(ds), nil
	}
	bounds := streamBounds(text)
	l.slotLines(text, bounds)
	s := &Stream{head: *ds, lines: len(l.items), streaming: true, slots: l.items, l: l, sum: sum, startHash: startHash,
		done: make([]bool, len(bounds)-1), clean: make([]bool, len(bounds)-1)}
	s.head.Warnings = slices.Clone(ds.Warnings)
	s.head.Imported = slices.Clone(ds.Imported)
	s.cond.L = &s.mu
	l.chunkDone = s.chunkDone
	go s.parse(text, bounds)
	return s, nil
}

// streamBounds splits text into the first streamFirstRows lines, then
// chunks of about streamChunk bytes, each starting a line.
func streamBounds(text []byte) []int {
	first := 0
	for k := 0; k < streamFirstRows && first < len(text); k++ {
		first = nextLineStart(text, first)
	}
	bounds := []int{0, first}
	for end := first; end < len(text); {
		end = nextLineStart(text, min(end+streamChunk, len(text)-1))
		bounds = append(bounds, end)
	}
	return bounds
}

// parse maps every line, then checks the whole and ends the stream.
func (s *Stream) parse(text []byte, bounds []int) {
	l := s.l
	err := l.parseSlots(text, bounds)
	if err == nil {
		err = l.stopped()
	}
	if err == nil {
		// Every chunk was packed in order (none had a bad row).
		l.items, l.locs = l.items[:s.packed], l.locs[:s.packed]
		for c := range l.cols {
			l.cols[c] = l.cols[c][:s.packed]
		}
		if err = l.checkIDs(); err == nil {
			err = l.publish()
		}
	}
	if err == nil {
		l.checkEmptyRoles()
	}
	l.ds.SHA256 = s.sum()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	s.err = err
	if err == nil {
		s.ds = l.ds
	}
	s.l = nil // its slots' memory now belongs to the dataset, or to nobody
	s.cond.Broadcast()
}

// chunkDone packs the chunks parsed so far, in order: their items move
// past the slots of blank lines and get their final Index, and become
// what Items hands out.
func (s *Stream) chunkDone(c int, bad *badRows) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done[c], s.clean[c] = true, bad.count == 0
	l := s.l
	grew := false
	for ; s.next < len(s.done) && s.done[s.next] && s.clean[s.next]; s.next++ {
		for r := l.chunkSlots[s.next]; r < l.chunkSlots[s.next+1]; r++ {
			if l.locs[r].line == 0 {
				continue
			}
			w := s.packed
			if w != r {
				l.items[w], l.locs[w] = l.items[r], l.locs[r]
				l.items[r], l.locs[r] = judge.Item{}, rowLoc{}
				for _, col := range l.cols {
					col[w], col[r] = col[r], ""
				}
			}
			l.items[w].Index = w
			s.packed++
		}
		grew = true
	}
	if grew {
		s.cond.Broadcast()
	}
	if s.next > 0 || bad.count > 0 {
		s.startHash()
	}
}

// Head is the dataset as known before its items are read: its name, path,
// format, compression, mapping, the imported columns (without their
// values) and the warnings the mapping gave. Wait has the whole.
func (s *Stream) Head() *Dataset {
	h := s.head
	return &h
}

// Lines is how many items the file can hold at most: its lines (blank
// ones are not items), or its items when it was read whole.
func (s *Stream) Lines() int { return s.lines }

// Streams reports whether the items were still being parsed when
// OpenStream returned; false when the file was read whole.
func (s *Stream) Streams() bool { return s.streaming }

// Items waits until n items are parsed, or the parse has ended, and
// returns the first n items (all of them when there are fewer), whether
// those are every item of a dataset read without error, and the error
// that ended the parse (the items before the bad row are still
// returned). The items returned never change: later calls return
// longer prefixes of the same items.
func (s *Stream) Items(n int) ([]judge.Item, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.ended && s.packed < n {
		s.cond.Wait()
	}
	if s.ended && s.err == nil {
		items := s.ds.Items
		return items[:min(n, len(items))], n >= len(items), nil
	}
	return s.slots[:min(n, s.packed)], false, s.err
}

// Wait waits for the parse to end and returns the whole dataset, as Load
// would have returned it.
func (s *Stream) Wait() (*Dataset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.ended {
		s.cond.Wait()
	}
	return s.ds, s.err
}
