package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// issue11Server answers in docqa's two-line format, which the line-format
// judge file below reads too. A prompt holding "FILTER" is refused by the
// content filter (an api_error at once, no retry), one holding "GARBLE"
// gets an answer no judge can read (a parse_error); allOK lifts both. It
// counts the requests it received.
func issue11Server(t *testing.T) (*httptest.Server, *atomic.Int64, *atomic.Bool) {
	t.Helper()
	var calls atomic.Int64
	var allOK atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			// gavel run's GET /v1/models and /props before the run.
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var prompt strings.Builder
		for _, m := range req.Messages {
			prompt.WriteString(m.Content)
		}
		content := "reason: compared.\nresult: YES"
		switch {
		case allOK.Load():
		case strings.Contains(prompt.String(), "FILTER"):
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"The response was filtered due to the prompt triggering the content management policy.","type":"invalid_request_error","code":"content_filter"}}`)
			return
		case strings.Contains(prompt.String(), "GARBLE"):
			content = "I would rather not say."
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "c", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 3000, "completion_tokens": 5, "total_tokens": 3005}, // the whole prompt: never truncated
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls, &allOK
}

// writeRows writes a JSONL dataset, one row per map.
func writeRows(t *testing.T, dir string, rows []map[string]any) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rows {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rowsWithQuestions makes one row per question.
func rowsWithQuestions(qs ...string) []map[string]any {
	var rows []map[string]any
	for i, q := range qs {
		rows = append(rows, map[string]any{"id": fmt.Sprint("q", i), "question": q, "answer": "4", "prediction": "4"})
	}
	return rows
}

const contextJudge = `name: grounded
user: |
  Context: {context}
  Question: {question}
  Answer: {prediction}
  Write "reason: ..." then "result: YES" or "result: NO".
output:
  format: line
  reason: reason
dimensions:
  - name: result
    scale: binary
