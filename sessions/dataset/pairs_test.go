package dataset

import (
	"strings"
	"testing"
)

// pairLine is what a test compares of a pairwise item.
func pairLine(ds *Dataset) []string {
	var out []string
	for _, it := range ds.Items {
		out = append(out, it.ID+"|"+it.Question+"|"+it.Prediction+"|"+it.ResponseA+"|"+it.ResponseB)
	}
	return out
}

// importedOf lists the imported columns with what they belong to.
func importedOf(ds *Dataset) []string {
	var out []string
	for _, c := range ds.Imported {
		s := c.Role + " " + c.Field
		if c.Of != "" {
			s += " of " + c.Of
		}
		out = append(out, s+": "+strings.Join(c.Values, ","))
	}
	return out
}

func TestPairwiseMapping(t *testing.T) {
	tests := []struct {
		name     string
		file     string // a .jsonl or .csv name: the format
		data     string
		spec     string // --map
		mapping  string
		items    []string
		imported []string
	}{
		{
			name: "PandaLM's names; the instruction and the input make the question; idx is the id",
			file: "p.jsonl", data: `{"idx": 3, "instruction": "Rewrite.", "input": "Text.", "response1": "R1", "response2": "R2", "annotator1": 0}`,
			mapping:  "question=instruction+input,response_a=response1,response_b=response2,id=idx,human=annotator1",
			items:    []string{"3|Rewrite.\n\nText.||R1|R2"},
			imported: []string{"human annotator1: 0"},
		},
		{
			name: "an empty input adds nothing to the question",
			file: "p.jsonl", data: `{"instruction": "Say hi.", "input": "", "response_a": "hi", "response_b": "hello"}`,
			mapping: "question=instruction+input,response_a=response_a,response_b=response_b",
			items:   []string{"1|Say hi.||hi|hello"},
		},
		{
			name: "LLMBar's names",
			file: "p.jsonl", data: `{"id": "x", "input": "Q", "output_1": "one", "output_2": "two", "label": 2}`,
			mapping:  "question=input,response_a=output_1,response_b=output_2,id=id,human=label",
			items:    []string{"x|Q||one|two"},
			imported: []string{"human label: 2"},
		},
		{
			name: "answer_a and answer_b, in CSV",
			file: "p.csv", data: "question,answer_a,answer_b,verdict\nQ,A1,B1,A\n",
			mapping:  "question=question,response_a=answer_a,response_b=answer_b,verdict=verdict",
			items:    []string{"1|Q||A1|B1"},
			imported: []string{"verdict verdict: A"},
		},
		{
			name: "never half of one pair and half of another",
			file: "p.jsonl", data: `{"response1": "a", "output_2": "b", "prediction": "p"}`,
			mapping: "prediction=prediction",
			items:   []string{"1||p||"},
		},
		{
			name: "mapped by hand, with a prediction as well",
			file: "p.jsonl", data: `{"q": "Q", "left": "L", "right": "R", "prediction": "P"}`,
			spec:    "question=q,response_a=left,response_b=right",
			mapping: "question=q,prediction=prediction,response_a=left,response_b=right",
			items:   []string{"1|Q|P|L|R"},
		},
		{
			name: "a swapped column paired with the only verdict column by name",
			file: "p.jsonl", data: `{"id": 1, "output_1": "a", "output_2": "b", "verdict": "1", "verdict_swapped": "2", "label": 1}`,
			mapping:  "response_a=output_1,response_b=output_2,id=id,verdict=verdict,swapped=verdict:verdict_swapped,human=label",
			items:    []string{"1|||a|b"},
			imported: []string{"verdict verdict: 1", "swapped verdict_swapped of verdict: 2", "human label: 1"},
		},
		{
			name: "--map swapped=FIELD pairs with the only verdict column",
			file: "p.jsonl", data: `{"response1": "a", "response2": "b", "gpt_result": "1", "other_order": "2"}`,
			spec:     "swapped=other_order",
			mapping:  "response_a=response1,response_b=response2,verdict=gpt_result,swapped=gpt_result:other_order",
			items:    []string{"1|||a|b"},
			imported: []string{"verdict gpt_result: 1", "swapped other_order of gpt_result: 2"},
		},
		{
			name: "several judges: VERDICT:FIELD pairs, and the verdict field becomes a verdict column",
			file: "p.jsonl", data: `{"response1": "a", "response2": "b", "j1": "A", "j1s": "B", "j2": "tie", "j2s": "A"}`,
			spec:    "swapped=j1:j1s+j2:j2s",
			mapping: "response_a=response1,response_b=response2,verdict=j1+j2,swapped=j1:j1s+j2:j2s",
			items:   []string{"1|||a|b"},
			imported: []string{"verdict j1: A", "swapped j1s of j1: B",
				"verdict j2: tie", "swapped j2s of j2: A"},
		},
		{
			name: "reasons found by name beside each judge's result (PandaLM's judge files)",
			file: "p.jsonl", data: `{"idx": 0, "gpt_result": "1", "gpt_reason": "because", "gpt_reference": "ref"}`,
			mapping:  "id=idx,verdict=gpt_result,reason=gpt_result:gpt_reason",
			items:    []string{"0||||"},
			imported: []string{"verdict gpt_result: 1", "reason gpt_reason of gpt_result: because"},
		},
		{
			name: "a reason mapped by hand, and the swapped one switched off",
			file: "p.jsonl", data: `{"prediction": "p", "verdict": "YES", "why": "w", "verdict_swapped": "NO"}`,
			spec:     "reason=why,swapped=",
			mapping:  "prediction=prediction,verdict=verdict,reason=verdict:why",
			items:    []string{"1||p||"},
			imported: []string{"verdict verdict: YES", "reason why of verdict: w"},
		},
		{
			name: "a field whose name holds a colon",
			file: "p.jsonl", data: `{"prediction": "p", "a:b": "1", "c": "2"}`,
			spec:     "verdict=a:b,swapped=a:b:c",
			mapping:  "prediction=prediction,verdict=a:b,swapped=a:b:c",
			items:    []string{"1||p||"},
			imported: []string{"verdict a:b: 1", "swapped c of a:b: 2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Require: []string{}}
			if tc.spec != "" {
				m, err := ParseMap(tc.spec)
				if err != nil {
					t.Fatal(err)
				}
				opts.Map = m
			}
			ds, err := LoadBytes(tc.file, []byte(tc.data+"\n"), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := FormatMap(ds.Mapping); got != tc.mapping {
				t.Errorf("mapping\n got: %s\nwant: %s", got, tc.mapping)
			}
			if got := pairLine(ds); strings.Join(got, "\n") != strings.Join(tc.items, "\n") {
				t.Errorf("items\n got: %q\nwant: %q", got, tc.items)
			}
			if got := importedOf(ds); strings.Join(got, "\n") != strings.Join(tc.imported, "\n") {
				t.Errorf("imported\n got: %q\nwant: %q", got, tc.imported)
			}
			if strings.HasSuffix(tc.spec, "=") || strings.Contains(tc.spec, "=,") {
				return // a role switched off is not in the mapping
			}
			// The mapping as stored reads back to the same.
			again, err := ParseMap(FormatMap(ds.Mapping))
			if err != nil {
				t.Fatal(err)
			}
			ds2, err := LoadBytes(tc.file, []byte(tc.data+"\n"), Options{Require: []string{}, Map: again})
			if err != nil {
				t.Fatalf("reloading with %s: %v", FormatMap(ds.Mapping), err)
			}
			if FormatMap(ds2.Mapping) != FormatMap(ds.Mapping) {
				t.Errorf("reloaded mapping %s, want %s", FormatMap(ds2.Mapping), FormatMap(ds.Mapping))
			}
		})
	}
}

// TestPairwiseNeedsNoPrediction: a dataset of pairs loads with the default
// requirement (a prediction), which its two responses stand for.
func TestPairwiseNeedsNoPrediction(t *testing.T) {
	ds, err := LoadBytes("p.jsonl", []byte(`{"instruction": "I", "response1": "a", "response2": "b"}`+"\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !ds.Items[0].Pairwise() || len(ds.Warnings) != 0 {
		t.Errorf("item %+v, warnings %q", ds.Items[0], ds.Warnings)
	}
	// Nor is an empty prediction or reference worth a warning (an exported
	// pairwise session has both columns, empty); an empty response is.
	ds, err = LoadBytes("p.jsonl", []byte(`{"prediction": "", "gold": "", "response_a": "", "response_b": "b"}`+"\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Warnings) != 1 || !strings.Contains(ds.Warnings[0], "response_a (mapped \"response_a\") is empty on the only item") {
		t.Errorf("warnings %q", ds.Warnings)
	}
}

func TestPairwiseMappingErrors(t *testing.T) {
	tests := []struct {
		name, data, spec, want string
	}{
		{"half a pair", `{"x": "a", "prediction": "p"}`, "response_a=x",
			`p.jsonl: response_a is mapped to "x" but response_b has no field: a pairwise item needs both responses; say which field holds the second with --map response_b=FIELD (rows have keys "x", "prediction")`},
		{"one field for both", `{"x": "a"}`, "response_a=x,response_b=x",
			`p.jsonl: response_a and response_b are both mapped to "x": map the two responses to two fields`},
		{"bare swapped, two verdict columns", `{"prediction": "p", "j1": "A", "j2": "B", "s": "A"}`, "verdict=j1+j2,swapped=s",
			`p.jsonl: --map swapped=s pairs "s" with the only verdict column, but there are 2 ("j1", "j2"): say which with --map swapped=VERDICT:s`},
		{"bare swapped, no verdict column", `{"prediction": "p", "s": "A"}`, "swapped=s",
			`p.jsonl: --map swapped=s pairs "s" with the verdict column, but there is none: name it with --map swapped=VERDICT:s (or --map verdict=FIELD)`},
		{"no such field", `{"prediction": "p", "v": "A"}`, "swapped=v:nope",
			`p.jsonl: --map swapped=v:nope: "v:nope" is neither a field nor VERDICT:FIELD with both fields there: rows have keys "prediction", "v"; write swapped=FIELD to pair FIELD with the only verdict field, or swapped=VERDICT:FIELD+VERDICT2:FIELD2 for several`},
		{"paired with a human column", `{"prediction": "p", "label": "A", "s": "B"}`, "human=label,swapped=label:s",
			`p.jsonl: --map swapped=label:s: "label" is a human column; swapped fields belong to verdict columns`},
		{"a verdict column as its own swapped order", `{"prediction": "p", "v": "A", "w": "B"}`, "verdict=v+w,swapped=v:w",
			`p.jsonl: "w" is mapped both as swapped and as a verdict or human column: keep one`},
		{"two swapped columns for one verdict", `{"prediction": "p", "v": "A", "s": "B", "t": "A"}`, "swapped=v:s+v:t",
			`p.jsonl: the verdict column "v" has two swapped fields ("s" and "t"): keep one`},
		{"one field as swapped and reason", `{"prediction": "p", "v": "A", "s": "B"}`, "swapped=v:s,reason=v:s",
			`p.jsonl: "s" is mapped both as swapped and as reason: keep one`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseMap(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			_, err = LoadBytes("p.jsonl", []byte(tc.data+"\n"), Options{Map: m})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n got: %v\nwant: %s", err, tc.want)
			}
		})
	}
}
