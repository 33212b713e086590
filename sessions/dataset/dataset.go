package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/charmbracelet/x/term"

	"github.com/gavel-dev/gavel/judge"
)

// Options say how to read a dataset.
type Options struct {
	// Map overrides the automatic field mapping: role -> field path, as
	// ParseMap returns it. Roles not in Map are mapped automatically; an
	// empty field switches a role off.
	Map map[string]string
	// SkipBad skips bad rows (counted in Dataset.Skipped) instead of
	// stopping at the first one.
	SkipBad bool
	// Format is "jsonl" (or "ndjson"), "json", "csv", "tsv" or "lm-eval"
	// (lm-evaluation-harness samples); "" decides by the file's extension
	// and content. Gzip compression is always recognised by its magic
	// bytes.
	Format string
	// Require lists the roles the dataset must have a field for. nil means
	// {"prediction"}: without predictions there is nothing to judge. An
	// empty, non-nil slice requires nothing.
	Require []string
	// MaxBytes caps the text read, counted after decompression (--max-bytes).
	// 0 means DefaultMaxBytes, and for a gzip file also at most MaxGzipRatio
	// times its compressed size (GzipFloor at least). A cap given here is
	// the only one: whoever sets it vouches for the file.
	MaxBytes int64
	// Stdin is what the path "-" reads; nil means os.Stdin.
	Stdin io.Reader
}

// Dataset is a loaded, mapped dataset.
type Dataset struct {
	// Path is the absolute path of the file ("" for LoadBytes and for
	// standard input).
	Path string
	// Name is the name used in messages: the path as given to Load
	// ("standard input" for "-"), or the name given to LoadBytes.
	Name string
	// Format is "jsonl", "json", "csv", "tsv" or "lm-eval".
	Format string
	// Compression is "gzip" or "".
	Compression string
	// RowsKey is the key of the list that holds the rows when a JSON file
	// is an object holding one list (e.g. "outputs"); "" otherwise.
	RowsKey string
	// SHA256 is the hex SHA-256 of the file's bytes as stored (before
	// decompression): the dataset's identity in a session.
	SHA256 string
	// Mapping is what was mapped: role -> field path, in ParseMap's
	// syntax (several fields joined by "+"). A role that is absent has no
	// field: for "id" that means rows are numbered.
	Mapping map[string]string
	// Items are the rows in file order. Their strings may share memory
	// with the file's bytes, and items with equal segments share one
	// Segments map: treat both, and Fields, as read-only.
	Items []judge.Item
	// Imported holds the raw text of the imported verdict and human label
	// fields, one column per field; nil when the dataset has none.
	Imported []ImportedColumn
	// Skipped counts the bad rows skipped with SkipBad, and
	// SkippedSamples holds the messages of the first few.
	Skipped        int
	SkippedSamples []string
	// FieldsStored is true when items' Fields may hold, instead of the
	// original row, the form a session stores it in (the text of the
	// item's own columns left out; sessions.WholeFields gives the row
	// back): the items a Stream parsed after Stream.StoreFields.
	FieldsStored bool
	// InvalidUTF8Lines counts the lines that held invalid UTF-8; their bad
	// bytes were replaced with U+FFFD.
	InvalidUTF8Lines int
	// Warnings are notes for the user about how the file was read, such
	// as repaired text or a choice the automatic mapping made.
	Warnings []string
}

// ImportedColumn is one field holding verdicts of a judge that ran
// elsewhere (Role "verdict") or labels people gave elsewhere (Role
// "human"), or belonging to a verdict field: the same judge's verdicts
// with the pair's responses swapped (Role "swapped") or its reasons (Role
// "reason"). The text is kept as found; reading it into verdicts and
// labels is left to the caller.
type ImportedColumn struct {
	Role string
	// Field is the field path, which also names the judge or annotator
	// ("GPT-4", "annotator2", "exact_match").
	Field string
	// Of is, for a swapped or reason column, the verdict field it belongs
	// to; "" for the others. Such a column follows its verdict column in
	// Dataset.Imported.
	Of string
	// Values[i] is the text for Items[i]; "" where the row has none.
	Values []string
}

// RowError is a problem with one row.
type RowError struct {
	// File is the dataset's name as given to Load.
	File string
	// Line is the 1-based line where the row starts (in the decompressed
	// text for gzip files).
	Line int
	// Element is the 0-based position of the row in a JSON document's
	// list, or -1 for JSONL, CSV and TSV.
	Element int
	// Msg says what is wrong.
	Msg string
}

