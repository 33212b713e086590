package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/tui"
)

// strictServer answers docqa's format: YES, unless the prompt holds the
// word STRICT; then NO to a prediction of Lyon, and NO on "take 1?" (a
// variant that breaks an item).
func strictServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		var prompt strings.Builder
		for _, m := range req.Messages {
			prompt.WriteString(m.Content + "\n")
		}
		p := prompt.String()
		result := "YES"
		if strings.Contains(p, "STRICT") && (strings.Contains(p, "It is Lyon.") || strings.Contains(p, "take 1?")) {
			result = "NO"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "c", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "reason: read it.\nresult: " + result}}},
			// A count of the whole prompt: a low one reads as a prompt the
			// server cut to its context (a truncated verdict).
			"usage": map[string]any{"prompt_tokens": len(p) / 2, "completion_tokens": 5, "total_tokens": len(p)/2 + 5},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// The screen's variant factory and comparison against a server whose
// answers follow the prompt: the edited docqa is docqa@2, judges the
// labelled items only, renames the original docqa@1, and its comparison
// is the hand computation (base right on q1–q4, the variant on q2–q8:
// table 3/1/4/0, McNemar p = 2·6/32).
func TestReviewVariantAndCompare(t *testing.T) {
	srv, calls := strictServer(t)
	var data strings.Builder
	for i := 1; i <= 12; i++ {
		pred := "Paris"
		if i > 4 {
			pred = "Lyon"
		}
		fmt.Fprintf(&data, `{"id":"q%d","question":"Capital of France, take %d?","answer":"Paris","prediction":"It is %s."}`+"\n", i, i, pred)
	}
	ds, err := dataset.LoadBytes("capitals.jsonl", []byte(data.String()), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := sessions.OpenReview(filepath.Join(t.TempDir(), "c.gavel"), "tester", ds)
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	cfg := llm.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", Concurrency: 2}
	js, err := resolveJudges([]string{"docqa"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	judges, client, err := js.build(rv.Store.ResponseCache())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := startRun(ctx, rv, judges[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	drain(st.Judging)
	if n := calls.Load(); n != 12 {
		t.Fatalf("docqa asked %d times, want 12", n)
	}
	for i := 1; i <= 8; i++ {
		v := 1.0
		if i > 4 {
			v = 0
		}
		if _, err := rv.Store.Record([]sessions.Action{{Kind: sessions.KindLabel, ItemID: fmt.Sprintf("q%d", i), Dimension: "correct", Value: v, Via: "order"}}); err != nil {
			t.Fatal(err)
		}
	}
	base := judges[0].Info()
	if !strings.Contains(base.Definition, "You are an expert evaluator") {
		t.Fatalf("docqa's definition is not its exported file:\n%.200s", base.Definition)
	}
	running := &judgings{}
	defer running.stop()
	vs := &variants{ctx: ctx, open: func() (*sessions.Review, error) { return rv, nil }, cfg: cfg, running: running, client: client}

	// A file that does not parse is the file's error.
	_, err = vs.variant(tui.VariantRequest{Base: base, Definition: []byte("name: docqa\nsystem: [\n"), Items: rv.Items[:8]})
	var bad *tui.JudgeFileError
	if !errors.As(err, &bad) {
		t.Errorf("broken file: %v (%T), want a JudgeFileError", err, err)
	}

	edited := strings.Replace(base.Definition, "You are an expert evaluator", "STRICT. You are an expert evaluator", 1)
	v, err := vs.variant(tui.VariantRequest{Base: base, Definition: []byte(edited), Items: rv.Items[:8]})
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "docqa@2" || v.BaseName != "docqa@1" || v.Tasks != 8 || v.Examples != 0 {
		t.Errorf("variant %q of %q, %d tasks, %d examples: want docqa@2 of docqa@1, 8, 0", v.Name, v.BaseName, v.Tasks, v.Examples)
	}
	run, err := v.Start()
	if err != nil {
		t.Fatal(err)
	}
	drain(run.Run.Judging)
	if n := calls.Load(); n != 20 {
		t.Errorf("%d requests in all, want 12 + the 8 labelled items", n)
	}
	if run.Run.Key != "docqa@2 · m" || run.Renamed["docqa · m"] != "docqa@1 · m" || len(run.Renamed) != 1 {
		t.Errorf("key %q, renamed %v", run.Run.Key, run.Renamed)
	}
	if got, err := rv.Store.RunByID(run.ID); err != nil || got.Info.Definition != edited {
		t.Errorf("the session keeps the variant's file? %v", err)
	}

	screen := []tui.Run{{Key: "docqa@1 · m"}, {Key: "docqa@2 · m"}, {Key: "match"}}
	if err := setRunIDs(rv.Store, screen); err != nil || screen[0].ID != run.BaseID || screen[1].ID != run.ID || screen[2].ID != 0 {
		t.Errorf("ids %d, %d, %d (%v): want %d, %d, 0", screen[0].ID, screen[1].ID, screen[2].ID, err, run.BaseID, run.ID)
	}

	cmp, err := vs.compare(run.BaseID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := cmp.Figures.Dimensions[0].Paired
	if p.N != 8 || p.BothRight != 3 || p.OnlyA != 1 || p.OnlyB != 4 || p.BothWrong != 0 {
		t.Errorf("paired %+v", p)
	}
	if math.Abs(p.McNemarP.Value-12.0/32) > 1e-12 {
		t.Errorf("McNemar p %v, want 0.375", p.McNemarP.Value)
	}
	if len(p.Fixed) != 4 || p.Fixed[0].ItemID != "q5" || len(p.Broken) != 1 || p.Broken[0].ItemID != "q1" {
		t.Errorf("fixed %v, broken %v", p.Fixed, p.Broken)
	}
	if !strings.Contains(cmp.Items, "no calibration / evaluation split") {
		t.Errorf("items line %q", cmp.Items)
	}

	// With a split, the evaluation part only, and said so.
	sp, err := rv.Store.RecordSplit(sessions.Split{Seed: 3, Calibration: 0.5}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := 1; i <= 8; i++ {
		if !sp.PartOf(fmt.Sprintf("q%d", i)).InCalibration() {
			want++
		}
	}
	cmp, err = vs.compare(run.BaseID, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := cmp.Figures.Dimensions[0].Paired.N; n != want || !strings.Contains(cmp.Items, "evaluation split (seed 3)") || cmp.Part != "evaluation" {
		t.Errorf("with a split: %d items (want %d), %q", n, want, cmp.Items)
	}

	// Made again, the same file is the same run, and asks nothing (the
	// session caches the answers).
	v, err = vs.variant(tui.VariantRequest{Base: base, Definition: []byte(edited), Items: rv.Items[:8]})
	if err != nil || v.Name != "docqa@2" {
		t.Fatalf("again: %q, %v", v.Name, err)
	}
	run2, err := v.Start()
	if err != nil {
		t.Fatal(err)
	}
	drain(run2.Run.Judging)
	if run2.ID != run.ID || calls.Load() != 20 || len(run2.Renamed) != 0 {
		t.Errorf("again: run %d (was %d), %d requests (was 20), renamed %v", run2.ID, run.ID, calls.Load(), run2.Renamed)
	}
}

func drain(j *sessions.Judging) {
	if j == nil {
		return
	}
	for range j.Batches() {
	}
}

// a judge edited from an unused name still names its variants in order.
func TestVariantName(t *testing.T) {
	info := func(name, v string) judge.Info {
		return judge.Info{Name: name, Model: "m", Params: map[string]any{"definition": v}}
	}
	key := func(i judge.Info) string { k, _ := sessions.RunKey(i); return k }
	runs := []sessions.Run{
		{ID: 1, Info: info("docqa", "a"), Key: key(info("docqa", "a"))},
		{ID: 2, Info: info("match", ""), Key: key(info("match", ""))},
		{ID: 5, Info: info("docqa", "b"), Key: key(info("docqa", "b"))},
	}
	for _, tc := range []struct {
		info judge.Info
		want string
	}{
		{info("docqa", "a"), "docqa@1"},
		{info("docqa", "b"), "docqa@2"},
		{info("docqa", "c"), "docqa@3"},
		{info("rubric", "c"), "rubric@1"},
	} {
		if got, err := variantName(runs, tc.info); err != nil || got != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.info.Params, got, err, tc.want)
		}
	}
}

// A variant made on a reopened review (items holding their row in the
// session's stored form, own columns elided) reads a dataset field its
// template names from the whole row: {answer}, also the gold column, is
// not the stored form's "".
func TestVariantReadsWholeFields(t *testing.T) {
	var prompts []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.NotFound(w, r)
			return
		}
		var p strings.Builder
		for _, m := range req.Messages {
			p.WriteString(m.Content + "\n")
		}
		mu.Lock()
		prompts = append(prompts, p.String())
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{
			"id": "c", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "reason: read it.\nresult: YES"}}},
			"usage": map[string]any{"prompt_tokens": p.Len() / 2, "completion_tokens": 5, "total_tokens": p.Len()/2 + 5},
		})
	}))
	defer srv.Close()
	ds, err := dataset.LoadBytes("capitals.jsonl", []byte(`{"id":"q1","question":"Capital of France?","answer":"Paris","prediction":"It is Paris."}`+"\n"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := sessions.OpenReview(filepath.Join(t.TempDir(), "c.gavel"), "tester", ds)
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	stored := rv.Items[0]
	stored.Fields = json.RawMessage(sessions.StoredFieldsEncoder()(&stored))
	if strings.Contains(string(stored.Fields), "Paris") {
		t.Fatalf("the stored form keeps the gold text: %s", stored.Fields)
	}
	cfg := llm.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m", Concurrency: 1}
	js, err := resolveJudges([]string{"docqa"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	judges, client, err := js.build(rv.Store.ResponseCache())
	if err != nil {
		t.Fatal(err)
	}
	st, err := startRun(context.Background(), rv, judges[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	drain(st.Judging)
	base := judges[0].Info()
	edited := strings.Replace(base.Definition, "Question: {question}", "FIELD[{answer}] Question: {question}", 1)
	running := &judgings{}
	defer running.stop()
	vs := &variants{ctx: context.Background(), open: func() (*sessions.Review, error) { return rv, nil }, cfg: cfg, running: running, client: client}
	v, err := vs.variant(tui.VariantRequest{Base: base, Definition: []byte(edited), Items: []judge.Item{stored}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := v.Start()
	if err != nil {
		t.Fatal(err)
	}
	drain(run.Run.Judging)
	mu.Lock()
	defer mu.Unlock()
	if len(prompts) != 2 || !strings.Contains(prompts[1], "FIELD[Paris]") {
		t.Errorf("prompts %q: want the variant's holding FIELD[Paris]", prompts)
	}
}
