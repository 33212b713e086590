package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gavel-dev/gavel/judge"
)

// A Stream is a dataset whose items are handed out in file order while
// the rest of the file is still parsed, so that a screen can show the
// first rows of a million at once. The file's first rows are read and
// mapped first (the mapping is decided from them, as Load decides it);
// the rest is read a chunk of a few megabytes at a time once more than
// the first page is asked for. What needs every row — a bad row further
// on, duplicate ids, the empty-role warnings, the hash — is known when
// the parse ends (Wait).
//
// Told to (StoreFields), the stream keeps no chunk of the file once it
// is parsed: each item's texts are copied out of it and its Fields are
// kept in the form a session stores them, so that a million items take
// about the size of their texts rather than the file's size plus them.
//
// Only plain JSONL read without SkipBad streams: there the items read
// so far never change. A JSON document, CSV, TSV or lm-evaluation-harness
// samples (whose ids depend on every row's filter), and any file read
// with SkipBad (a duplicate id found at the end would remove a row
// already handed out), are read whole by OpenStream, as Load reads
// them. A gzip file is decompressed whole first, then streamed.
type Stream struct {
	head      Dataset // the dataset before its items (Head)
	lines     int
	streaming bool
	fromFile  bool         // the rest is read from the file (FromFile)
	slots     []judge.Item // the parse's slots, packed from the front

	l          *loader
	first      []byte     // the first chunk: the first streamFirstRows lines
	firstLines int        // its lines
	rest       restSource // the text after it
	// fields is what StoreFields was given; chunks read once it is set
	// copy their texts and keep Fields in the form it gives.
	fields    atomic.Pointer[func() func(*judge.Item) string]
	anyStored bool          // some chunk did (written by the reader only)
	begin     chan struct{} // closed when the rest is to be read
	beginOnce sync.Once
	closed    atomic.Bool // Close was called

	mu   sync.Mutex
	cond sync.Cond
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
// screen's page is parsed on its own, before anything else. A variable
// so that tests can make it small.
var streamFirstRows = 2000

// streamChunk is the size of the chunks after the first: small enough
// that pages of items reach the screen steadily (about 7,000 rows of
// 600 bytes) and that the few being parsed take little memory, big
// enough that a chunk's fixed cost does not show. A variable so that
// tests can cut small files into many chunks.
var streamChunk = 4 << 20

// streamAhead is how many chunks may be read and not yet parsed, beyond
// one per core.
const streamAhead = 2

// OpenStream reads the first rows of the dataset file at path, maps its
// fields and starts parsing them in the background (see Stream). Errors
// that show before any row is parsed — the file, the format, the mapping
// — are returned here, as Load returns them; a bad row, even the first,
// is Items' and Wait's error. Standard input ("-") is read whole.
func OpenStream(path string, opts Options) (*Stream, error) {
	if path == "" || path == "-" {
		ds, err := Load(path, opts)
		if err != nil {
			return nil, err
		}
		return wholeStream(ds), nil
	}
	f, size, err := openFile(path, opts)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return openReader(path, abs, f, size, f.Close, opts)
}

// streamData is OpenStream on a file's bytes in memory.
func streamData(name, abs string, data []byte, opts Options) (*Stream, error) {
	return openReader(name, abs, bytes.NewReader(data), int64(len(data)), nil, opts)
}

// errClosed ends a stream closed before its end.
var errClosed = errors.New("the dataset's stream was closed before it was read whole")

// errOver is readHead's and readAll's error for a file grown past the cap.
var errOver = errors.New("over the cap")

// openReader opens a stream on the file r of about size bytes; closeFile,
// when not nil, is called once r is no longer read.
func openReader(name, abs string, r io.ReaderAt, size int64, closeFile func() error, opts Options) (*Stream, error) {
	handed := false
	defer func() {
		if !handed && closeFile != nil {
			closeFile()
		}
	}()
	maxBytes, explicit := opts.maxBytes()
	readErr := func(err error) error {
		if err == errOver {
			return sizeError(name+" grew past", -1, maxBytes, explicit)
		}
		return readError(name, err)
	}
	raw, eof, err := readHead(r, size, maxBytes)
	if err != nil {
		return nil, readErr(err)
	}
	// What the first rows cannot decide is decided on the whole file, as
	// Load decides it.
	whole := func() (*Stream, error) {
		data := raw
		if !eof {
			if data, err = readAll(r, raw, size, maxBytes); err != nil {
				return nil, readErr(err)
			}
		}
		return streamMemory(name, abs, data, opts)
	}
	if isGzip(raw) {
		return whole()
	}
	// prepareLoad's checks, in its order, on the first rows.
	userMap, err := canonicalMap(opts.Map)
	if err != nil {
		return nil, err
	}
	for _, r := range opts.Require {
		if _, err := canonicalRole(r); err != nil {
			return nil, err
		}
	}
	if err := checkHead(name, raw, false); err != nil {
		return nil, err
	}
	text := bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(text)) == 0 {
		if eof {
			return nil, fmt.Errorf("%s is empty: there are no rows to load", name)
		}
		return whole()
	}
	format, err := detectFormat(name, text, opts.Format)
	if err != nil {
		return nil, err
	}
	if format != "jsonl" || opts.SkipBad || !eof && !headDecides(text) {
		return whole()
	}
	ds := &Dataset{Path: abs, Name: name}
	l := &loader{ds: ds, name: name, opts: opts, userMap: userMap}
	lines := text
	if !eof {
		lines = text[:bytes.LastIndexByte(text, '\n')+1]
	}
	err = l.mapJSONL(lines, format)
	if !eof && (err != nil || l.discovered < discoverRows) {
		return whole() // the mapping looks further than the first rows
	}
	if err != nil {
		return nil, err
	}
	if l.harness {
		return whole()
	}
	first := text[:firstChunkEnd(text)]
	carry := text[len(first):]
	restLines, err := countRest(r, int64(len(raw)), carry)
	if err != nil {
		return nil, readErr(err)
	}
	rest := &fileRest{name: name, r: r, off: int64(len(raw)), carry: carry, unhashed: raw, h: sha256.New(),
		limit: maxBytes, explicit: explicit, closeFile: closeFile}
	handed = true
	return newStream(l, first, rest, restLines), nil
}

