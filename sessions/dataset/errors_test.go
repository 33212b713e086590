package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const hint = " (fix the row, or skip bad rows with --skip-bad)"

// TestLoadErrors asserts the exact messages users see for bad files.
func TestLoadErrors(t *testing.T) {
	bad := func(name string) string { return filepath.Join("testdata", "bad", name) }
	good := func(name string) string { return filepath.Join("testdata", "good", name) }
	m := func(kv ...string) map[string]string {
		out := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name string
		path string
		opts Options
		want string
	}{
		// Files that are not datasets at all.
		{"no path", "", Options{}, "no dataset file given: name a JSONL, JSON, CSV or TSV file"},
		{"missing file", "testdata/nosuch.jsonl", Options{}, "testdata/nosuch.jsonl does not exist: check the path"},
		{"directory", "testdata", Options{}, "testdata is a directory: give the path of a dataset file"},
		{"device", "/dev/zero", Options{}, "/dev/zero is a character device: Gavel reads datasets from regular files. Give - and pipe it in (gavel run - --session S.gavel < /dev/zero); gavel review needs a regular file, its keys come from standard input"},
		{"past --max-bytes", good("basic.jsonl"), Options{MaxBytes: 100}, "testdata/good/basic.jsonl is 398 bytes, more than the --max-bytes limit of 100 bytes: raise it if the file is genuine (e.g. --max-bytes 1MiB)"},
		{"empty", bad("empty.jsonl"), Options{}, "testdata/bad/empty.jsonl is empty: there are no rows to load"},
		{"only blank lines", bad("blank.jsonl"), Options{}, "testdata/bad/blank.jsonl is empty: there are no rows to load"},
		{"binary", bad("random.jsonl"), Options{}, "testdata/bad/random.jsonl looks like a binary file, not JSONL/JSON/CSV: check that this is the dataset file"},
		{"excel", bad("sheet.xlsx"), Options{}, "testdata/bad/sheet.xlsx is a ZIP archive (an Excel workbook?), not JSONL/JSON/CSV: export the sheet as CSV, or unzip the archive and load the file inside"},
		{"parquet", bad("data.parquet"), Options{}, `testdata/bad/data.parquet is a Parquet file, which Gavel cannot read yet: convert it to JSONL (in Python: pandas.read_parquet(f).to_json(out, orient="records", lines=True))`},
		{"sqlite", bad("session.gavel"), Options{}, "testdata/bad/session.gavel is a SQLite database, not a dataset: give the JSONL, JSON or CSV file the items come from (gavel review opens a Gavel session file as it is)"},
		{"zstd", bad("data.jsonl.zst"), Options{}, "testdata/bad/data.jsonl.zst is zstd-compressed, which Gavel cannot read: decompress it first (zstd -d), or compress it with gzip instead"},
		{"utf-16", bad("utf16.csv"), Options{}, `testdata/bad/utf16.csv is UTF-16 text: save it as UTF-8 (in Excel: "CSV UTF-8"; or iconv -f UTF-16 -t UTF-8)`},
		{"truncated gzip", bad("truncated.jsonl.gz"), Options{}, "testdata/bad/truncated.jsonl.gz: the gzip data ends early, so the file is cut short (was a download or copy interrupted?)"},
		{"gzip twice", bad("double.jsonl.gz"), Options{}, "testdata/bad/double.jsonl.gz is compressed twice: decompress it once (gunzip) and load the result"},
		{"empty gzip", bad("emptygz.jsonl.gz"), Options{}, "testdata/bad/emptygz.jsonl.gz is empty once decompressed: there are no rows to load"},
		{"unknown format", good("basic.jsonl"), Options{Format: "xml"}, `unknown format "xml": use jsonl, json, csv, tsv or lm-eval (or leave it out to decide by the file)`},
		{"format given", good("noext"), Options{Format: "ndjson"}, "testdata/good/noext:1: invalid JSON at column 1: expected a value, found 'q'" + hint},
		{"no format", bad("noformat.txt"), Options{}, "cannot tell the format of testdata/bad/noformat.txt: it does not start like JSON, and its first line has no comma or tab; name it .jsonl, .json, .csv or .tsv, or give the format (--format)"},

		// JSONL rows.
		{"syntax", bad("syntax.jsonl"), Options{}, `testdata/bad/syntax.jsonl:3: invalid JSON at column 30: expected ',' or '}' after an object member, found '"'` + hint},
		{"python dict", bad("python.jsonl"), Options{}, "testdata/bad/python.jsonl:1: invalid JSON at column 2: expected a double-quoted key, found a single quote (') — JSON needs double quotes (is this a Python dict printed with str()?)" + hint},
		{"python literal", bad("pythonlit.jsonl"), Options{}, "testdata/bad/pythonlit.jsonl:1: invalid JSON at column 41: expected a value, found True, which is Python, not JSON (JSON writes true, false and null)" + hint},
		{"line break in string", bad("brokenstring.jsonl"), Options{}, `testdata/bad/brokenstring.jsonl:1: invalid JSON at column 25: a string that starts here is not closed on this line (a line break inside a string must be written \n)` + hint},
		{"bad escape", bad("badescape.jsonl"), Options{}, `testdata/bad/badescape.jsonl:1: invalid JSON at column 28: invalid escape \'p' in a string (write \\ for a backslash)` + hint},
		{"not an object", bad("notobject.jsonl"), Options{}, "testdata/bad/notobject.jsonl:2: the row is a list, not a JSON object" + hint},
		{"two rows on a line", bad("twoperline.jsonl"), Options{}, "testdata/bad/twoperline.jsonl:1: invalid JSON at column 30: unexpected '{' after the object (two rows on one line?)" + hint},
		{"trailing comma", bad("trailingcomma.jsonl"), Options{}, "testdata/bad/trailingcomma.jsonl:1: invalid JSON at column 29: a trailing comma before '}' is not allowed in JSON" + hint},
		{"all rows bad", bad("allbad.jsonl"), Options{SkipBad: true}, "testdata/bad/allbad.jsonl: no row could be read: all 2 rows are bad; the first: testdata/bad/allbad.jsonl:1: invalid JSON at column 1: expected a value, found 'n'"},
		{"only row bad", bad("python.jsonl"), Options{SkipBad: true}, "testdata/bad/python.jsonl: no row could be read: its only row is bad: testdata/bad/python.jsonl:1: invalid JSON at column 2: expected a double-quoted key, found a single quote (') — JSON needs double quotes (is this a Python dict printed with str()?)"},

		// Mapping.
		{"no prediction, pairwise", bad("nopred.jsonl"), Options{}, `testdata/bad/nopred.jsonl: no prediction field: rows have keys "idx", "instruction", "generation_1", "generation_2"; say which one holds the prediction with --map prediction=FIELD ("generation_1" and "generation_2" look like the two sides of a pairwise comparison: --map response_a=generation_1,response_b=generation_2 compares them)`},
		{"no prediction, csv", bad("nopred.csv"), Options{}, `testdata/bad/nopred.csv: no prediction field: the columns are "question", "answer"; say which one holds the prediction with --map prediction=FIELD`},
		{"required role switched off", bad("nopred.csv"), Options{Require: []string{"gold", "prediction"}, Map: m("gold", "")}, `testdata/bad/nopred.csv: no gold field (--map gold= switches it off), but the dataset needs one: the columns are "question", "answer"; say which one holds the gold answer with --map gold=FIELD`},
		{"map to a missing field", good("basic.jsonl"), Options{Map: m("gold", "nosuch")}, `testdata/good/basic.jsonl: no field "nosuch" (from --map gold=nosuch): rows have keys "id", "question", "answer", "prediction", "category", "difficulty"; fix the --map`},
		{"map to a missing column", good("basic.csv"), Options{Map: m("gold", "answer")}, `testdata/good/basic.csv: no field "answer" (from --map gold=answer): the columns are "id", "question", "reference", "response", "rubric", "GPT-4", "HumanJudgement", "model"; fix the --map`},
		{"unknown role", good("basic.jsonl"), Options{Map: m("golden", "x")}, `--map: unknown role "golden": the roles are question, gold, prediction, response_a, response_b, id, rubric, segment, verdict, swapped, reason, confidence, human (did you mean gold?)`},
		{"row lacks the prediction", bad("rowmissing.jsonl"), Options{}, `testdata/bad/rowmissing.jsonl:2: no "prediction" field for the prediction: the row has keys "id", "question"` + hint},
		{"nested key missing", bad("nested.jsonl"), Options{Map: m("question", "doc.question")}, `testdata/bad/nested.jsonl:1: no "doc.question" for the question: "doc" has no key "question" (it has keys "q")` + hint},
		{"nested empty list", bad("nested.jsonl"), Options{Map: m("prediction", "resps.0")}, `testdata/bad/nested.jsonl:1: no "resps.0" for the prediction: "resps" is an empty list` + hint},
		{"nested through a string", bad("nested.jsonl"), Options{Map: m("prediction", "doc.q.x")}, `testdata/bad/nested.jsonl:1: no "doc.q.x" for the prediction: "doc.q" is a string, not an object or a list` + hint},
		{"nested position too far", good("nested.jsonl"), Options{Map: m("prediction", "resps.0.5")}, `testdata/good/nested.jsonl:1: no "resps.0.5" for the prediction: "resps.0" has 2 elements, so there is no element 5 (positions start at 0)` + hint},
		{"nested position not a number", good("nested.jsonl"), Options{Map: m("prediction", "resps.first")}, `testdata/good/nested.jsonl:1: no "resps.first" for the prediction: "resps" is a list, so what follows it must be a position (0, 1, …), not "first"` + hint},

		// Ids.
		{"duplicate id", bad("dupids.jsonl"), Options{}, `testdata/bad/dupids.jsonl:4: duplicate id "q2" (line 2 has it too): ids must be unique; map a unique field with --map id=FIELD, or number the rows with --map id=` + hint},
		{"duplicate id in json", bad("dupids.json"), Options{}, `testdata/bad/dupids.json:10: element [2]: duplicate id "q1" (element [0] on line 2 has it too): ids must be unique; map a unique field with --map id=FIELD, or number the rows with --map id=` + hint},
		{"null id", bad("nullid.jsonl"), Options{}, `testdata/bad/nullid.jsonl:2: the id field "id" is null; every row needs an id (or number the rows with --map id=)` + hint},
		{"empty id", bad("emptyid.jsonl"), Options{}, `testdata/bad/emptyid.jsonl:2: the id field "id" is empty; every row needs an id (or number the rows with --map id=)` + hint},
		{"list id", bad("listid.jsonl"), Options{}, `testdata/bad/listid.jsonl:1: the id field "id" holds a list, not a string or a number` + hint},

		// JSON documents.
		{"json syntax", bad("syntax.json"), Options{}, "testdata/bad/syntax.json:4: element [1]: invalid JSON at column 3: expected ',' or '}' after an object member, found '{'"},
		{"json cut short", bad("truncated.json"), Options{}, "testdata/bad/truncated.json:3: element [1]: invalid JSON at column 13: a string that starts here is never closed"},
		{"json element not an object", bad("elements.json"), Options{}, "testdata/bad/elements.json:1: element [1]: the row is a string, not a JSON object" + hint},
		{"json two lists", bad("twolists.json"), Options{}, `testdata/bad/twolists.json holds several lists of rows ("train", "test"), and Gavel cannot tell which to load: extract one, e.g. jq -c '.train[]' testdata/bad/twolists.json > rows.jsonl`},
		{"json empty list", bad("emptylist.json"), Options{}, "testdata/bad/emptylist.json holds an empty list: there are no rows to load"},
		{"json object with empty list", bad("emptyrows.json"), Options{}, "testdata/bad/emptyrows.json holds an empty list: there are no rows to load"},
		{"json scalar", bad("scalar.json"), Options{}, "testdata/bad/scalar.json holds a string, not rows: a JSON dataset is a list of objects (or an object holding one)"},
		{"json trailing comma", bad("trailing.json"), Options{}, "testdata/bad/trailing.json:1: invalid JSON at column 22: a trailing comma before ']' is not allowed in JSON"},

		// CSV.
		{"csv ragged row", bad("ragged.csv"), Options{}, "testdata/bad/ragged.csv:3: the row has 4 fields but the header has 3 (a comma inside a field that is not quoted?)" + hint},
		{"csv bare quote", bad("barequote.csv"), Options{}, `testdata/bad/barequote.csv:2: a quote (") inside a field that is not quoted, at column 7: put the whole field in quotes and double the quote inside it ("")` + hint},
		{"csv unclosed quote", bad("unclosed.csv"), Options{}, `testdata/bad/unclosed.csv:2: a quoted field that starts on this line is not closed properly (the problem shows on line 3, column 7): a quote inside a quoted field must be doubled ("")` + hint},
		{"csv duplicate column", bad("dupheader.csv"), Options{}, `testdata/bad/dupheader.csv:1: the header names the column "prediction" twice (columns 2 and 4): rename one of them`},
		{"csv header only", bad("headeronly.csv"), Options{}, "testdata/bad/headeronly.csv has a header but no rows: there are no rows to load"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := Load(tt.path, tt.opts)
			if err == nil {
				t.Fatalf("Load(%s) loaded %d items, want error %q", tt.path, len(ds.Items), tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Load(%s) error\n got: %s\nwant: %s", tt.path, err, tt.want)
			}
		})
	}
}

