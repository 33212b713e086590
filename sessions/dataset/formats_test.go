package dataset

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// itemLine writes an item as one comparable line:
// id|question|gold|prediction|rubric;criteria|segment=value,….
func itemLine(it judge.Item) string {
	var segs []string
	for k, v := range it.Segments {
		segs = append(segs, k+"="+v)
	}
	sort.Strings(segs)
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s", it.ID, it.Question, it.Gold, it.Prediction,
		strings.Join(it.Rubric, ";"), strings.Join(segs, ","))
}

func importedLines(ds *Dataset) []string {
	var out []string
	for _, c := range ds.Imported {
		out = append(out, c.Role+" "+c.Field+": "+strings.Join(c.Values, ","))
	}
	return out
}

// TestLoadFormats loads one good file of each shape and checks every
// mapped value.
func TestLoadFormats(t *testing.T) {
	tests := []struct {
		path     string
		opts     Options
		format   string
		mapping  string
		items    []string
		imported []string
		warnings []string
	}{
		{
			path: "testdata/good/basic.jsonl", format: "jsonl",
			mapping: "question=question,gold=answer,prediction=prediction,id=id,segment=category+difficulty",
			items: []string{
				"q1|What is 2+2?|4|The answer is 4.||category=math,difficulty=easy",
				"q2|Capital of France?|Paris|Paris||category=geo,difficulty=easy",
				"q3|Who wrote \"Hamlet\"?|Shakespeare|I think\nit was Marlowe.||category=lit",
			},
		},
		{
			// Byte-order mark, CRLF line ends and blank lines; rows without
			// an id are numbered by their line.
			path: "testdata/good/crlf_bom.jsonl", format: "jsonl",
			mapping: "question=question,gold=gold,prediction=response",
			items:   []string{"1|a?|x|x||", "4|b?|y|z||"},
		},
		{
			// Files joined with cat: a byte-order mark on every part.
			path: "testdata/good/joined.jsonl", format: "jsonl",
			mapping: "question=question,prediction=prediction",
			items:   []string{"1|a?||x||", "2|b?||y||"},
		},
		{
			path: "testdata/good/nested.jsonl", format: "jsonl",
			opts:    Options{Map: map[string]string{"question": "doc.question", "gold": "doc.answers.0", "prediction": "resps.0.0", "segment": "doc.meta.tag"}},
			mapping: "question=doc.question,gold=doc.answers.0,prediction=resps.0.0,segment=doc.meta.tag",
			items:   []string{"1|Q1|A1|R1||doc.meta.tag=t1", "2|Q2|A2|R2||doc.meta.tag=t2"},
		},
		{
			path: "testdata/good/array.json", format: "json",
			mapping: "question=input,gold=target,prediction=output,id=qid,segment=subject",
			items:   []string{"10|In?|(B)|So the answer is (B).||subject=logic", "11|In2?|(A)|(C)||subject=logic"},
		},
		{
			path: "testdata/good/outputs.json", format: "json",
			mapping: "question=input,gold=target,prediction=prediction",
			items:   []string{"1|Q?|T|P||", "2|Q2?|T2|P2||"},
		},
		{
			path: "testdata/good/stream.json", format: "json",
			mapping: "question=question,gold=answer,prediction=prediction",
			items:   []string{"1|one?|1|1||", "2|two?|2|3||"},
		},
		{
			path: "testdata/good/single.json", format: "json",
			mapping: "question=question,gold=answer,prediction=prediction",
			items:   []string{"1|Only?|yes|yes||"},
		},
		{
			path: "testdata/good/basic.csv", format: "csv",
			mapping: "question=question,gold=reference,prediction=response,id=id,rubric=rubric,segment=model,verdict=GPT-4,human=HumanJudgement",
			items: []string{
				"a1|Name a \"red\" fruit|apple\nstrawberry|Apple, obviously|is a fruit;is red|model=m1",
				"a2|Sky colour?|blue|green|mentions blue;one word|model=m2",
			},
			imported: []string{"verdict GPT-4: True,False", "human HumanJudgement: True,False"},
		},
		{
			path: "testdata/good/basic.tsv", format: "tsv",
			mapping: "question=question,gold=answer,prediction=prediction,segment=task",
			items:   []string{"1|What is \"x\"?|1|1||task=t1", "2|Second|2|3||task=t2"},
		},
		{
			path: "testdata/good/noext", format: "csv",
			mapping: "question=question,gold=answer,prediction=prediction",
			items:   []string{"1|q|a|p||"},
		},
		{
			path: "testdata/good/rubric.jsonl", format: "jsonl",
			mapping: "question=question,prediction=response,rubric=rubric",
			items: []string{
				"1|Q1||R1|mentions A;mentions B|",
				`2|Q2||R2|is polite;is short;{"weight":2}|`,
				"3|Q3||R3|first;second|",
				"4|Q4||R4||",
				"5|Q5||R5|from;a JSON string|",
			},
		},
		{
			// Numbers as written, booleans, null, one-element lists, other
			// lists and objects as compact JSON, every escape, NaN.
			path: "testdata/good/values.jsonl", format: "jsonl",
			mapping: "question=question,gold=gold,prediction=prediction,id=id,verdict=score+is_correct+judge_output",
			items: []string{
				`7|only one|["a","b"]|{"text":"hi","n":2}||`,
				"8.5||12|false||",
				"xé😀|esc \"q\" \\ / \b\f\n\r\t A \uFFFD||p||",
			},
			imported: []string{"verdict score: NaN,-Infinity,1e3", "verdict is_correct: true,false,", `verdict judge_output: {"verdict":"YES"},,`},
			warnings: []string{
				`testdata/good/values.jsonl: question (mapped "question") is empty on 1 of 3 items (the first: "8.5"); judges that need it skip those`,
				`testdata/good/values.jsonl: gold (mapped "gold") is empty on 1 of 3 items (the first: "xé😀"); judges that need it skip those`,
			},
		},
		{
			path: "testdata/good/imported.jsonl", format: "jsonl",
			mapping: "question=question,gold=answer,prediction=model_answer,id=uid,verdict=verdict+gpt_result,human=human_label+annotator1+annotator2",
			items:   []string{"u1|Q|A|A||", "u2|Q|A|B||"},
			imported: []string{"verdict verdict: YES,NO", "verdict gpt_result: 1,", "human human_label: yes,",
				"human annotator1: 1,2", "human annotator2: 2,"},
		},
		{
			// Overrides: segments named by hand, imported fields switched off.
			path: "testdata/good/imported.jsonl", format: "jsonl",
			opts:    Options{Map: map[string]string{"verdict": "", "human": "", "segment": "verdict"}},
			mapping: "question=question,gold=answer,prediction=model_answer,id=uid,segment=verdict",
			items:   []string{"u1|Q|A|A||verdict=YES", "u2|Q|A|B||verdict=NO"},
		},
		{
			path: "testdata/good/pairwise.json", format: "json",
			opts:     Options{Map: map[string]string{"prediction": "response2"}},
			mapping:  "question=instruction+input,prediction=response2,id=idx,human=annotator1",
			items:    []string{"0|Rewrite.\n\nText.||R2||"},
			imported: []string{"human annotator1: 2"},
		},
		{
			path: "testdata/good/dupkeys.jsonl", format: "jsonl",
			opts:    Options{Map: map[string]string{"gold": "a.b"}},
			mapping: "question=question,gold=a.b,prediction=prediction",
			items:   []string{"1|second|literal dotted key|p||"},
		},
		{
			path: "testdata/good/samples_gsm8k_2024-05-01T00-00-00.jsonl", format: "lm-eval",
			mapping: "question=doc.question,gold=target,prediction=filtered_resps,id=doc_id,segment=filter,verdict=exact_match",
			items: []string{
				"0/strict-match|Janet has 3 eggs...|3|3||filter=strict-match",
				"0/flexible-extract|Janet has 3 eggs...|3|3||filter=flexible-extract",
				"1/strict-match|Tom has 5 apples...|2|[invalid]||filter=strict-match",
				"1/flexible-extract|Tom has 5 apples...|2|4||filter=flexible-extract",
			},
			imported: []string{"verdict exact_match: 1.0,1.0,0.0,0.0"},
			warnings: []string{"testdata/good/samples_gsm8k_2024-05-01T00-00-00.jsonl holds 2 filters, one row per document and filter: ids are doc_id/filter"},
		},
		{
			path: "testdata/good/samples_arc_easy.jsonl", format: "lm-eval",
			mapping:  "question=doc.question,gold=target,prediction=filtered_resps,id=doc_id,segment=filter,verdict=acc+acc_norm",
			items:    []string{"3|2 + 2 =|1|1||filter=none"},
			imported: []string{"verdict acc: 1.0", "verdict acc_norm: 1.0"},
		},
		{
			path: "testdata/good/latin1.jsonl", format: "jsonl",
			mapping:  "question=question,gold=answer,prediction=prediction",
			items:    []string{"1|caf\uFFFD?|ok|ok||", "2|fine|ok|ok \uFFFD||", "3|fine|ok|ok||"},
			warnings: []string{"testdata/good/latin1.jsonl: 2 lines held invalid UTF-8 (the first is line 1); the bad bytes were replaced with U+FFFD (\uFFFD)"},
		},
		{
			path: "testdata/good/latin1.csv", format: "csv",
			mapping:  "question=question,gold=answer,prediction=prediction",
			items:    []string{"1|caf\uFFFD|a|p||", "2|ok|a|p||"},
			warnings: []string{"testdata/good/latin1.csv: 1 line held invalid UTF-8 (the first is line 2); the bad bytes were replaced with U+FFFD (\uFFFD)"},
		},
		{
			// The format given wins over the extension.
			path: "testdata/good/basic.tsv", format: "tsv",
			opts:    Options{Format: "TSV"},
			mapping: "question=question,gold=answer,prediction=prediction,segment=task",
			items:   []string{"1|What is \"x\"?|1|1||task=t1", "2|Second|2|3||task=t2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+FormatMap(tt.opts.Map), func(t *testing.T) {
			ds, err := Load(tt.path, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if ds.Format != tt.format {
				t.Errorf("Format = %q, want %q", ds.Format, tt.format)
			}
			if got := FormatMap(ds.Mapping); got != tt.mapping {
				t.Errorf("Mapping\n got: %s\nwant: %s", got, tt.mapping)
			}
			var items []string
			for i, it := range ds.Items {
				items = append(items, itemLine(it))
				if it.Index != i {
					t.Errorf("item %d has Index %d", i, it.Index)
				}
				if !json.Valid(it.Fields) {
					t.Errorf("item %d: Fields is not valid JSON: %s", i, it.Fields)
				}
			}
			if got, want := strings.Join(items, "\n"), strings.Join(tt.items, "\n"); got != want {
				t.Errorf("items\n got: %q\nwant: %q", items, tt.items)
			}
			if got, want := strings.Join(importedLines(ds), "\n"), strings.Join(tt.imported, "\n"); got != want {
				t.Errorf("imported\n got: %q\nwant: %q", importedLines(ds), tt.imported)
			}
			if got, want := strings.Join(ds.Warnings, "\n"), strings.Join(tt.warnings, "\n"); got != want {
				t.Errorf("warnings\n got: %q\nwant: %q", ds.Warnings, tt.warnings)
			}
			if len(ds.SHA256) != 64 {
				t.Errorf("SHA256 = %q", ds.SHA256)
			}
		})
	}
}

// TestFieldsKeepTheRow checks that Fields is the original row, NaN
// rewritten as null so that it stays valid JSON.
func TestFieldsKeepTheRow(t *testing.T) {
	ds, err := Load("testdata/good/values.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var row map[string]any
	if err := json.Unmarshal(ds.Items[0].Fields, &row); err != nil {
		t.Fatal(err)
	}
	if row["score"] != nil || row["is_correct"] != true || row["id"] != 7.0 {
		t.Errorf("Fields = %s", ds.Items[0].Fields)
	}
	// Appending to Fields must not reach the next row's bytes.
	before := string(ds.Items[1].Fields)
	_ = append(ds.Items[0].Fields, "garbage"...)
	if string(ds.Items[1].Fields) != before {
		t.Errorf("appending to one item's Fields changed the next item's")
	}
}

// TestLoadBytesCopies checks that LoadBytes does not keep the caller's
// buffer.
func TestLoadBytesCopies(t *testing.T) {
	data := []byte(`{"question": "q", "prediction": "p"}`)
	ds, err := LoadBytes("demo.jsonl", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	copy(data, strings.Repeat("x", len(data)))
	if ds.Items[0].Prediction != "p" || ds.Path != "" || ds.Name != "demo.jsonl" {
		t.Errorf("item = %+v, path %q, name %q", ds.Items[0], ds.Path, ds.Name)
	}
}

// TestSegmentsShared checks that equal segments share one map and that
// different ones do not.
func TestSegmentsShared(t *testing.T) {
	ds, err := Load("testdata/good/basic.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := ds.Items[0].Segments, ds.Items[1].Segments
	if fmt.Sprintf("%p", a) == fmt.Sprintf("%p", b) {
		t.Errorf("items with different segments share a map")
	}
	ds, err = LoadBytes("x.jsonl", []byte("{\"prediction\": \"1\", \"task\": \"t\"}\n{\"prediction\": \"2\", \"task\": \"t\"}"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%p", ds.Items[0].Segments) != fmt.Sprintf("%p", ds.Items[1].Segments) {
		t.Errorf("items with equal segments do not share a map")
	}
}

// TestParseMap checks the --map syntax, synonyms and FormatMap's round
// trip.
func TestParseMap(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"", ""},
		{"gold=target,prediction=output,segment=category", "gold=target,prediction=output,segment=category"},
		{" answer = x , response=y, label=z ,", "gold=x,prediction=y,human=z"},
		{"segment=a,segment=b+c", "segment=a+b+c"},
		{"segment= a + b ", "segment=a+b"},
		{"id=", "id="},
		{"question=doc.question,prediction=resps.0.0", "question=doc.question,prediction=resps.0.0"},
		{"Prediction=out", "prediction=out"},
	}
	for _, tt := range tests {
		m, err := ParseMap(tt.spec)
		if err != nil {
			t.Errorf("ParseMap(%q): %v", tt.spec, err)
			continue
		}
		got := FormatMap(m)
		if got != tt.want {
			t.Errorf("ParseMap(%q) = %s, want %s", tt.spec, got, tt.want)
		}
		again, err := ParseMap(got)
		if err != nil || FormatMap(again) != got {
			t.Errorf("ParseMap(FormatMap(%q)) = %v, %v", got, again, err)
		}
	}
}

// TestNormName checks how field names are compared with the known names.
func TestNormName(t *testing.T) {
	for in, want := range map[string]string{
		"HumanJudgement": "human_judgement", "GPT-4": "gpt_4", "questionID": "question_id",
		"Gold Answer": "gold_answer", "model_answer": "model_answer", "Llama3-70B": "llama3_70b",
	} {
		if got := normName(in); got != want {
			t.Errorf("normName(%q) = %q, want %q", in, got, want)
		}
	}
}