// headDecides reports whether the format detectFormat gave the first rows
// of a longer text is the one it gives the whole: their first object ends
// on its line and something follows it.
func headDecides(text []byte) bool {
	start := skipSpace(text, 0)
	s := scanner{b: text}
	v, err := s.value(start, 0)
	return err == nil && bytes.IndexByte(text[start:v.end], '\n') < 0 && skipSpace(text, v.end) < len(text)
}

// firstChunkEnd is where the first streamFirstRows lines of text end.
func firstChunkEnd(text []byte) int {
	end := 0
	for k := 0; k < streamFirstRows && end < len(text); k++ {
		end = nextLineStart(text, end)
	}
	return end
}

// countLines counts the lines of text, a last one without its newline
// included.
func countLines(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// readHead reads the start of r, a file of about size bytes: the first
// chunk's lines and those the mapping looks at (twice as many, in case
// some are bad or blank), or all of it (eof).
func readHead(r io.ReaderAt, size, limit int64) (raw []byte, eof bool, err error) {
	buf := make([]byte, 0, 256<<10)
	lines, empty := 0, 0
	want := max(streamFirstRows, 2*discoverRows)
	for {
		if len(buf) == cap(buf) {
			n := 2 * int64(cap(buf))
			if n > 16<<20 {
				// Long lines (or a JSON document on one): room for the
				// whole file at once, as Load reads it, not a copy per
				// doubling.
				n = max(n, min(size, limit)+1)
			}
			buf = slices.Grow(buf, int(n)-len(buf))
		}
		n, err := r.ReadAt(buf[len(buf):cap(buf)], int64(len(buf)))
		lines += bytes.Count(buf[len(buf):len(buf)+n], []byte{'\n'})
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			return nil, false, errOver
		case err == io.EOF:
			return buf, true, nil
		case err != nil:
			return nil, false, err
		case lines >= want:
			return buf, false, nil
		case n == 0:
			if empty++; empty > 100 {
				return nil, false, io.ErrNoProgress
			}
		}
	}
}

