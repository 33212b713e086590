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

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
