package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedData is where the real eval files live, relative to this package.
const sharedData = "../../../shared/data"

// realFile returns the path of a real file, skipping the test when the
// files are not on this machine — and failing under CI=true, where they
// must be.
func realFile(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(sharedData, name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not available under CI=true: %v", p, err)
		}
		t.Skipf("%s not available: %v", p, err)
	}
	return p
}

func TestRealTriviaQACSV(t *testing.T) {
	p := realFile(t, "judging_the_judges__TriviaQA_Judges_w_HumanJudgement_V1.csv")
	ds, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Format != "csv" || len(ds.Items) != 3600 || ds.Skipped != 0 {
		t.Fatalf("format %q, %d items, %d skipped; want csv, 3600, 0", ds.Format, len(ds.Items), ds.Skipped)
	}
	// "response" holds the exam prompt; the names say prediction, and the
	// mapping shown at start lets the user see it.
	want := "question=question,gold=references,prediction=response,segment=model+benchmark," +
		"verdict=Mistral-7B+Llama-7B+Llama-13B+Llama3-8B+Gemma-2B+Llama-70B+EM+Llama3-70B+GPT-4+JudgeLM+Contains," +
		"human=HumanJudgement"
	if got := FormatMap(ds.Mapping); got != want {
		t.Errorf("mapping\n got: %s\nwant: %s", got, want)
	}
	first := ds.Items[0]
	if first.ID != "1" || first.Question != "In which London building do you find the Jerusalem Chamber?" {
		t.Errorf("first item: id %q, question %q", first.ID, first.Question)
	}
	aliases := strings.Split(first.Gold, "\n")
	if len(aliases) != 10 || aliases[0] != "Westminster Abbey" {
		t.Errorf("gold aliases = %q, want 10 starting with Westminster Abbey", aliases)
	}
	if !strings.HasSuffix(first.Prediction, "Q: In which London building do you find the Jerusalem Chamber?\nA:") {
		t.Errorf("prediction (the exam prompt) ends %q", first.Prediction[max(0, len(first.Prediction)-80):])
	}
	if first.Segments["model"] != "gpt-4t" || first.Segments["benchmark"] != "triviaQA-400-v1.5.0" {
		t.Errorf("segments = %v", first.Segments)
	}
	// Each judge column and the human column, with the counts of the file.
	counts := map[string][3]int{ // True, False, blank
		"GPT-4": {2560, 1035, 5}, "EM": {1459, 2136, 5}, "Llama-70B": {2713, 752, 135}, "HumanJudgement": {2507, 1093, 0},
	}
	seen := 0
	for _, c := range ds.Imported {
		want, ok := counts[c.Field]
		if !ok {
			continue
		}
		seen++
		var got [3]int
		for _, v := range c.Values {
			switch v {
			case "True":
				got[0]++
			case "False":
				got[1]++
			case "":
				got[2]++
			}
		}
		if got != want {
			t.Errorf("%s %s: True/False/blank = %v, want %v", c.Role, c.Field, got, want)
		}
		if wantRole := map[bool]string{true: RoleHuman, false: RoleVerdict}[c.Field == "HumanJudgement"]; c.Role != wantRole {
			t.Errorf("%s has role %s, want %s", c.Field, c.Role, wantRole)
		}
	}
	if seen != len(counts) || len(ds.Imported) != 12 {
		t.Errorf("imported %d columns, found %d of %v", len(ds.Imported), seen, counts)
	}
}

func TestRealBBHJSON(t *testing.T) {
	p := realFile(t, "bbh__code-davinci-002-cot__date_understanding_few_shot_template_0-255000.json")
	ds, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Format != "json" || ds.RowsKey != "outputs" || len(ds.Items) != 250 {
		t.Fatalf("format %q, rows key %q, %d items; want json, outputs, 250", ds.Format, ds.RowsKey, len(ds.Items))
	}
	if got := FormatMap(ds.Mapping); got != "question=input,gold=target,prediction=prediction" {
		t.Errorf("mapping = %s", got)
	}
	for _, it := range ds.Items {
		if len(it.Gold) != 3 || it.Gold[0] != '(' || it.Prediction == "" || !strings.Contains(it.Question, "Q:") {
			t.Fatalf("item %s: gold %q, prediction %.40q, question %.40q", it.ID, it.Gold, it.Prediction, it.Question)
		}
	}
	if ds.Items[249].ID != "250" {
		t.Errorf("last id = %q, want 250", ds.Items[249].ID)
	}
}