// readAll reads the rest of r after head, which it starts with, into one
// buffer of about size bytes.
func readAll(r io.ReaderAt, head []byte, size, limit int64) ([]byte, error) {
	buf := make([]byte, len(head), min(max(size, int64(len(head)))+1, limit+1))
	copy(buf, head)
	for empty := 0; ; {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
		n, err := r.ReadAt(buf[len(buf):cap(buf)], int64(len(buf)))
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			return nil, errOver
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, err
		case n == 0:
			if empty++; empty > 100 {
				return nil, io.ErrNoProgress
			}
		}
	}
}

// countRest counts the lines of the text after the first chunk, carry then
// r from off, reading r through a small buffer: the screen needs the count
// at once, and the rows only as they are parsed.
func countRest(r io.ReaderAt, off int64, carry []byte) (int, error) {
	n := bytes.Count(carry, []byte{'\n'})
	size, last := len(carry), byte('\n')
	if size > 0 {
		last = carry[size-1]
	}
	buf := make([]byte, 1<<20)
	for empty := 0; ; {
		k, err := r.ReadAt(buf, off)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if k > 0 {
			size += k
			last = buf[k-1]
			off += int64(k)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		if k == 0 {
			if empty++; empty > 100 {
				return 0, io.ErrNoProgress
			}
		}
	}
	if size > 0 && last != '\n' {
		n++
	}
	return n, nil
}

// streamMemory streams a file whose bytes are in memory (a gzip file, or
// one whose first rows do not decide how it is read).
func streamMemory(name, abs string, data []byte, opts Options) (*Stream, error) {
	ds := &Dataset{Path: abs, Name: name}
	// The hash starts once the rest is read (or when it is needed):
	// before, it would take a core from the first page.
	ch := make(chan string, 1)
	startHash := sync.OnceFunc(func() {
		go func(stored []byte) {
			h := sha256.Sum256(stored)
			ch <- hex.EncodeToString(h[:])
		}(data)
	})
	sum := sync.OnceValue(func() string { startHash(); return <-ch })
	l, text, format, err := prepareLoad(ds, data, opts)
	if err != nil {
		return nil, err
	}
	whole := func() (*Stream, error) {
		startHash()
		err := l.loadText(text, format)
		ds.SHA256 = sum()
		if err != nil {
			return nil, err
		}
		return wholeStream(ds), nil
	}
	if format != "jsonl" || opts.SkipBad {
		return whole()
	}
	if err := l.mapJSONL(text, format); err != nil {
		return nil, err
	}
	if l.harness {
		// Harness ids get their filter appended when the file holds
		// several, which only the last row may tell.
		startHash()
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
	first := text[:firstChunkEnd(text)]
	rest := &memRest{text: text[len(first):], startHash: startHash, hashed: sum}
	return newStream(l, first, rest, countLines(rest.text)), nil
}

// wholeStream is a Stream of a dataset already read whole.
func wholeStream(ds *Dataset) *Stream {
	s := &Stream{head: *ds, lines: len(ds.Items), ended: true, ds: ds, packed: len(ds.Items)}
	s.head.Items = nil
	s.cond.L = &s.mu
	return s
}

// newStream starts parsing a mapped file: first, its first chunk, at
// once; rest, of restLines lines, once asked for.
func newStream(l *loader, first []byte, rest restSource, restLines int) *Stream {
	ds := l.ds
	// The first page's items keep their rows and texts in the file's
	// bytes: a copy of theirs alone, not of the buffer they were read
	// with, which holds more.
	first = bytes.Clone(first)
	firstLines := countLines(first)
	_, fromFile := rest.(*fileRest)
	s := &Stream{head: *ds, lines: firstLines + restLines, streaming: true, fromFile: fromFile, l: l,
		first: first, firstLines: firstLines, rest: rest, begin: make(chan struct{}),
		done: []bool{false}, clean: []bool{false}}
	s.head.Warnings = slices.Clone(ds.Warnings)
	s.head.Imported = slices.Clone(ds.Imported)
	s.cond.L = &s.mu
	l.allocSlots(s.lines)
	s.slots = l.items
	l.chunkSlots = []int{0, firstLines}
	go s.run(restLines > 0)
	return s
}

// A restSource gives the text after the first chunk, a chunk at a time.
type restSource interface {
	// next returns the next chunk: whole lines of about streamChunk
	// bytes (the text's last line perhaps without its newline), and eof
	// with the last (which may be empty). buf is a buffer to read into,
	// nil for a new one; reused is the buffer the text is in, to hand
	// back once the text is no longer needed (nil when the text is
	// memory the source holds).
	next(buf []byte) (text, reused []byte, eof bool, err error)
	// sum is the hex SHA-256 of the file's bytes as stored, once next
	// has returned eof (or when there was no rest to read).
	sum() string
	// close releases the file.
	close()
}

// fileRest reads the rest from a file.
type fileRest struct {
	name     string
	r        io.ReaderAt
	off      int64  // the next byte to read
	carry    []byte // the start of a line read with the chunk before
	spare    []byte // carry's own buffer
	unhashed []byte // the bytes before off not hashed yet
	h        hash.Hash
	limit    int64
	explicit bool
	// closeFile, when not nil, closes the file.
	closeFile func() error
}

func (f *fileRest) next(buf []byte) (text, reused []byte, eof bool, err error) {
	f.hashHead()
	if buf == nil {
		buf = make([]byte, 0, streamChunk+streamChunk/8+1)
	}
	buf = append(buf[:0], f.carry...)
	f.carry = nil
	nl := bytes.LastIndexByte(buf, '\n')
	for empty := 0; !eof && (len(buf) < streamChunk || nl < 0); {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
		n, rerr := f.r.ReadAt(buf[len(buf):cap(buf)], f.off)
		read := buf[len(buf) : len(buf)+n]
		f.h.Write(read)
		if i := bytes.LastIndexByte(read, '\n'); i >= 0 {
			nl = len(buf) + i
		}
		buf = buf[:len(buf)+n]
		f.off += int64(n)
		switch {
		case f.off > f.limit:
			return nil, nil, false, sizeError(f.name+" grew past", -1, f.limit, f.explicit)
		case rerr == io.EOF:
			eof = true
		case rerr != nil:
			return nil, nil, false, readError(f.name, rerr)
		case n == 0:
			if empty++; empty > 100 {
				return nil, nil, false, readError(f.name, io.ErrNoProgress)
			}
		}
	}
	if eof {
		return buf, buf, true, nil
	}
	f.spare = append(f.spare[:0], buf[nl+1:]...)
	f.carry = f.spare
	return buf[:nl+1], buf, false, nil
}

// hashHead hashes the bytes read before the rest.
func (f *fileRest) hashHead() {
	if f.unhashed != nil {
		f.h.Write(f.unhashed)
		f.unhashed = nil
	}
}

func (f *fileRest) sum() string {
	f.hashHead()
	return hex.EncodeToString(f.h.Sum(nil))
}

func (f *fileRest) close() {
	if f.closeFile != nil {
		f.closeFile()
		f.closeFile = nil
	}
}

// memRest cuts the rest from text in memory.
type memRest struct {
	text      []byte
	startHash func()
	hashed    func() string
}

func (m *memRest) next([]byte) (text, reused []byte, eof bool, err error) {
	m.startHash()
	end := len(m.text)
	if end > streamChunk {
		end = nextLineStart(m.text, streamChunk-1)
	}
	text, m.text = m.text[:end], m.text[end:]
	return text, nil, len(m.text) == 0, nil
}

func (m *memRest) sum() string { return m.hashed() }
func (m *memRest) close()      { m.text = nil }

// chunkWork is a chunk of lines to parse.
type chunkWork struct {
	c    int
	text []byte
	base int // the slot of its first line
	res  *chunkResult
	// stored: copy the texts out of the chunk and keep Fields in the
	// form s.fields gives (StoreFields); buf, the buffer the text is in,
	// is then read into again once the chunk is parsed.
	stored bool
	buf    []byte
}

// chunkResult is what the parse of a chunk found wrong.
type chunkResult struct {
	bad  badRows
	utf8 badUTF8
}

// streamWorker parses chunks, one at a time.
type streamWorker struct {
	m      *rowMapper
	fields func(*judge.Item) string // made for the first stored chunk
}

// run parses the first chunk, then, once asked (begin), the rest, and
// ends the stream.
func (s *Stream) run(more bool) {
	var failed atomic.Int64 // the first chunk with a bad row, +1; 0 = none
	first := &chunkResult{}
	s.parse(&streamWorker{m: newRowMapper(s.l)}, chunkWork{text: s.first, res: first}, &failed)
	results := []*chunkResult{first}
	var err error
	if more && failed.Load() == 0 {
		<-s.begin
		var rest []*chunkResult
		rest, err = s.readRest(&failed)
		results = append(results, rest...)
	}
	s.end(results, err)
}

// parse maps the lines of one chunk and packs what can be packed.
func (s *Stream) parse(w *streamWorker, cw chunkWork, failed *atomic.Int64) {
	stop := func() bool {
		f := failed.Load()
		return f != 0 && int(f-1) < cw.c
	}
	if stop() {
		return // an earlier chunk has a bad row: this one is never packed
	}
	w.m.arena.own = cw.stored
	w.m.fields = nil
	if cw.stored {
		if w.fields == nil {
			w.fields = (*s.fields.Load())()
		}
		w.m.fields = w.fields
	}
	s.l.parseChunk(w.m, cw.text, cw.base, &cw.res.bad, &cw.res.utf8, stop)
	if cw.res.bad.count > 0 {
		for {
			f := failed.Load()
			if (f != 0 && int(f-1) <= cw.c) || failed.CompareAndSwap(f, int64(cw.c+1)) {
				break
			}
		}
	}
	s.chunkDone(cw.c, &cw.res.bad)
}

// readRest reads the text after the first chunk and parses it on every
// core, a few chunks in memory at a time; the buffers of stored chunks
// are read into again.
func (s *Stream) readRest(failed *atomic.Int64) (results []*chunkResult, err error) {
	l := s.l
	workers := runtime.GOMAXPROCS(0)
	work := make(chan chunkWork)
	// free holds a buffer (nil: none yet) for each chunk that may be
	// read and not yet parsed.
	free := make(chan []byte, workers+streamAhead)
	for range cap(free) {
		free <- nil
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &streamWorker{m: newRowMapper(l)}
			for cw := range work {
				s.parse(w, cw, failed)
				free <- cw.buf
			}
		}()
	}
	slot := s.firstLines
	for c := 1; failed.Load() == 0; c++ {
		if s.closed.Load() {
			err = errClosed
			break
		}
		buf := <-free
		stored := s.fields.Load() != nil
		if !stored {
			buf = nil // the items keep the chunk's memory
		}
		text, reused, eof, rerr := s.rest.next(buf)
		if rerr != nil {
			err = rerr
			free <- buf
			break
		}
		lines := countLines(text)
		if lines == 0 {
			free <- buf
			break
		}
		if slot+lines > len(l.items) {
			err = fmt.Errorf("%s changed while it was read (it has more lines than when it was opened): review it again once it is written", l.name)
			free <- buf
			break
		}
		res := &chunkResult{}
		results = append(results, res)
		s.mu.Lock()
		s.done, s.clean = append(s.done, false), append(s.clean, false)
		l.chunkSlots = append(l.chunkSlots, slot+lines)
		s.mu.Unlock()
		cw := chunkWork{c: c, text: text, base: slot, res: res}
		if stored {
			s.anyStored = true
			cw.stored, cw.buf = true, reused
		}
		work <- cw
		slot += lines
		if eof {
			break
		}
	}
	close(work)
	wg.Wait()
	return results, err
}

// end checks the whole once every chunk is parsed (or the parse stopped)
// and ends the stream.
func (s *Stream) end(results []*chunkResult, readErr error) {
	l := s.l
	for _, r := range results {
		l.bad.merge(&r.bad)
		if l.bad.count > 0 {
			break
		}
	}
	err := l.stopped()
	if err == nil {
		err = readErr
	}
	if err == nil {
		bad8 := make([]badUTF8, len(results))
		for i, r := range results {
			bad8[i] = r.utf8
		}
		l.warnUTF8(bad8)
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
		l.ds.FieldsStored = s.anyStored
		l.ds.SHA256 = s.rest.sum()
	}
	s.rest.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	s.err = err
	if err == nil {
		s.ds = l.ds
	}
	// The slots' memory now belongs to the dataset, or to nobody.
	s.l, s.rest, s.first = nil, nil, nil
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
}

// startRest lets the rest of the file be read.
func (s *Stream) startRest() {
	if s.streaming {
		s.beginOnce.Do(func() { close(s.begin) })
	}
}

// StoreFields makes the chunks read from now on keep nothing of the
// file's bytes: their items' texts are copied out, and their Fields hold
// the text that a function fields makes gives for the item instead of
// the original row — the form a session stores (sessions.StoredFieldsEncoder),
// which sessions.WholeFields turns back into the row. fields is called
// once per core; the functions it makes are called for one item at a
// time and must return text of their own. The first page keeps its rows
// as read. The dataset then says FieldsStored. It also starts reading
// the rest of the file, and does nothing for a file read whole.
func (s *Stream) StoreFields(fields func() func(*judge.Item) string) {
	if !s.streaming || fields == nil {
		return
	}
	s.fields.Store(&fields)
	s.startRest()
}

// FromFile reports whether the stream reads the rest of its file a chunk
// at a time. It does not when the file was read whole first: compressed
// (decompressed in memory), standard input, a format or an option that is
// not streamed, or first rows that do not decide the mapping. Such a
// stream holds the whole text until it ends, so StoreFields then adds
// copies of the texts to it, to be freed only once it ends.
func (s *Stream) FromFile() bool { return s.fromFile }

// Close gives up a stream whose items are no longer wanted: no more of
// the file is read, and the file is closed once the chunks being parsed
// are. Items and Wait then end with an error (unless the parse had
// ended). A stream is otherwise read to its end.
func (s *Stream) Close() {
	if s.streaming {
		s.closed.Store(true)
		s.startRest()
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
// longer prefixes of the same items. Asking for more than the first
// page holds starts reading the rest of the file.
func (s *Stream) Items(n int) ([]judge.Item, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.ended && s.packed < n {
		if s.next > 0 {
			s.startRest() // the first page is in, and more is wanted
		}
		s.cond.Wait()
	}
	if s.ended && s.err == nil {
		items := s.ds.Items
		return items[:min(n, len(items))], n >= len(items), nil
	}
	return s.slots[:min(n, s.packed)], false, s.err
}

// Wait reads the rest of the file, waits for the parse to end and returns
// the whole dataset, as Load would have returned it.
func (s *Stream) Wait() (*Dataset, error) {
	s.startRest()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.ended {
		s.cond.Wait()
	}
	return s.ds, s.err
}
