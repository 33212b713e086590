package dataset

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// formatNames maps the names Options.Format accepts to formats.
var formatNames = map[string]string{
	"jsonl": "jsonl", "ndjson": "jsonl", "jsonlines": "jsonl",
	"json": "json",
	"csv":  "csv",
	"tsv":  "tsv", "tab": "tsv",
	"lm-eval": "lm-eval", "lm_eval": "lm-eval", "lm-eval-harness": "lm-eval", "harness": "lm-eval",
}

// detectFormat decides how to parse text: the format forced by the
// caller, else the extension for CSV and TSV, else the content.
func detectFormat(name string, text []byte, forced string) (string, error) {
	if forced != "" {
		f, ok := formatNames[strings.ToLower(strings.TrimSpace(forced))]
		if !ok {
			return "", fmt.Errorf("unknown format %q: use jsonl, json, csv, tsv or lm-eval (or leave it out to decide by the file)", forced)
		}
		return f, nil
	}
	ext := extension(name)
	switch ext {
	case ".csv":
		return "csv", nil
	case ".tsv", ".tab":
		return "tsv", nil
	}
	start := skipSpace(text, 0)
	switch text[start] {
	case '[':
		return "json", nil
	case '{':
		return objectFormat(text, start, ext), nil
	}
	switch ext {
	case ".json":
		return "json", nil
	case ".jsonl", ".ndjson", ".jsonlines":
		return "jsonl", nil
	}
	first := text[start:]
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	switch {
	case bytes.IndexByte(first, '\t') >= 0:
		return "tsv", nil
	case bytes.IndexByte(first, ',') >= 0:
		return "csv", nil
	}
	return "", fmt.Errorf("cannot tell the format of %s: it does not start like JSON, and its first line has no comma or tab; name it .jsonl, .json, .csv or .tsv, or give the format (--format)", name)
}

// objectFormat tells a file that starts with an object: objects spread
// over several lines (one alone, or a stream of pretty-printed ones) are
// read as a JSON document, one object per line as JSONL.
func objectFormat(text []byte, start int, ext string) string {
	jsonl := ext == ".jsonl" || ext == ".ndjson" || ext == ".jsonlines"
	s := scanner{b: text}
	v, err := s.value(start, 0)
	switch {
	case err != nil:
		if ext == ".json" {
			return "json"
		}
		return "jsonl"
	case bytes.IndexByte(text[start:v.end], '\n') >= 0:
		return "json"
	case skipSpace(text, v.end) == len(text) && !jsonl:
		return "json"
	}
	return "jsonl"
}

// extension is the file's lower-case extension, looking through ".gz".
func extension(name string) string {
	n := strings.ToLower(filepath.Base(name))
	for _, z := range []string{".gz", ".gzip"} {
		n = strings.TrimSuffix(n, z)
	}
	return filepath.Ext(n)
}