`

func writeJudgeFile(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "grounded.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runArgs(data, session, url string, judge string) []string {
	return []string{"run", data, "--judge", judge, "--base-url", url + "/v1", "--model", "m", "--session", session, "--concurrency", "2"}
}

// `gavel run` exits 1 when any task ended api_error (work is left), with
// how many, the most common error whole and how to finish; parse errors
// alone are answers and exit 0.
func TestRunExitCodeOnAPIErrors(t *testing.T) {
	tests := []struct {
		name      string
		questions []string
		code      int
		want      []string
		not       []string
	}{
		{"all api_error", []string{"FILTER a", "FILTER b", "FILTER c"}, 1,
			[]string{"every one of the 3 tasks ended api_error", "the most common error (3 of 3): the server's content filter refused this item", "content management policy", "Run the same command again to judge what is left"}, nil},
		{"some api_error", []string{"FILTER a", "fine", "GARBLE", "fine too"}, 1,
			[]string{"1 of 4 tasks ended api_error", "the most common error (1 of 1)", "Run the same command again"}, nil},
		{"parse errors only", []string{"GARBLE a", "fine", "GARBLE b"}, 0,
			[]string{"1 ok, 2 parse errors, 0 API errors"}, []string{"ended api_error"}},
		{"all ok", []string{"a", "b"}, 0, []string{"2 ok, 0 parse errors, 0 API errors"}, []string{"ended api_error"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls, allOK := issue11Server(t)
			dir := t.TempDir()
			data := writeRows(t, dir, rowsWithQuestions(tc.questions...))
			session := filepath.Join(dir, "data.gavel")
			e, _, errb, _ := testEnv(t)
			argv := runArgs(data, session, srv.URL, "docqa")
			if code := execute(context.Background(), e, argv); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errb)
			}
			for _, w := range tc.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(errb.String(), w) {
					t.Errorf("stderr has %q:\n%s", w, errb)
				}
			}
			if tc.code == 0 {
				return
			}
			// Running the same command again judges only what is left.
			allOK.Store(true)
			before := calls.Load()
			errb.Reset()
			if code := execute(context.Background(), e, argv); code != 0 {
				t.Fatalf("second run: exit %d; stderr:\n%s", code, errb)
			}
			failed := 0
			for _, q := range tc.questions {
				if strings.HasPrefix(q, "FILTER") {
					failed++
				}
			}
			if got := calls.Load() - before; got != int64(failed) {
				t.Errorf("the second run made %d requests, want %d (the api_error tasks)", got, failed)
			}
		})
	}
}

// A judge file whose template names a field no row has is refused before
// any request, naming the field, the file and the dataset's fields, with
// the close name; no session is created.
func TestRunRefusesAFieldNoRowHas(t *testing.T) {
	srv, calls, _ := issue11Server(t)
	dir := t.TempDir()
	rows := rowsWithQuestions("a", "b", "c")
	for _, r := range rows {
		r["Context"] = "some text"
	}
	data := writeRows(t, dir, rows)
	jf := writeJudgeFile(t, dir, contextJudge)
	session := filepath.Join(dir, "data.gavel")
	e, _, errb, _ := testEnv(t)
	if code := execute(context.Background(), e, runArgs(data, session, srv.URL, jf)); code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", code, errb)
	}
	for _, w := range []string{"judge file " + jf, "{context} (did you mean {Context}?)", "no row of " + data, "its fields: Context, answer, id, prediction, question", "nothing was sent"} {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errb)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d requests before the refusal", n)
	}
	if _, err := os.Stat(session); !os.IsNotExist(err) {
		t.Errorf("the refused run created its session: %v", err)
	}

	// gavel review refuses it the same way, before its screen opens.
	e, _, errb, shown := testEnv(t)
	argv := []string{"review", data, "--judge", jf, "--base-url", srv.URL + "/v1", "--model", "m", "--session", session}
	if code := execute(context.Background(), e, argv); code != 2 || len(*shown) != 0 || calls.Load() != 0 {
		t.Errorf("review: exit %d, %d screens, %d requests; stderr:\n%s", code, len(*shown), calls.Load(), errb)
	}
	if !strings.Contains(errb.String(), "{context} (did you mean {Context}?)") {
		t.Errorf("review's refusal: %s", errb)
	}
}

// A field that only some rows lack is a warning with the count: the rows
// that have it are judged, the others end api_error (exit 1).
func TestRunWarnsOfAFieldSomeRowsLack(t *testing.T) {
	srv, calls, _ := issue11Server(t)
	dir := t.TempDir()
	rows := rowsWithQuestions("a", "b", "c", "d")
	rows[0]["context"], rows[2]["context"] = "x", "y"
	data := writeRows(t, dir, rows)
	jf := writeJudgeFile(t, dir, contextJudge)
	e, _, errb, _ := testEnv(t)
	code := execute(context.Background(), e, runArgs(data, filepath.Join(dir, "s.gavel"), srv.URL, jf))
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errb)
	}
	for _, w := range []string{"{context} is missing on 2 of 4 items of " + data + " (the first: q1)", "2 ok", "2 of 4 tasks ended api_error", "has no field"} {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errb)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// `gavel judges FILE --dataset DATA` makes the same check; without a
// dataset it names the row fields and a mistyped standard one.
func TestJudgesChecksFields(t *testing.T) {
	dir := t.TempDir()
	rows := rowsWithQuestions("a", "b", "c")
	rows[1]["context"] = "x"
	data := writeRows(t, dir, rows)
	jf := writeJudgeFile(t, dir, contextJudge)

	e, out, errb, _ := testEnv(t)
	if code := execute(context.Background(), e, []string{"judges", jf, "--dataset", data}); code != 0 {
		t.Fatalf("partial field: exit %d; stderr:\n%s", code, errb)
	}
	if !strings.Contains(errb.String(), "{context} is missing on 2 of 3 items") || !strings.Contains(out.String(), "prompt:") {
		t.Errorf("partial field: stdout:\n%s\nstderr:\n%s", out, errb)
	}

	e, out, errb, _ = testEnv(t)
	noContext := writeRows(t, t.TempDir(), rowsWithQuestions("a"))
	if code := execute(context.Background(), e, []string{"judges", jf, "--dataset", noContext}); code != 2 {
		t.Fatalf("missing field: exit %d; stderr:\n%s", code, errb)
	}
	if !strings.Contains(errb.String(), "uses {context}, which no row of") {
		t.Errorf("missing field: %s", errb)
	}

	e, out, errb, _ = testEnv(t)
	for _, r := range rows {
		r["context"] = "x"
	}
	data = writeRows(t, dir, rows)
	if code := execute(context.Background(), e, []string{"judges", jf, "--dataset", data}); code != 0 || errb.Len() != 0 {
		t.Fatalf("every row has it: exit %d; stderr:\n%s", code, errb)
	}
	if !strings.Contains(out.String(), "every item of "+data+" has {context}") {
		t.Errorf("every row has it: %s", out)
	}

	e, out, errb, _ = testEnv(t)
	typo := writeJudgeFile(t, t.TempDir(), strings.Replace(contextJudge, "{prediction}", "{predicton}", 1))
	if code := execute(context.Background(), e, []string{"judges", typo}); code != 0 {
		t.Fatalf("no dataset: exit %d; stderr:\n%s", code, errb)
	}
	if !strings.Contains(out.String(), "{context}, {predicton} are not standard fields") || !strings.Contains(errb.String(), "{predicton} is not a standard field: did you mean {prediction}?") {
		t.Errorf("no dataset: stdout:\n%s\nstderr:\n%s", out, errb)
	}

	e, _, errb, _ = testEnv(t)
	if code := execute(context.Background(), e, []string{"judges", "--dataset", data}); code != 2 {
		t.Errorf("--dataset without a judge: exit %d; stderr:\n%s", code, errb)
	}
}
