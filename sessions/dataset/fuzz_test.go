package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// addCorpus seeds a fuzzer with the test corpus files whose names match.
func addCorpus(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		files, _ := filepath.Glob(filepath.Join("testdata", "*", p))
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil && len(data) < 1<<16 {
				f.Add(data)
			}
		}
	}
}

// checkLoad asserts what must hold for any input: an error is a sentence
// (one line, no formatting slips), a dataset is consistent.
func checkLoad(t *testing.T, ds *Dataset, err error) {
	t.Helper()
	if err != nil {
		msg := err.Error()
		if len(msg) < 10 || strings.ContainsAny(msg, "\n\r") || strings.Contains(msg, "%!") ||
			strings.Contains(msg, "<nil>") || !utf8.ValidString(msg) || msg != strings.TrimSpace(msg) {
			t.Fatalf("error is not a one-line sentence: %q", msg)
		}
		return
	}
	if len(ds.Items) == 0 {
		t.Fatalf("loaded no items and no error")
	}
	ids := map[string]bool{}
	for i, it := range ds.Items {
		if it.Index != i {
			t.Fatalf("item %d has Index %d", i, it.Index)
		}
		if ids[it.ID] {
			t.Fatalf("id %q twice", it.ID)
		}
		ids[it.ID] = true
		if !json.Valid(it.Fields) {
			t.Fatalf("item %d: Fields is not JSON: %q", i, it.Fields)
		}
		for _, s := range []string{it.ID, it.Question, it.Gold, it.Prediction, it.ResponseA, it.ResponseB} {
			if !utf8.ValidString(s) {
				t.Fatalf("item %d holds invalid UTF-8: %q", i, s)
			}
		}
	}
	verdicts := map[string]bool{}
	for _, c := range ds.Imported {
		if len(c.Values) != len(ds.Items) {
			t.Fatalf("imported %s has %d values for %d items", c.Field, len(c.Values), len(ds.Items))
		}
		switch c.Role {
		case RoleVerdict:
			verdicts[c.Field] = true
		case RoleSwapped, RoleReason:
			// A paired column follows the verdict column it belongs to.
			if !verdicts[c.Of] || c.Of == c.Field {
				t.Fatalf("%s column %q belongs to %q, which is no verdict column before it", c.Role, c.Field, c.Of)
			}
		case RoleHuman:
		default:
			t.Fatalf("imported %s has role %q", c.Field, c.Role)
		}
	}
	if (ds.Mapping[RoleResponseA] == "") != (ds.Mapping[RoleResponseB] == "") {
		t.Fatalf("half a pair mapped: %s", FormatMap(ds.Mapping))
	}
}

func FuzzJSONL(f *testing.F) {
	addCorpus(f, "*.jsonl")
	f.Add([]byte("{\"prediction\": \"p\", \"id\": 1}\n{\"prediction\": NaN, \"id\": -Infinity}\n"))
	f.Add([]byte("{\"prediction\": \"\\ud800\\u00\", \"a\": [1, {\"b\": [true, null]}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			ds, err := LoadBytes("fuzz.jsonl", data, Options{SkipBad: skip})
			checkLoad(t, ds, err)
		}
	})
}

func FuzzJSON(f *testing.F) {
	addCorpus(f, "*.json")
	f.Add([]byte(`{"rows": [{"prediction": "p"}], "meta": [1, 2]}`))
	f.Add([]byte("{\"prediction\": 1}\n{\"prediction\": 2}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			ds, err := LoadBytes("fuzz.json", data, Options{SkipBad: skip})
			checkLoad(t, ds, err)
		}
	})
}

func FuzzCSV(f *testing.F) {
	addCorpus(f, "*.csv", "*.tsv", "noext")
	f.Add([]byte("id,prediction,rubric\n1,\"a\"\"b\",\"[\"\"x\"\"]\"\n2,c,\"- y\n- z\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"fuzz.csv", "fuzz.tsv"} {
			for _, skip := range []bool{false, true} {
				ds, err := LoadBytes(name, data, Options{SkipBad: skip})
				checkLoad(t, ds, err)
			}
		}
	})
}

