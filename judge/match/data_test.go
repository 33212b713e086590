package match

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// bbhFile is a real BIG-Bench Hard output file (code-davinci-002,
// chain of thought, date understanding) from the shared data folder; the
// test skips when it is not there.
var bbhFile = filepath.Join("..", "..", "..", "shared", "data",
	"bbh__code-davinci-002-cot__date_understanding_few_shot_template_0-255000.json")

// simpleCheck is the benchmark's own scoring: the letter after the last
// "answer is" equals the target.
var simpleCheck = regexp.MustCompile(`answer is (\([A-Z]\))`)

// TestBBHFile judges the real BBH outputs and compares with the simple
// check the benchmark used: every prediction ends "So the answer is (X).",
// so the two must agree on every item, and the accuracy must be the
// published 87.2 %.
func TestBBHFile(t *testing.T) {
	data, err := os.ReadFile(bbhFile)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s not found", bbhFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Outputs []struct {
			Input      string `json:"input"`
			Prediction string `json:"prediction"`
			Target     string `json:"target"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("%s: %v", bbhFile, err)
	}
	if len(file.Outputs) == 0 {
		t.Fatalf("%s: no outputs", bbhFile)
	}
	j := New()
	agree, correct := 0, 0
	rules := map[string]int{}
	for i, o := range file.Outputs {
		v := j.Judge(context.Background(), judge.Task{Item: judge.Item{
			ID: "it-1", Question: o.Input, Gold: o.Target, Prediction: o.Prediction,
		}})
		checkVerdict(t, v, o.Prediction)
		rules[verdictRule(v)]++
		simple := false
		if m := simpleCheck.FindAllStringSubmatch(o.Prediction, -1); len(m) > 0 {
			simple = m[len(m)-1][1] == o.Target
		}
		if verdictCorrect(v) == simple {
			agree++
		} else {
			t.Errorf("item %d: match says %v, simple check %v; prediction ends %q, target %q; %s",
				i, verdictCorrect(v), simple, tail(o.Prediction, 80), o.Target, v.Reason)
		}
		if verdictCorrect(v) {
			correct++
		}
	}
	n := len(file.Outputs)
	t.Logf("%d items: match agrees with the simple check on %d (%.1f%%); accuracy %.1f%%; rules %v",
		n, agree, 100*float64(agree)/float64(n), 100*float64(correct)/float64(n), rules)
	if n == 250 && correct != 218 {
		t.Errorf("accuracy %d/250, want 218/250 (the published 87.2%%)", correct)
	}
}

// docQAFile holds 1,082 real document-QA golds (MMLongBench-Doc): lists,
// numbers, percentages, "Not answerable" and free text.
var docQAFile = filepath.Join("..", "..", "..", "shared", "data", "mmlongbench_doc__samples.json")

// TestGoldsMatchThemselves checks, on real golds of every kind, that a
// prediction that is the gold itself, bare or after "The answer is", is
// judged correct. The few golds that are several sentences long are allowed
// to fail (the extraction stops at the first sentence), nothing more.
func TestGoldsMatchThemselves(t *testing.T) {
	data, err := os.ReadFile(docQAFile)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s not found", docQAFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Question string `json:"question"`
		Answer   string `json:"answer"`
	}
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatalf("%s: %v", docQAFile, err)
	}
	j := New()
	n, failed := 0, 0
	rules := map[string]int{}
	for _, r := range rows {
		for _, pred := range []string{r.Answer, "The answer is " + r.Answer + "."} {
			v := j.Judge(context.Background(), judge.Task{Item: judge.Item{
				ID: "it-1", Question: r.Question, Gold: r.Answer, Prediction: pred,
			}})
			checkVerdict(t, v, pred)
			n++
			rules[verdictRule(v)]++
			if !verdictCorrect(v) {
				failed++
				t.Logf("gold %q does not match %q: %s", r.Answer, pred, v.Reason)
			}
		}
	}
	t.Logf("%d predictions, %d not matched; rules %v", n, failed, rules)
	if failed*200 > n {
		t.Errorf("%d of %d golds do not match themselves; want at most 0.5%%", failed, n)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
