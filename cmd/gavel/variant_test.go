package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// promptServer is an OpenAI-compatible server whose docqa-style answer
// depends on the prompt it receives, as a real model's does: it says YES
// to every item unless the prompt holds the word STRICT, and then YES only
// when the prediction contains the standard answer. It keeps every user
// message it was sent.
type promptServer struct {
	*httptest.Server
	mu      sync.Mutex
	prompts []string
}

func newPromptServer(t *testing.T) *promptServer {
	t.Helper()
	ps := &promptServer{}
	ps.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`)
			return
		}
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content)
			all.WriteByte('\n')
		}
		prompt := all.String()
		ps.mu.Lock()
		ps.prompts = append(ps.prompts, prompt)
		ps.mu.Unlock()
		result := "YES"
		if strings.Contains(prompt, "STRICT") {
			gold := lastLine(prompt, "Answer: ")
			pred := lastLine(prompt, "Prediction: ")
			if gold == "" || !strings.Contains(pred, gold) {
				result = "NO"
			}
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
				"message": map[string]any{"role": "assistant", "content": "reason: read the prediction.\nresult: " + result}}},
			// A count of the whole prompt (about 3 characters a token), as a
			// server that read all of it reports: a low count reads as a
			// prompt the server cut (a truncated verdict).
			"usage": map[string]any{"prompt_tokens": len(prompt) / 3, "completion_tokens": 10, "total_tokens": len(prompt)/3 + 10},
		})
	}))
	t.Cleanup(ps.Close)
	return ps
}

// lastLine returns the rest of the last line of s that starts with
// prefix: the item's own field, after any examples that show others.
func lastLine(s, prefix string) string {
	i := strings.LastIndex(s, "\n"+prefix)
	if i < 0 {
		return ""
	}
	rest := s[i+1+len(prefix):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func (ps *promptServer) sent() []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]string(nil), ps.prompts...)
}

// strictVariant writes the built-in docqa judge as a file (what gavel
// judges docqa --save writes) with one sentence added to its
// instructions, the sentence that makes the test server strict.
func strictVariant(t *testing.T, dir string) string {
	t.Helper()
	data, err := llm.ExportBuiltin("docqa")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "docqa-strict.yaml")
	cf, err := llm.ParseCustom(data, path)
	if err != nil {
		t.Fatalf("the exported docqa does not load: %v", err)
	}
	data, err = llm.ReplaceInstructions(data, path, cf.Instructions+"\n\nSTRICT: say NO unless the prediction contains the standard answer word for word.")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// variantCSV holds 40 items and a human label each. Against promptServer
// the built-in docqa (A) says YES to all; the strict variant (B) says YES
// exactly when the prediction contains the gold answer:
//
//	v00–v19  gold in prediction, human yes: A ✓ B ✓   (both right: 20)
//	v20–v29  gold not in it,     human no:  A ✗ B ✓   (only B: 10, fixed by B)
//	v30–v33  gold not in it,     human yes: A ✓ B ✗   (only A: 4, broken by B)
//	v34–v39  gold in prediction, human no:  A ✗ B ✗   (both wrong: 6)
//
// Accuracy A = 24/40, B = 30/40, B − A = 6/40; McNemar: b + c = 14,
// min(b, c) = 4, p = 2·(C(14,0)+C(14,1)+C(14,2)+C(14,3)+C(14,4))/2^14 =
// 2·(1+14+91+364+1001)/16384 = 2942/16384.
func variantCSV() string {
	var b strings.Builder
	b.WriteString("id,question,answer,prediction,human_label\n")
	for i := range 40 {
		gold := fmt.Sprintf("gold%02d", i)
		pred, human := "It is "+gold+".", "yes"
		switch {
		case i >= 20 && i < 30:
			pred, human = "Something else.", "no"
		case i >= 30 && i < 34:
			pred = "In other words the same."
		case i >= 34:
			human = "no"
		}
		fmt.Fprintf(&b, "v%02d,What is item %d?,%s,%s,%s\n", i, i, gold, pred, human)
	}
	return b.String()
}

// The first "done when": a variant of docqa, run against a server
// whose answers depend on the prompt, compared with the built-in by gavel
// compare; the table and McNemar's p equal the hand computation above.
func TestVariantComparisonHandComputed(t *testing.T) {
	ps := newPromptServer(t)
	dir := t.TempDir()
	data := writeFile(t, dir, "v.csv", variantCSV())
	session := filepath.Join(dir, "v.gavel")
	if code, _, errs := run(t, "import", data, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	variant := strictVariant(t, dir)
	code, _, errs := run(t, "run", data, "--judge", "docqa", "--judge", variant, "--session", session,
		"--base-url", ps.URL+"/v1", "--model", "m")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if n := len(ps.sent()); n != 80 {
		t.Errorf("%d requests for two judges on 40 items", n)
	}

	c := compareJSON(t, "compare", session, "--judge", "docqa@1", "--judge", "docqa@2", "--resamples", "0", "--items")
	if len(c.Dimensions) != 1 {
		t.Fatalf("%d dimensions compared", len(c.Dimensions))
	}
	p := c.Dimensions[0].Paired
	if p.N != 40 || p.BothRight != 20 || p.OnlyA != 4 || p.OnlyB != 10 || p.BothWrong != 6 {
		t.Fatalf("table: n %d, both %d, only A %d, only B %d, neither %d", p.N, p.BothRight, p.OnlyA, p.OnlyB, p.BothWrong)
	}
	if math.Abs(p.McNemarP.Value-2942.0/16384) > 1e-15 {
		t.Errorf("McNemar p %v, want %v", p.McNemarP.Value, 2942.0/16384)
	}
	if math.Abs(p.AccuracyA.Value-24.0/40) > 1e-15 || math.Abs(p.AccuracyB.Value-30.0/40) > 1e-15 || math.Abs(p.Difference.Value-6.0/40) > 1e-15 {
		t.Errorf("accuracy A %v, B %v, difference %v", p.AccuracyA.Value, p.AccuracyB.Value, p.Difference.Value)
	}
	ids := func(us []stats.UnitRef) string {
		var out []string
		for _, u := range us {
			out = append(out, u.ItemID)
		}
		return strings.Join(out, " ")
	}
	fixed, broken := ids(p.Fixed), ids(p.Broken)
	if fixed != "v20 v21 v22 v23 v24 v25 v26 v27 v28 v29" || broken != "v30 v31 v32 v33" {
		t.Errorf("fixed %q, broken %q", fixed, broken)
	}

	// The session keeps the variant's whole text with its run.
	st, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs()
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	if !strings.Contains(runs[1].Info.Definition, "STRICT: say NO") || strings.Contains(runs[0].Info.Definition, "STRICT") || runs[0].Info.Definition == "" {
		t.Errorf("definitions not kept:\n%q\n%q", runs[0].Info.Definition, runs[1].Info.Definition)
	}

	// Markdown, as a user pastes it into a pull request.
	code, md, errs := run(t, "compare", session, "--judge", "docqa@1", "--judge", "docqa@2", "--format", "markdown", "--resamples", "0")
	if code != 0 || !strings.Contains(md, "|") || !strings.Contains(md, "0.18") {
		t.Errorf("markdown: exit %d: %s\n%s", code, errs, md)
	}

	// Running the same two judges again costs nothing: every answer is cached.
	before := len(ps.sent())
	if code, _, errs := run(t, "run", data, "--judge", "docqa", "--judge", variant, "--session", session,
		"--base-url", ps.URL+"/v1", "--model", "m"); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errs)
	}
	if n := len(ps.sent()) - before; n != 0 {
		t.Errorf("a rerun sent %d requests", n)
	}
}

var markerRE = regexp.MustCompile(`(?:Q|NOTE)-(f\d\d)`)

// The leakage test: a judge whose template takes few-shot examples runs on
// every item of a split session; no prompt ever shows an evaluation or
// validation item's text, label or note except the item being judged, and
// no item is its own example.
func TestFewShotNeverLeaksEvaluation(t *testing.T) {
	ps := newPromptServer(t)
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,question,answer,prediction,human_label\n")
	for i := range 60 {
		human := "yes"
		if i%3 == 0 {
			human = "no"
		}
		fmt.Fprintf(&b, "f%02d,Q-f%02d asks what?,gold%02d,It is gold%02d.,%s\n", i, i, i, i, human)
	}
	data := writeFile(t, dir, "f.csv", b.String())
	session := filepath.Join(dir, "f.gavel")
	if code, _, errs := run(t, "import", data, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "split", session, "--seed", "11"); code != 0 {
		t.Fatalf("split: exit %d: %s", code, errs)
	}
	// Every item gets a note that names it, as a person's reason would.
	st, err := sessions.Open(session, sessions.Options{Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	var notes []sessions.Action
	for i := range 60 {
		notes = append(notes, sessions.Action{Kind: sessions.KindNote, ItemID: fmt.Sprintf("f%02d", i), Note: fmt.Sprintf("NOTE-f%02d says why", i), Via: "order"})
	}
	if _, err := st.Record(notes); err != nil {
		t.Fatal(err)
	}
	split, ok, err := st.Split()
	st.Close()
	if err != nil || !ok {
		t.Fatalf("split %v %v", ok, err)
	}

	judgeFile := writeFile(t, dir, "fewshot.yaml", `name: fewshot
output: {parser: docqa}
instructions: Say whether the prediction answers the question as the answer does.
examples: {count: 4}
user: |
  {instructions}

  Examples a person labelled:
  {examples}

  Question: {question}
  Answer: {gold}
  Prediction: {prediction}
`)
	code, _, errs := run(t, "run", data, "--judge", judgeFile, "--session", session, "--base-url", ps.URL+"/v1", "--model", "m")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	prompts := ps.sent()
	if len(prompts) != 60 {
		t.Fatalf("%d requests for 60 items", len(prompts))
	}
	sawNo := false
	for _, p := range prompts {
		self := lastLine(p, "Question: ")
		m := markerRE.FindStringSubmatch(self)
		if m == nil {
			t.Fatalf("no item in prompt:\n%s", p)
		}
		judged := m[1]
		examples := 0
		for _, mm := range markerRE.FindAllStringSubmatch(p[:strings.LastIndex(p, "\nQuestion: ")], -1) {
			id := mm[1]
			if id == judged {
				t.Errorf("item %s is its own example:\n%s", id, p)
			}
			if part := split.PartOf(id); part != sessions.PartCalibration {
				t.Errorf("the prompt for %s shows %s, a %s item:\n%s", judged, id, part, p)
			}
			if strings.HasPrefix(mm[0], "Q-") {
				examples++
			}
		}
		if examples != 4 {
			t.Errorf("the prompt for %s shows %d examples, want 4:\n%s", judged, examples, p)
		}
		sawNo = sawNo || strings.Contains(p, "correct = NO")
	}
	if !sawNo {
		t.Errorf("no example shows a NO label: the examples are not stratified")
	}

	// A variant under another name whose prompts are the same is scored
	// from the cache: re-scoring costs no request.
	orig, err := os.ReadFile(judgeFile)
	if err != nil {
		t.Fatal(err)
	}
	renamed := writeFile(t, dir, "fewshot2.yaml", strings.Replace(string(orig), "name: fewshot", "name: fewshot2", 1))
	if code, _, errs := run(t, "run", data, "--judge", renamed, "--session", session, "--base-url", ps.URL+"/v1", "--model", "m"); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errs)
	}
	if n := len(ps.sent()) - len(prompts); n != 0 {
		t.Errorf("the renamed variant sent %d requests; its prompts were all asked before", n)
	}
}
