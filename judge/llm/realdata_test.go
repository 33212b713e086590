package llm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// TestRealBBHPrompts builds the prompts of every item of a real BIG-Bench
// Hard output file (shared/data) and checks that each item reaches the
// model whole: chain-of-thought text full of braces, quotes and options.
func TestRealBBHPrompts(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "data", "bbh__code-davinci-002-cot__date_understanding_few_shot_template_0-255000.json")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("shared data not present at %s", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Outputs []struct{ Input, Prediction, Target string }
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Outputs) != 250 {
		t.Fatalf("%d outputs, want 250", len(file.Outputs))
	}
	cat := NewCatalog()
	for _, name := range []string{"bbh", "docqa", "same-event", "quality"} {
		d, err := cat.resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range file.Outputs {
			it := judge.Item{ID: fmt.Sprint(i + 1), Question: o.Input, Gold: o.Target, Prediction: o.Prediction}
			msgs, err := d.messages(judge.Task{Item: it}, Config{}, nil)
			if err != nil {
				t.Fatalf("%s, item %d: %v", name, i+1, err)
			}
			last := msgs[len(msgs)-1].Content
			if !strings.Contains(last, o.Prediction) || !strings.Contains(last, o.Target) {
				t.Fatalf("%s, item %d: the prompt lacks the prediction or the target", name, i+1)
			}
		}
	}
}
