package llm

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// shape is one output a model writes and the verdict it must give.
type shape struct {
	name   string
	out    string
	status judge.Status
	values map[string]float64
}

// builtinShapes lists, per built-in judge, outputs in every shape real
// models write: clean, fenced, wrapped in prose, after a <think> trace,
// and unparseable.
var builtinShapes = map[string][]shape{
	"docqa": {
		{"clean", "reason: NASA is the accepted abbreviation, Criterion 3.\nresult: YES", judge.StatusOK, yes},
		{"fenced", "```\nreason: The Prediction lists only June.\nresult: NO\n```", judge.StatusOK, no},
		{"prose", "Let me apply the rules.\n\n**reason:** the gold is Not answerable and the prediction says so.\n**result:** YES\n\nHope this helps.", judge.StatusOK, yes},
		{"think", "<think>Gold: NASA. Prediction: NASA... result: NO? No, it matches.</think>\n\nreason: matches\nresult: YES", judge.StatusOK, yes},
		{"unparseable", "The prediction looks right to me.", judge.StatusParseError, nil},
	},
	"rubric": {
		{"clean", `{"score": 1.0, "reason": "NASA is named."}`, judge.StatusOK, map[string]float64{"score": 1}},
		{"fenced", "```json\n{\"score\": \"0.5\", \"reason\": \"partly\"}\n```", judge.StatusOK, map[string]float64{"score": 0.5}},
		{"prose", "Here is the evaluation:\n{\"score\": 0.0, \"reason\": \"absent\"}\nThat is all.", judge.StatusOK, map[string]float64{"score": 0}},
		{"think", "<think>The criterion asks for NASA... {\"score\": 0}</think>{\"score\": 1, \"reason\": \"named\"}", judge.StatusOK, map[string]float64{"score": 1}},
		{"unparseable", `{"score": 0.75, "reason": "mostly"}`, judge.StatusParseError, nil},
	},
	"same-event": {
		{"clean", "YES", judge.StatusOK, yes},
		{"fenced", "```\nNO\n```", judge.StatusOK, no},
		{"prose", "No. The first snippet is about 1990, the second about 2021.", judge.StatusOK, no},
		{"think", "<think>Both mention Hubble's launch.</think>\n**YES**", judge.StatusOK, yes},
		{"unparseable", "These might be the same.", judge.StatusParseError, nil},
	},
	"bbh": {
		{"clean", `{"id": 3, "is_correct": true, "extracted_answer": "(B)", "reasoning_score": 5, "error_type": "none", "comment": "Verbose correct answer found"}`, judge.StatusOK, yes},
		{"fenced", "```json\n{\"id\": 3, \"is_correct\": false, \"extracted_answer\": \"A\", \"reasoning_score\": 2, \"error_type\": \"wrong_logic\", \"comment\": \"chose A\"}\n```", judge.StatusOK, no},
		{"prose", "Evaluation result:\n{\"id\": 3, \"is_correct\": \"true\", \"comment\": \"ok\"}\nDone.", judge.StatusOK, yes},
		{"think", "<think>The response ends with (B)...</think>\n{\"id\": 3, \"is_correct\": true}", judge.StatusOK, yes},
		{"unparseable", "The model is correct.", judge.StatusParseError, nil},
	},
	"quality": {
		{"clean", `{"completeness_score": 4, "completeness_reasoning": "year missing", "key_missing_info": ["1990"], "correctness_score": 5, "correctness_reasoning": "accurate", "factual_errors": []}`, judge.StatusOK, map[string]float64{"completeness": 4, "correctness": 5}},
		{"fenced", "```json\n{\"completeness_score\": \"3\", \"correctness_score\": \"2\"}\n```", judge.StatusOK, map[string]float64{"completeness": 3, "correctness": 2}},
		{"prose", "My assessment follows.\n{\"completeness_score\": 5, \"correctness_score\": 5,}\nThanks.", judge.StatusOK, map[string]float64{"completeness": 5, "correctness": 5}},
		{"think", "<think>Compare with gold.</think>{\"completeness_score\": 1, \"correctness_score\": 1}", judge.StatusOK, map[string]float64{"completeness": 1, "correctness": 1}},
		{"unparseable", `{"completeness_score": 0, "correctness_score": 0}`, judge.StatusParseError, nil},
	},
}

var shapeMarker = regexp.MustCompile(`#(\d+)`)