// TestRowErrorType checks that a load stopped by a bad row returns a
// *RowError naming the line.
func TestRowErrorType(t *testing.T) {
	_, err := Load("testdata/bad/syntax.jsonl", Options{})
	var re *RowError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not a *RowError", err)
	}
	if re.File != "testdata/bad/syntax.jsonl" || re.Line != 3 || re.Element != -1 {
		t.Errorf("RowError = %+v, want file testdata/bad/syntax.jsonl, line 3, element -1", re)
	}
}

// TestSkipBad checks that bad rows are skipped, counted and sampled in
// file order, and that the good rows keep their place and ids.
func TestSkipBad(t *testing.T) {
	tests := []struct {
		path    string
		ids     []string
		samples []string
	}{
		{"testdata/good/badrows.jsonl", []string{"a", "d"}, []string{
			`testdata/good/badrows.jsonl:2: invalid JSON at column 13: expected a double-quoted key, found 'p'`,
			`testdata/good/badrows.jsonl:3: the row is a list, not a JSON object`,
			`testdata/good/badrows.jsonl:4: duplicate id "a" (line 1 has it too): ids must be unique; map a unique field with --map id=FIELD, or number the rows with --map id=`,
			`testdata/good/badrows.jsonl:5: no "prediction" field for the prediction: the row has keys "id"`,
		}},
		{"testdata/bad/elements.json", []string{"1", "3"}, []string{
			`testdata/bad/elements.json:1: element [1]: the row is a string, not a JSON object`,
		}},
		{"testdata/bad/ragged.csv", []string{"1"}, []string{
			`testdata/bad/ragged.csv:3: the row has 4 fields but the header has 3 (a comma inside a field that is not quoted?)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			ds, err := Load(tt.path, Options{SkipBad: true})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, it := range ds.Items {
				if it.Index != i {
					t.Errorf("item %d has Index %d", i, it.Index)
				}
				ids = append(ids, it.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.ids, ",") {
				t.Errorf("ids = %q, want %q", ids, tt.ids)
			}
			if ds.Skipped != len(tt.samples) {
				t.Errorf("Skipped = %d, want %d", ds.Skipped, len(tt.samples))
			}
			if strings.Join(ds.SkippedSamples, "\n") != strings.Join(tt.samples, "\n") {
				t.Errorf("SkippedSamples =\n%s\nwant\n%s", strings.Join(ds.SkippedSamples, "\n"), strings.Join(tt.samples, "\n"))
			}
		})
	}
}

// TestParseMapErrors asserts the messages for bad --map specifications.
func TestParseMapErrors(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"golden=x", `--map: unknown role "golden": the roles are question, gold, prediction, response_a, response_b, id, rubric, segment, verdict, swapped, reason, confidence, human (did you mean gold?)`},
		{"predicton=out", `--map: unknown role "predicton": the roles are question, gold, prediction, response_a, response_b, id, rubric, segment, verdict, swapped, reason, confidence, human (did you mean prediction?)`},
		{"flavour=x", `--map: unknown role "flavour": the roles are question, gold, prediction, response_a, response_b, id, rubric, segment, verdict, swapped, reason, confidence, human`},
		{"gold", `--map: "gold" is not ROLE=FIELD: write for example gold=answer,prediction=output`},
		{"gold=a,gold=b", `--map: gold is mapped twice (to "a" and to "b"): keep one`},
		{"=x", `--map: a mapping has no role before '=': the roles are question, gold, prediction, response_a, response_b, id, rubric, segment, verdict, swapped, reason, confidence, human`},
	}
	for _, tt := range tests {
		_, err := ParseMap(tt.spec)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseMap(%q) error\n got: %v\nwant: %s", tt.spec, err, tt.want)
		}
	}
}

// TestHostileInput checks inputs built in the test: enormous fields, deep
// nesting, a file of one endless line.
func TestHostileInput(t *testing.T) {
	big := strings.Repeat("x\\n", 10<<20/3)
	tests := []struct {
		name string
		data string
		want string // "" = loads
	}{
		{"10 MB field", `{"id": 1, "prediction": "` + big + `"}` + "\n" + `{"id": 2, "prediction": "short"}`, ""},
		{"10 MB field in csv", "id,prediction\n1,\"" + strings.Repeat("y\n", 5<<20) + "\"\n2,b\n", ""},
		{"deep nesting", `{"prediction": "p", "x": ` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "}", "data.jsonl:1: invalid JSON at column 1025: the JSON is nested more than 1000 levels deep" + hint},
		{"endless string", `{"prediction": "` + strings.Repeat("z", 1<<20), "data.jsonl:1: invalid JSON at column 16: a string that starts here is not closed on this line (a line break inside a string must be written \\n)" + hint},
		{"control byte", "{\"prediction\": \"a\x01b\"}", "data.jsonl:1: invalid JSON at column 18: a string holds the control byte 0x01, which must be escaped (as \\u0001)" + hint},
		{"escape sequences kept inert", `{"prediction": "\u001b[31mred"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "data.jsonl"
			if strings.HasPrefix(tt.data, "id,") {
				name = "data.csv"
			}
			ds, err := LoadBytes(name, []byte(tt.data), Options{})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v, want a load", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Fatalf("error\n got: %v\nwant: %s", err, tt.want)
			case tt.want == "" && len(ds.Items) != 2 && !strings.Contains(tt.name, "escape"):
				t.Fatalf("loaded %d items, want 2", len(ds.Items))
			}
		})
	}
}

// TestGzip loads gzip files by extension and by magic bytes alone.
func TestGzip(t *testing.T) {
	plain, err := os.ReadFile("testdata/good/basic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(plain)
	zw.Close()
	path := filepath.Join(t.TempDir(), "basic.jsonl.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Load("testdata/good/basic.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, load := range []func() (*Dataset, error){
		func() (*Dataset, error) { return Load(path, Options{}) },
		func() (*Dataset, error) { return LoadBytes("basic.jsonl", buf.Bytes(), Options{}) },
		func() (*Dataset, error) { return LoadBytes("no-extension", buf.Bytes(), Options{}) },
	} {
		ds, err := load()
		if err != nil {
			t.Fatal(err)
		}
		if ds.Compression != "gzip" || ds.Format != "jsonl" || len(ds.Items) != 3 || ds.Items[2].Prediction != want.Items[2].Prediction {
			t.Errorf("gzip load: compression %q, format %q, %d items", ds.Compression, ds.Format, len(ds.Items))
		}
		if ds.SHA256 == want.SHA256 {
			t.Errorf("SHA256 of the gzip file equals the plain file's: it must hash the stored bytes")
		}
	}
	// The same CSV, gzipped.
	csvPlain, _ := os.ReadFile("testdata/good/basic.csv")
	buf.Reset()
	zw = gzip.NewWriter(&buf)
	zw.Write(csvPlain)
	zw.Close()
	ds, err := LoadBytes("basic.csv.gz", buf.Bytes(), Options{})
	if err != nil || ds.Format != "csv" || len(ds.Items) != 2 {
		t.Fatalf("gzipped CSV: %v", err)
	}
}