func FuzzGzip(f *testing.F) {
	f.Add([]byte("{\"prediction\": \"p\"}\n"), false)
	f.Add([]byte("prediction\np\n"), true)
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), true)
	f.Fuzz(func(t *testing.T, data []byte, raw bool) {
		// raw: the bytes themselves as a "gzip" file (mostly damaged);
		// else the bytes compressed, cut at a point the input picks.
		in := data
		if !raw {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(data)
			zw.Close()
			in = buf.Bytes()
			if len(data) > 0 && data[0]%3 == 0 {
				in = in[:len(in)*int(data[0])/256]
			}
		}
		ds, err := LoadBytes("fuzz.jsonl.gz", in, Options{SkipBad: true})
		checkLoad(t, ds, err)
	})
}

// FuzzMapping loads rows under any --map specification, so dotted paths
// meet every shape of row.
func FuzzMapping(f *testing.F) {
	f.Add("question=doc.question,gold=doc.answers.0,prediction=resps.0.0", `{"doc": {"question": "q", "answers": ["a"]}, "resps": [["r"]]}`)
	f.Add("prediction=a.b.c,segment=x+y.0,verdict=v,human=h,rubric=r", `{"a.b": {"c": 1}, "x": "s", "y": [2], "v": {}, "h": null, "r": [{"text": "t"}]}`)
	f.Add("id=,prediction=resps.-1", `{"resps": []}`)
	f.Add("prediction=0.0", `{"0": [[1]]}`)
	f.Add("swapped=s", `{"prediction": "p", "verdict": "1", "s": "2"}`)
	f.Add("swapped=v:s+w:t,reason=v:r", `{"prediction": "p", "v": "A", "w": "B", "s": "tie", "t": "a", "r": "why"}`)
	f.Add("swapped=a:b:c,verdict=a:b", `{"prediction": "p", "a:b": 1, "c": 2, "a": 3, "b:c": 4}`)
	f.Add("response_a=x,response_b=x", `{"x": "1"}`)
	f.Add("question=instruction+input,response_a=r1,response_b=r2,reason=gpt_reason", `{"instruction": "i", "r1": "a", "r2": "b", "gpt_result": 1, "gpt_reason": "r"}`)
	f.Fuzz(func(t *testing.T, spec, row string) {
		m, err := ParseMap(spec)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "--map: ") || strings.ContainsAny(msg, "\n") {
				t.Fatalf("ParseMap error %q", msg)
			}
			return
		}
		for _, name := range []string{"fuzz.jsonl", "fuzz.csv"} {
			ds, err := LoadBytes(name, []byte(row+"\n"+row), Options{Map: m, SkipBad: true})
			checkLoad(t, ds, err)
		}
	})
}

// FuzzScanner compares the JSON scanner with encoding/json: in strict
// mode both must accept exactly the same documents.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{"a": [1, -0.5e+3, "x\u00e9\n", true, false, null, {}]}`, `[]`, `"\ud800"`, `01`, `1.`, `-`, `{"a" 1}`, `[1,]`, "\"\x01\"", `NaN`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := scanner{strict: true}
		err := s.document(data)
		if (err == nil) != json.Valid(data) {
			t.Fatalf("scanner accepts=%v, encoding/json accepts=%v, for %q (%v)", err == nil, json.Valid(data), data, err)
		}
		if err != nil && (err.off < 0 || err.off > len(data) || err.msg == "") {
			t.Fatalf("bad error %+v for %q", err, data)
		}
		if err == nil && utf8.Valid(data) {
			// What the scanner decodes matches what encoding/json decodes.
			var want any
			if json.Unmarshal(data, &want) == nil {
				if str, ok := want.(string); ok {
					var a arena
					v, _ := (&scanner{b: data}).value(skipSpace(data, 0), 0)
					if got := textOf(&a, v); got != str {
						t.Fatalf("decoded %q, encoding/json decodes %q", got, str)
					}
				}
			}
		}
		(&scanner{}).document(data) // the lenient mode must not panic either
	})
}