func TestRealMMLongBench(t *testing.T) {
	p := realFile(t, "mmlongbench_doc__samples.json")
	// No model outputs: nothing to judge, and the message says so.
	_, err := Load(p, Options{})
	want := p + `: no prediction field: rows have keys "doc_id", "doc_type", "question", "answer", "evidence_pages", "evidence_sources", "answer_format"; say which one holds the prediction with --map prediction=FIELD`
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got: %v\nwant: %s", err, want)
	}
	// Loading the gold answers as predictions (e.g. to check the match
	// judge) works; doc_id names a document, not a question, so rows are
	// numbered unless doc_id is asked for — and then it is refused.
	ds, err := Load(p, Options{Map: map[string]string{"prediction": "answer", "gold": "answer"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Items) != 1082 || ds.Items[0].ID != "1" {
		t.Fatalf("%d items, first id %q", len(ds.Items), ds.Items[0].ID)
	}
	na := 0
	for _, it := range ds.Items {
		if it.Gold == "Not answerable" {
			na++
		}
	}
	if na != 223 {
		t.Errorf("%d Not answerable golds, want 223", na)
	}
	if got := FormatMap(ds.Mapping); got != "question=question,gold=answer,prediction=answer,segment=doc_type+answer_format" {
		t.Errorf("mapping = %s", got)
	}
	_, err = Load(p, Options{Map: map[string]string{"prediction": "answer", "id": "doc_id"}})
	if err == nil || !strings.Contains(err.Error(), `:11: element [1]: duplicate id "PH_2016.06.08_Economy-Final.pdf" (element [0] on line 2 has it too)`) {
		t.Errorf("doc_id as id: %v", err)
	}
}

func TestRealPandaLM(t *testing.T) {
	p := realFile(t, "pandalm__testset-v1.json")
	ds, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "question=instruction+input,response_a=response1,response_b=response2,id=idx,human=annotator1+annotator2+annotator3"
	if len(ds.Items) != 999 || FormatMap(ds.Mapping) != want {
		t.Fatalf("%d items, mapping\n got: %s\nwant: %s", len(ds.Items), FormatMap(ds.Mapping), want)
	}
	first := ds.Items[0]
	if first.ID != "0" || first.ResponseA != "If you have any questions about my rate, please let me know." ||
		first.ResponseB != "If you have any questions, please let me know." || first.Prediction != "" || !first.Pairwise() {
		t.Errorf("first item %+v", first)
	}
	// The instruction, then the sentence it works on.
	if !strings.HasPrefix(first.Question, "The sentence you are given might be too wordy") ||
		!strings.HasSuffix(first.Question, "\n\nIf you have any questions about my rate or if you find it necessary to increase or decrease the scope for this project, please let me know.") {
		t.Errorf("question %q", first.Question)
	}
	// The old way, one response as the prediction, still works.
	ds, err = Load(p, Options{Map: map[string]string{"prediction": "response1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Items) != 999 || FormatMap(ds.Mapping) != "question=instruction+input,prediction=response1,id=idx,human=annotator1+annotator2+annotator3" {
		t.Errorf("%d items, mapping %s", len(ds.Items), FormatMap(ds.Mapping))
	}
}

func TestRealPandaLMJudgeOutputs(t *testing.T) {
	// Files holding only another judge's outputs: its verdicts are found,
	// and there is no prediction to judge.
	for name, verdict := range map[string]string{
		"pandalm__gpt-3.5-turbo-testset-v1.json": "gpt_result",
		"pandalm__pandalm-7b-testset-v1.json":    "pandalm_result",
	} {
		p := realFile(t, name)
		ds, err := Load(p, Options{Require: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds.Items) != 999 || ds.Mapping[RoleVerdict] != verdict {
			t.Errorf("%s: %d items, mapping %s", name, len(ds.Items), FormatMap(ds.Mapping))
		}
	}
}

func TestRealLLMBar(t *testing.T) {
	p := realFile(t, "llmbar__Natural__ChatGPT__Vanilla__result.json")
	ds, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Items) != 100 || FormatMap(ds.Mapping) != "question=input,response_a=output_1,response_b=output_2,human=label" {
		t.Errorf("%d items, mapping %s", len(ds.Items), FormatMap(ds.Mapping))
	}
	// The judge's winners are nested in a list: reachable by path, the
	// swapped order paired with the original.
	ds, err = Load(p, Options{Map: map[string]string{
		"verdict": "results.0.swap = False.winner", "swapped": "results.0.swap = True.winner"}})
	if err != nil {
		t.Fatal(err)
	}
	got := importedLines(ds)
	if len(got) != 3 || !strings.HasPrefix(got[0], "verdict results.0.swap = False.winner: 1,") ||
		!strings.HasPrefix(got[1], "swapped results.0.swap = True.winner: 1,") || ds.Imported[1].Of != "results.0.swap = False.winner" {
		t.Errorf("imported %.80q", got)
	}
}