func TestEveryBuiltinEndToEnd(t *testing.T) {
	for name, shapes := range builtinShapes {
		t.Run(name, func(t *testing.T) {
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
				last := req.Messages[len(req.Messages)-1].Content
				m := shapeMarker.FindAllStringSubmatch(last, -1)
				if len(m) == 0 {
					writeError(w, http.StatusBadRequest, "invalid_request_error", "no marker")
					return
				}
				k, _ := strconv.Atoi(m[len(m)-1][1])
				writeCompletion(w, req.Model, completion{content: shapes[k].out, withLogprobs: true, logprob: -0.01, answerLogprob: -0.05})
			})
			cat := NewCatalog()
			j, err := cat.New(name, testConfig(fs))
			if err != nil {
				t.Fatal(err)
			}
			var tasks []judge.Task
			for k := range shapes {
				it := testItem(fmt.Sprint(k))
				it.Prediction = fmt.Sprintf("NASA launched it. #%d", k)
				it.Rubric = []string{"Names NASA"}
				tasks = append(tasks, judge.Tasks(j.Info(), it)...)
			}
			if len(tasks) != len(shapes) {
				t.Fatalf("%d tasks for %d items", len(tasks), len(shapes))
			}
			ctx, cancel := StopOnFatal(context.Background())
			defer cancel()
			vs := runWithin(t, 20e9, func() []judge.Verdict { return runAll(t, ctx, j, tasks, 3) })
			if len(vs) != len(shapes) {
				t.Fatalf("%d verdicts for %d tasks (fatal: %v)", len(vs), len(shapes), FatalCause(ctx))
			}
			for _, v := range vs {
				k, _ := strconv.Atoi(v.ItemID)
				s := shapes[k]
				if v.Status != s.status || !maps.Equal(v.Values, s.values) {
					t.Errorf("%s: %s %v (%s), want %s %v", s.name, v.Status, v.Values, v.Error, s.status, s.values)
				}
				if v.Raw != s.out {
					t.Errorf("%s: raw %q, want the model's output kept", s.name, v.Raw)
				}
				if v.Status == judge.StatusParseError && !strings.HasPrefix(v.Error, "expected ") {
					t.Errorf("%s: parse error %q does not say what was expected", s.name, v.Error)
				}
				if v.PromptTokens != fakePromptTokens || v.CompletionTokens != 10 || v.Latency <= 0 || v.Model != "judge-model" {
					t.Errorf("%s: tokens %d/%d, latency %v, model %q", s.name, v.PromptTokens, v.CompletionTokens, v.Latency, v.Model)
				}
				if name == "rubric" && v.Criterion != 1 {
					t.Errorf("rubric verdict for criterion %d, want 1", v.Criterion)
				}
				binary := name == "docqa" || name == "same-event" || name == "bbh"
				if binary && v.OK() && (v.Confidence == nil || *v.Confidence < 0.9) {
					t.Errorf("%s: confidence %v, want exp(-0.05)", s.name, fmtPtr(v.Confidence))
				}
			}
			assertNoKey(t, vs...)
		})
	}
}

func TestBBHAndQualityKeepTheirExtras(t *testing.T) {
	tests := []struct {
		judge, out string
		want       map[string]any
	}{
		{"bbh", builtinShapes["bbh"][1].out, map[string]any{"extracted_answer": "A", "reasoning_score": 2.0, "error_type": "wrong_logic", "comment": "chose A"}},
		{"quality", builtinShapes["quality"][0].out, map[string]any{"completeness_reasoning": "year missing", "correctness_reasoning": "accurate"}},
	}
	for _, tc := range tests {
		fs := newFakeServer(t, answerWith(completion{content: tc.out}))
		v := mustJudge(t, tc.judge, testConfig(fs)).Judge(context.Background(), judge.Task{Item: testItem("1")})
		for k, want := range tc.want {
			if v.Extra[k] != want {
				t.Errorf("%s: Extra[%s] = %v, want %v", tc.judge, k, v.Extra[k], want)
			}
		}
		if tc.judge == "quality" {
			if got, _ := v.Extra["key_missing_info"].([]string); len(got) != 1 || got[0] != "1990" {
				t.Errorf("key_missing_info = %v", v.Extra["key_missing_info"])
			}
			if _, ok := v.Extra["factual_errors"].([]string); !ok {
				t.Errorf("factual_errors = %#v", v.Extra["factual_errors"])
			}
		}
	}
}

func TestReasoningContentIsATrace(t *testing.T) {
	// vLLM's reasoning parsers send the trace apart, in reasoning_content.
	fs := newFakeServer(t, answerWith(completion{reasoning: "Both are about Hubble.", content: "YES", withLogprobs: true, logprob: -0.01, answerLogprob: -0.3}))
	v := mustJudge(t, "same-event", testConfig(fs)).Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() || v.Values["correct"] != 1 || !strings.HasPrefix(v.Raw, "<think>Both are about Hubble.</think>") {
		t.Fatalf("verdict %+v", v)
	}
	if v.Confidence == nil || fmt.Sprintf("%.4f", *v.Confidence) != "0.7408" {
		t.Errorf("confidence %v, want exp(-0.3)", fmtPtr(v.Confidence))
	}
}

func TestCustomJudgeEndToEnd(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		if req.Messages[0].Role != "system" || !strings.Contains(req.Messages[1].Content, "Topic: Space") {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "unexpected prompt")
			return
		}
		writeCompletion(w, req.Model, completion{content: "```json\n{\"helpful\": \"PASS\", \"quality\": 4, \"why\": \"clear\"}\n```", withLogprobs: true, logprob: -0.01})
	})
	j, err := NewCatalog().New("testdata/helpful.yaml", testConfig(fs))
	if err != nil {
		t.Fatal(err)
	}
	it := testItem("1")
	it.Fields = []byte(`{"doc": {"title": "Space"}}`)
	v := j.Judge(context.Background(), judge.Task{Item: it})
	if !v.OK() || v.Values["helpful"] != 1 || v.Values["quality"] != 4 || v.Reason != "clear" {
		t.Fatalf("verdict %+v", v)
	}
	if info := j.Info(); info.Params["definition"] == nil || info.Name != "helpful" {
		t.Errorf("info %+v: a custom judge's run must know its definition", info)
	}
	// An item without the field the template needs: a clear api_error, no request.
	before := fs.hits.Load()
	v = j.Judge(context.Background(), judge.Task{Item: testItem("2")})
	if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, `item 2 has no field "doc.title"`) || fs.hits.Load() != before {
		t.Errorf("missing field: %s %q", v.Status, v.Error)
	}
}
