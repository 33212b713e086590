package dataset

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// magics are the file types people hand to a dataset loader by mistake,
// recognised by their first bytes so the message can say what to do.
var magics = []struct {
	prefix string
	msg    string
}{
	{"PK\x03\x04", "is a ZIP archive (an Excel workbook?), not JSONL/JSON/CSV: export the sheet as CSV, or unzip the archive and load the file inside"},
	{"PAR1", "is a Parquet file, which Gavel cannot read yet: convert it to JSONL (in Python: pandas.read_parquet(f).to_json(out, orient=\"records\", lines=True))"},
	{"SQLite format 3\x00", "is a SQLite database, not a dataset: give the JSONL, JSON or CSV file the items come from (gavel review opens a Gavel session file as it is)"},
	{"\xfd7zXZ\x00", "is xz-compressed, which Gavel cannot read: decompress it first (xz -d), or compress it with gzip instead"},
	{"\x28\xb5\x2f\xfd", "is zstd-compressed, which Gavel cannot read: decompress it first (zstd -d), or compress it with gzip instead"},
	{"BZh?1AY&SY", "is bzip2-compressed, which Gavel cannot read: decompress it first (bunzip2), or compress it with gzip instead"},
	{"%PDF-", "is a PDF document, not JSONL/JSON/CSV"},
	{"\xff\xfe", "is UTF-16 text: save it as UTF-8 (in Excel: \"CSV UTF-8\"; or iconv -f UTF-16 -t UTF-8)"},
	{"\xfe\xff", "is UTF-16 text: save it as UTF-8 (in Excel: \"CSV UTF-8\"; or iconv -f UTF-16 -t UTF-8)"},
}

// hasMagic reports whether data starts with prefix, where '?' in prefix
// matches any byte (bzip2 puts its block size there).
func hasMagic(data []byte, prefix string) bool {
	if len(data) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if prefix[i] != '?' && data[i] != prefix[i] {
			return false
		}
	}
	return true
}

// openText turns the stored bytes into the text to parse: decompressed
// within the read cap, without a byte-order mark, and checked to be text at
// all.
func openText(name string, data []byte, opts Options) (text []byte, compression string, err error) {
	maxBytes, explicit := opts.maxBytes()
	if isGzip(data) {
		if data, err = gunzip(name, data, maxBytes, explicit); err != nil {
			return nil, "", err
		}
		compression = "gzip"
	} else if int64(len(data)) > maxBytes {
		return nil, "", sizeError(name+" is", int64(len(data)), maxBytes, explicit)
	}
	if err := checkHead(name, data, compression != ""); err != nil {
		return nil, "", err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		if compression != "" {
			return nil, "", fmt.Errorf("%s is empty once decompressed: there are no rows to load", name)
		}
		return nil, "", fmt.Errorf("%s is empty: there are no rows to load", name)
	}
	return data, compression, nil
}

func isGzip(data []byte) bool {
	return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
}

// checkHead refuses, by its first bytes, text that is no dataset: a file
// compressed twice, a known file type, binary data. It needs no more than
// sniffLen bytes, so a stream can be checked before it is read.
func checkHead(name string, data []byte, decompressed bool) error {
	if decompressed && isGzip(data) {
		return fmt.Errorf("%s is compressed twice: decompress it once (gunzip) and load the result", name)
	}
	for _, m := range magics {
		if hasMagic(data, m.prefix) {
			return fmt.Errorf("%s %s", name, m.msg)
		}
	}
	if looksBinary(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
		return fmt.Errorf("%s looks like a binary file, not JSONL/JSON/CSV: check that this is the dataset file", name)
	}
	return nil
}

// gunzip decompresses all of data (several concatenated gzip members are
// read as one stream, as gunzip does), refusing binary text as soon as it
// shows and stopping at the cap: memory follows what is really inflated,
// up to the cap, whatever the file claims.
func gunzip(name string, data []byte, maxBytes int64, explicit bool) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, gzipError(name, err)
	}
	limit, byRatio := inflateLimit(len(data), maxBytes, explicit)
	// The trailer holds the size modulo 4 GiB: a hint, not a promise.
	hint := int64(len(data)) * 4
	if len(data) >= 18 {
		if n := int64(binary.LittleEndian.Uint32(data[len(data)-4:])); n > hint && n < 64*int64(len(data)) {
			hint = n
		}
	}
	var headErr error
	text, over, err := readCapped(zr, min(hint, limit), limit, func(head []byte) error {
		headErr = checkHead(name, head, true)
		return headErr
	})
	switch {
	case err != nil && err == headErr:
		return nil, err
	case err != nil:
		return nil, gzipError(name, err)
	case over && byRatio:
		return nil, bombError(name, len(data), limit)
	case over:
		return nil, sizeError(name+" inflates to", -1, limit, explicit)
	}
	return text, nil
}

func gzipError(name string, err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("%s: the gzip data ends early, so the file is cut short (was a download or copy interrupted?)", name)
	case errors.Is(err, gzip.ErrChecksum):
		return fmt.Errorf("%s: the gzip data is damaged (its checksum does not match): compress the original again", name)
	case errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("%s starts like gzip but its header is damaged: compress the original again", name)
	case errors.As(err, &corrupt):
		return fmt.Errorf("%s: the gzip data is damaged at byte %d of the compressed stream: compress the original again", name, int64(corrupt))
	}
	return fmt.Errorf("%s: cannot decompress: %v", name, err)
}

// looksBinary reports whether the start of data is not text: a NUL byte,
// or more than one byte in ten that is a control byte or not UTF-8.
func looksBinary(data []byte) bool {
	head := data[:min(len(data), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(head); {
		c := head[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
				bad++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 && len(head)-i >= utf8.UTFMax {
			bad++
		}
		i += n
	}
	return bad*10 > len(head)
}

// repairUTF8 returns text with every invalid UTF-8 sequence replaced by
// U+FFFD, the number of lines that held one and the first such line. It
// returns text itself when it is valid.
func repairUTF8(text []byte) ([]byte, int, int) {
	if utf8.Valid(text) {
		return text, 0, 0
	}
	out := make([]byte, 0, len(text)+len(text)/16)
	lines, first := 0, 0
	for lineNo, rest := 1, text; len(rest) > 0; lineNo++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		if utf8.Valid(line) {
			out = append(out, line...)
			continue
		}
		if lines == 0 {
			first = lineNo
		}
		lines++
		out = append(out, bytes.ToValidUTF8(line, []byte("\uFFFD"))...)
	}
	return out, lines, first
}

// utf8Warning is the note shown when invalid UTF-8 was repaired.
func utf8Warning(name string, lines, first int) string {
	s := "s"
	if lines == 1 {
		s = ""
	}
	return fmt.Sprintf("%s: %d line%s held invalid UTF-8 (the first is line %d); the bad bytes were replaced with U+FFFD (\uFFFD)", name, lines, s, first)
}