func (e *RowError) Error() string {
	if e.Element >= 0 {
		return fmt.Sprintf("%s:%d: element [%d]: %s", e.File, e.Line, e.Element, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// skipHint ends the message of a load stopped by a bad row.
const skipHint = " (fix the row, or skip bad rows with --skip-bad)"

// StdinName names standard input (the path "-") in messages.
const StdinName = "standard input"

// Load reads and maps the dataset at path; "-" reads standard input. Only
// regular files are opened: a named pipe with no writer would wait
// forever and a device such as /dev/zero never ends, so both are refused
// with a pointer to "-", which reads a stream within the same cap.
func Load(path string, opts Options) (*Dataset, error) {
	if path == "" {
		return nil, errors.New("no dataset file given: name a JSONL, JSON, CSV or TSV file")
	}
	if path == "-" {
		data, err := readStdin(opts)
		if err != nil {
			return nil, err
		}
		return load(StdinName, "", data, opts)
	}
	data, err := readFile(path, opts)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return load(path, abs, data, opts)
}

// readFile reads a regular file within the cap.
func readFile(path string, opts Options) ([]byte, error) {
	f, size, err := openFile(path, opts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	maxBytes, explicit := opts.maxBytes()
	data, over, err := readCapped(f, size, maxBytes, nil)
	switch {
	case err != nil:
		return nil, readError(path, err)
	case over:
		return nil, sizeError(path+" grew past", -1, maxBytes, explicit)
	}
	return data, nil
}

// openFile opens a regular file whose size is within the cap, and returns
// its size.
func openFile(path string, opts Options) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, readError(path, err)
	}
	if err := regular(path, st); err != nil {
		return nil, 0, err
	}
	maxBytes, explicit := opts.maxBytes()
	if st.Size() > maxBytes {
		return nil, 0, sizeError(path+" is", st.Size(), maxBytes, explicit)
	}
	// Opened without waiting, in case the path became a pipe since the
	// Stat; the open file is checked again.
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, 0, readError(path, err)
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, 0, readError(path, err)
	}
	if err := regular(path, st); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// regular refuses what is not a regular file, saying what it is.
func regular(path string, st fs.FileInfo) error {
	m := st.Mode()
	if m.IsRegular() {
		return nil
	}
	if m.IsDir() {
		return fmt.Errorf("%s is a directory: give the path of a dataset file", path)
	}
	what := "not a regular file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a block device"
	}
	return fmt.Errorf("%s is %s: Gavel reads datasets from regular files. Give - and pipe it in (gavel run - --session S.gavel < %s); gavel review needs a regular file, its keys come from standard input", path, what, path)
}

// readStdin reads standard input within the cap. Its first bytes are
// checked before the rest is read, so that binary data (< /dev/zero) is
// refused at once.
func readStdin(opts Options) ([]byte, error) {
	in := opts.Stdin
	if in == nil {
		if term.IsTerminal(os.Stdin.Fd()) {
			return nil, fmt.Errorf("the dataset is - (standard input), but standard input is a terminal: pipe the dataset in (gavel COMMAND - < data.jsonl), or give its path")
		}
		in = os.Stdin
	}
	maxBytes, explicit := opts.maxBytes()
	var headErr error
	data, over, err := readCapped(in, 0, maxBytes, func(head []byte) error {
		if !isGzip(head) {
			headErr = checkHead(StdinName, head, false)
		}
		return headErr
	})
	switch {
	case err != nil && err == headErr:
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%s cannot be read: %v", StdinName, err)
	case over:
		return nil, sizeError(StdinName+" holds", -1, maxBytes, explicit)
	}
	return data, nil
}

// LoadBytes reads and maps a dataset held in memory; name stands for the
// file in messages and its extension helps tell the format. data is copied:
// the caller may reuse it.
func LoadBytes(name string, data []byte, opts Options) (*Dataset, error) {
	return load(name, "", append([]byte(nil), data...), opts)
}

func readError(path string, err error) error {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist: check the path", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s cannot be read: permission denied", path)
	case errors.As(err, &pe) && pe.Op == "read":
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			return fmt.Errorf("%s is a directory: give the path of a dataset file", path)
		}
	}
	return fmt.Errorf("%s cannot be read: %v", path, err)
}

// load is shared by Load and LoadBytes; it owns data.
func load(name, abs string, data []byte, opts Options) (*Dataset, error) {
	ds := &Dataset{Path: abs, Name: name}
	sum := make(chan string, 1)
	go func(stored []byte) {
		h := sha256.Sum256(stored)
		sum <- hex.EncodeToString(h[:])
	}(data)
	err := loadInto(ds, data, opts)
	ds.SHA256 = <-sum
	if err != nil {
		return nil, err
	}
	return ds, nil
}

func loadInto(ds *Dataset, data []byte, opts Options) error {
	l, text, format, err := prepareLoad(ds, data, opts)
	if err != nil {
		return err
	}
	return l.loadText(text, format)
}

// prepareLoad checks the options, turns the stored bytes into text and
// decides the format: everything before the rows are read.
func prepareLoad(ds *Dataset, data []byte, opts Options) (*loader, []byte, string, error) {
	userMap, err := canonicalMap(opts.Map)
	if err != nil {
		return nil, nil, "", err
	}
	for _, r := range opts.Require {
		if _, err := canonicalRole(r); err != nil {
			return nil, nil, "", err
		}
	}
	text, compression, err := openText(ds.Name, data, opts)
	if err != nil {
		return nil, nil, "", err
	}
	ds.Compression = compression
	format, err := detectFormat(ds.Name, text, opts.Format)
	if err != nil {
		return nil, nil, "", err
	}
	return &loader{ds: ds, name: ds.Name, opts: opts, userMap: userMap}, text, format, nil
}

// loadText reads and maps every row of text, then checks the whole.
func (l *loader) loadText(text []byte, format string) error {
	var err error
	switch format {
	case "jsonl", "lm-eval":
		err = l.loadJSONL(text, format)
	case "json":
		err = l.loadJSON(text)
	case "csv", "tsv":
		err = l.loadCSV(text, format)
	}
	if err != nil {
		return err
	}
	if err := l.finish(); err != nil {
		return err
	}
	l.checkEmptyRoles()
	return nil
}
