package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// seedsDir is the shared seeds directory, reached from the package dir.
var seedsDir = filepath.Join("..", "..", "..", "shared", "seeds")

func TestPromptsAreTheSeedsVerbatim(t *testing.T) {
	files := map[string]string{
		"000_b34cb081aa9395a7.txt": docqaPrompt,
		"001_c5312be62934295d.txt": rubricSameEventPrompts,
		"002_254dcffb2027b5fc.txt": bbhPrompt,
		"003_1800d55df7cdb465.txt": qualityPrompt,
	}
	for name, embedded := range files {
		seed, err := os.ReadFile(filepath.Join(seedsDir, name))
		if os.IsNotExist(err) {
			t.Skipf("seeds not present at %s", seedsDir)
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(seed) != embedded {
			t.Errorf("embedded prompt for %s differs from the seed", name)
		}
	}
}

func TestSplitSeed001(t *testing.T) {
	if !strings.HasPrefix(rubricPrompt, "You are an expert evaluator tasked with judging") {
		t.Errorf("rubric prompt starts %q", clip(rubricPrompt, 60))
	}
	if !strings.HasSuffix(rubricPrompt, "NOTE: ONLY output the json object, without any explanation before or after that") {
		t.Errorf("rubric prompt ends %q", rubricPrompt[len(rubricPrompt)-60:])
	}
	for _, want := range []string{"<question>", "<rubic_item>", "<llm_response>"} {
		if !strings.Contains(rubricPrompt, want) {
			t.Errorf("rubric prompt lacks %s", want)
		}
	}
	if strings.Contains(rubricPrompt, "Listing 20") || strings.Contains(sameEventPrompt, "Listing 20") {
		t.Error("the caption between the prompts leaked into one")
	}
	if !strings.HasPrefix(sameEventPrompt, "You are a binary classifier.") {
		t.Errorf("same-event prompt starts %q", clip(sameEventPrompt, 60))
	}
	wantEnd := "DO NOT provide any explanation.\n\nFirst snippet: {first_paragraph}\n\nSecond snippet: {second_paragraph}"
	if !strings.HasSuffix(sameEventPrompt, wantEnd) {
		t.Errorf("same-event prompt ends %q", sameEventPrompt[len(sameEventPrompt)-100:])
	}
	// Every other byte is the seed's: the cut pieces stand in the seed as they are.
	if !strings.Contains(rubricSameEventPrompts, rubricPrompt) || !strings.Contains(rubricSameEventPrompts, strings.TrimSuffix(sameEventPrompt, "\n\n"+secondSnippetLine)) {
		t.Error("the cut prompts are not slices of seed 001")
	}
}

func TestBuiltinMessages(t *testing.T) {
	it := testItem("q1")
	it.Prediction = "NASA {did} it <question>"
	tests := []struct {
		name      string
		task      judge.Task
		cfg       Config
		roles     string
		contains  []string
		suffix    string
		forbidden []string
	}{
		{name: "docqa", task: judge.Task{Item: it}, roles: "user",
			suffix:   "Now, let's begin!\n\nQuestion: " + it.Question + "\nAnswer: " + it.Gold + "\nPrediction: " + it.Prediction,
			contains: []string{"## Core Evaluation Logic (Highest Priority)"}},
		{name: "rubric", task: judge.Task{Item: it, Criterion: 2}, roles: "user",
			contains:  []string{"- QUESTION (what the user asked): " + it.Question, "- RUBRIC CRITERION (what to check): Gives the launch year", "- RESPONSE TO EVALUATE: " + it.Prediction},
			forbidden: []string{"<rubic_item>", "<llm_response>"}},
		{name: "same-event", task: judge.Task{Item: it}, roles: "user",
			suffix: "First snippet: " + it.Gold + "\n\nSecond snippet: " + it.Prediction},
		{name: "same-event", task: judge.Task{Item: it}, cfg: Config{SwapSnippets: true}, roles: "user",
			suffix: "First snippet: " + it.Prediction + "\n\nSecond snippet: " + it.Gold},
		{name: "bbh", task: judge.Task{Item: it}, roles: "system,user",
			suffix: "ID: q1\nQUESTION: " + it.Question + "\nMODEL_RESPONSE: " + it.Prediction + "\nGROUND_TRUTH: " + it.Gold},
		{name: "quality", task: judge.Task{Item: it}, roles: "user",
			contains:  []string{"[QUESTION]\n" + it.Question + "\n", "[GOLD_ANSWER] (Reference Standard)\n" + it.Gold + "\n", "[MODEL_ANSWER] (To Be Evaluated)\n" + it.Prediction + "\n", "[OUTPUT JSON]\n{\n  \"completeness_score\": 0,", "  ]\n}\n\n**RESPOND ONLY"},
			forbidden: []string{"{{", "}}", "{question}", "{gold_answer}", "{model_answer}"}},
	}
	cat := NewCatalog()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := cat.resolve(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := d.messages(tc.task, tc.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			for _, m := range msgs {
				roles = append(roles, m.Role)
			}
			if got := strings.Join(roles, ","); got != tc.roles {
				t.Errorf("roles %s, want %s", got, tc.roles)
			}
			last := msgs[len(msgs)-1].Content
			all := ""
			for _, m := range msgs {
				all += m.Content + "\n"
			}
			if tc.suffix != "" && !strings.HasSuffix(last, tc.suffix) {
				t.Errorf("last message ends %q, want suffix %q", last[max(len(last)-len(tc.suffix)-20, 0):], tc.suffix)
			}
			for _, c := range tc.contains {
				if !strings.Contains(all, c) {
					t.Errorf("prompt lacks %q", c)
				}
			}
			for _, f := range tc.forbidden {
				if strings.Contains(strings.ReplaceAll(all, it.Prediction, ""), f) {
					t.Errorf("prompt still holds %q", f)
				}
			}
		})
	}
	if msgs, _ := mustDef(t, "bbh").messages(judge.Task{Item: it}, Config{}, nil); msgs[0].Content != bbhPrompt {
		t.Error("bbh's system message is not seed 002 verbatim")
	}
}

func TestRubricNeedsACriterion(t *testing.T) {
	_, err := mustDef(t, "rubric").messages(judge.Task{Item: testItem("x")}, Config{}, nil)
	if err == nil || !strings.Contains(err.Error(), "criterion") {
		t.Errorf("err = %v, want a message about the missing criterion", err)
	}
}

func mustDef(t testing.TB, name string) *definition {
	t.Helper()
	d, err := NewCatalog().resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
