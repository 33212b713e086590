package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// teamItems puts the items of the dataset file data, without verdicts,
// into a new team session on srv, and returns its URL and store.
func teamItems(t *testing.T, srv *pgtest.Server, data string) (string, *pg.Store) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "items.gavel")
	mustRun(t, "import", data, "--session", file)
	url := srv.URL(pgtest.Name(t))
	st, err := pg.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if _, err := pg.CopyFromSQLite(context.Background(), file, st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	return url, st
}

// verdictRows are a session file's runs and verdicts with their values,
// in item order, as text: ids, times and latencies (which differ from one
// run to the next) left out.
func verdictRows(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	for _, q := range []string{
		`SELECT key, judge, model, params, per_criterion, description, quote(definition) FROM runs ORDER BY key`,
		`SELECT r.key, d.position, d.dimension, d.scale, d.description FROM run_dimensions d JOIN runs r ON r.id = d.run_id ORDER BY r.key, d.position`,
		`SELECT * FROM dimension_scales ORDER BY 1`,
		`SELECT r.key, v.item_id, v.criterion, v.swapped, v.status, quote(v.reason), quote(v.error), quote(v.raw), v.model,
			v.prompt_tokens, v.completion_tokens, quote(v.confidence), quote(v.extra),
			(SELECT group_concat(vv.dimension || '=' || quote(vv.value), ',') FROM verdict_values vv WHERE vv.verdict_id = v.id)
			FROM verdicts v JOIN runs r ON r.id = v.run_id ORDER BY r.key, v.item_id, v.criterion, v.swapped, v.id`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%T %#v | ", v, v)
			}
			out = append(out, b.String())
		}
		rows.Close()
	}
	return out
}

// countVerdicts counts the team session's verdicts per item.
func countVerdicts(t *testing.T, st *pg.Store) map[string]int {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), `SELECT item_id, count(*) FROM `+st.Target().Schema+`.verdicts GROUP BY item_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

// gavel run URL judges a team session: a reviewer's replica elsewhere
// pulls the verdicts, which are the rows the same run writes to a file
// (times aside); a second run finds nothing to do; the dry run counts on
// the team session; a second gavel run at once is refused.
func TestRunTeam(t *testing.T) {
	srv := pgtest.Shared(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 30)
	ref := filepath.Join(dir, "ref.gavel")
	mustRun(t, "run", data, "--session", ref)
	url, st := teamItems(t, srv, data)
	ctx := context.Background()

	// Ana reviews on another machine: a replica of her own.
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "ana"))
	rv, rep, err := pg.OpenReview(ctx, st, "ana")
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "runner"))

	shown := st.Target().Shown
	code, out, errs := run(t, "run", url, "--dry-run")
	if code != 0 || !strings.Contains(out, "Dry run: nothing is sent to any server and "+shown+" is not written.") {
		t.Errorf("dry run: exit %d\n%s%s", code, out, errs)
	}
	if n := len(countVerdicts(t, st)); n != 0 {
		t.Fatalf("the dry run wrote %d verdicts", n)
	}

	code, _, errs = run(t, "run", url)
	if code != 0 {
		t.Fatalf("gavel run URL: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "30 of 30 tasks judged") || !strings.Contains(errs, "Saved in "+shown+".") {
		t.Errorf("stderr: %s", errs)
	}
	p, err := rep.Pull(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Verdicts) != 30 || len(p.Runs) != 1 {
		t.Errorf("ana's replica pulled %d verdicts and %d runs, want 30 and 1", len(p.Verdicts), len(p.Runs))
	}
	for id, n := range countVerdicts(t, st) {
		if n != 1 {
			t.Errorf("item %s has %d verdicts in PostgreSQL", id, n)
		}
	}

	back := filepath.Join(dir, "back.gavel")
	if _, err := pg.CopyToSQLite(ctx, st, back); err != nil {
		t.Fatal(err)
	}
	got, want := verdictRows(t, back), verdictRows(t, ref)
	if len(want) < 30 {
		t.Fatalf("the file holds %d rows", len(want))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the team session's verdicts:\n%s\nwant (the file's):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := mustOut(t, "export", url), mustOut(t, "export", ref); got != want {
		t.Errorf("export of the team session:\n%s\nwant:\n%s", got, want)
	}

	code, _, errs = run(t, "run", url)
	if code != 0 || !strings.Contains(errs, "every item already has a verdict in "+shown) {
		t.Errorf("second run: exit %d: %s", code, errs)
	}

	// A judge that takes few-shot examples needs a split, which a team
	// session cannot record: the refusal names the team session, not
	// this machine's copy, and says what to do.
	fewshot := writeFile(t, dir, "fewshot.yaml", "name: fewshot\ninstructions: Say YES or NO.\nsystem: \"{instructions}\"\nuser: |\n  {examples}\n  Question: {question}\n  Gold: {gold}\n  Prediction: {prediction}\nexamples:\n  count: 2\noutput:\n  parser: docqa\n")
	code, _, errs = run(t, "run", url, "--judge", fewshot, "--model", "m", "--base-url", "http://127.0.0.1:1/v1")
	if code == 0 || !strings.Contains(errs, shown+" has no calibration / evaluation split") ||
		!strings.Contains(errs, "gavel copy "+shown+" FILE.gavel") || strings.Contains(errs, filepath.Join(dir, "runner")) || strings.Contains(errs, "gavel split "+shown) {
		t.Errorf("a few-shot judge on a team session without a split: exit %d: %s", code, errs)
	}
	for _, cmd := range []string{"stats", "report"} {
		code, _, errs = run(t, cmd, url, "--split", "evaluation")
		if code != 2 || !strings.Contains(errs, shown+" has no calibration / evaluation split") ||
			!strings.Contains(errs, "gavel copy "+shown+" FILE.gavel") || strings.Contains(errs, filepath.Join(dir, "runner")) {
			t.Errorf("gavel %s --split evaluation on a team session without a split: exit %d: %s", cmd, code, errs)
		}
	}
	// An unknown judge or tag is said of the team session too.
	for _, argv := range [][]string{{"stats", url, "--judge", "nosuch"}, {"report", url, "--judge", "nosuch"},
		{"export", url, "--judge", "nosuch"}, {"export", url, "--tag", "nosuch"}} {
		code, _, errs = run(t, argv...)
		if code != 2 || !strings.Contains(errs, "in "+shown+":") && !strings.Contains(errs, shown+" has no such tag") ||
			strings.Contains(errs, filepath.Join(dir, "runner")) {
			t.Errorf("gavel %s: exit %d: %s", strings.Join(argv, " "), code, errs)
		}
	}

	release, err := st.LockRun(ctx)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, "run", url)
	release()
	if code != 1 || !strings.Contains(errs, "another gavel run is judging the team session") {
		t.Errorf("a run beside another: exit %d: %s", code, errs)
	}
}

// answerServer speaks the chat completions format, answering docqa's
// "result: YES", and calls hook (when set) with the request's number
// (from 1) and context before answering.
func answerServer(t *testing.T, hook func(ctx context.Context, n int64)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		n := calls.Add(1)
		if hook != nil {
			hook(r.Context(), n)
		}
		if r.Context().Err() != nil {
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprint("cmpl-", n), "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "reason: compared with the standard answer.\nresult: YES"}}},
			"usage": map[string]any{"prompt_tokens": 3000, "completion_tokens": 10, "total_tokens": 3010},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// runKeyed runs gavel under ctx with an API key in the environment and
// returns the exit code and stderr.
func runKeyed(t *testing.T, ctx context.Context, argv ...string) (int, string) {
	t.Helper()
	e, _, errb, _ := testEnv(t)
	getenv := e.getenv
	e.getenv = func(k string) string {
		if k == "OPENAI_API_KEY" {
			return testKey
		}
		return getenv(k)
	}
	code := execute(ctx, e, argv)
	return code, errb.String()
}

// A gavel run on a team session interrupted halfway keeps what it
// received there; run again, it sends only the items left: every item
// judged once, one verdict each in PostgreSQL.
func TestRunTeamResume(t *testing.T) {
	srv := pgtest.Shared(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	data := writeDataset(t, dir, 20)
	url, st := teamItems(t, srv, data)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The requests in flight at the interrupt are left to finish (their
	// answers would go to the cache): they end with the test.
	inFlight := make(chan struct{})
	defer close(inFlight)
	llmSrv, calls := answerServer(t, func(rctx context.Context, n int64) {
		if n > 8 {
			if n == 10 {
				cancel() // Ctrl-C, with two requests in flight
			}
			select {
			case <-rctx.Done():
			case <-inFlight:
			}
		}
	})
	argv := []string{"run", url, "--judge", "docqa", "--base-url", llmSrv.URL + "/v1", "--model", "m", "--concurrency", "2"}
	code, errs := runKeyed(t, ctx, argv...)
	if code == 0 || !strings.Contains(errs, "interrupted") {
		t.Fatalf("interrupted run: exit %d: %s", code, errs)
	}
	first := countVerdicts(t, st)
	if len(first) != 8 {
		t.Errorf("the interrupted run saved %d verdicts, want the 8 answered", len(first))
	}

	llmSrv2, calls2 := answerServer(t, nil)
	argv[5] = llmSrv2.URL + "/v1"
	code, errs = runKeyed(t, context.Background(), argv...)
	if code != 0 || !strings.Contains(errs, "12 of 12 tasks judged") {
		t.Fatalf("resumed run: exit %d: %s", code, errs)
	}
	if calls.Load() != 10 || calls2.Load() != 12 {
		t.Errorf("%d requests, then %d: want 10 (8 answered) and 12", calls.Load(), calls2.Load())
	}
	all := countVerdicts(t, st)
	if len(all) != 20 {
		t.Errorf("%d items judged in PostgreSQL, want 20", len(all))
	}
	for id, n := range all {
		if n != 1 {
			t.Errorf("item %s has %d verdicts", id, n)
		}
	}
}

// The server stops and starts again while gavel run writes to the team
// session: the run waits for it and goes on; no verdict is lost or
// written twice, and a reviewer's replica pulls them all.
func TestRunTeamServerRestart(t *testing.T) {
	srv := pgtest.Start(t)
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "ana"))
	data := writeDataset(t, dir, 40)
	url, st := teamItems(t, srv, data)
	ctx := context.Background()
	rv, rep, err := pg.OpenReview(ctx, st, "ana")
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "runner"))

	restarted := make(chan error, 1)
	llmSrv, _ := answerServer(t, func(_ context.Context, n int64) {
		time.Sleep(40 * time.Millisecond)
		if n == 10 {
			go func() {
				if err := srv.StopErr(); err != nil {
					restarted <- err
					return
				}
				time.Sleep(1500 * time.Millisecond)
				restarted <- srv.StartErr()
			}()
		}
	})
	began := time.Now()
	code, errs := runKeyed(t, ctx, "run", url, "--judge", "docqa", "--base-url", llmSrv.URL+"/v1", "--model", "m", "--concurrency", "2")
	t.Log(time.Since(began), errs)
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	if code != 0 || !strings.Contains(errs, "40 of 40 tasks judged — 40 ok") {
		t.Fatalf("run through a restart: exit %d: %s", code, errs)
	}
	all := countVerdicts(t, st)
	if len(all) != 40 {
		t.Errorf("%d items judged in PostgreSQL, want 40", len(all))
	}
	for id, n := range all {
		if n != 1 {
			t.Errorf("item %s has %d verdicts", id, n)
		}
	}
	p, err := rep.Pull(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Verdicts) != 40 {
		t.Errorf("the reviewer pulled %d verdicts, want 40", len(p.Verdicts))
	}
}

// gavel run URL --batch: interrupted while its batch runs, then run
// again on the same machine, it follows the batch (sent once) and the
// team session holds one verdict per item.
func TestRunTeamBatch(t *testing.T) {
	pgSrv := pgtest.Shared(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := newBatchAPI(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 12)
	url, st := teamItems(t, pgSrv, data)
	e, errb := batchEnv(t)
	argv := []string{"run", url, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "gpt-4o-mini", "--batch"}
	ctx, cancel := context.WithCancel(context.Background())
	srv.setHooks(nil, cancel) // interrupted during the first look at the batch
	if code := execute(ctx, e, argv); code != 1 || !strings.Contains(errb.String(), "this machine's copy of the team session") {
		t.Fatalf("interrupted run: exit %d: %s", code, errb)
	}
	srv.setHooks(nil, nil)
	errb.Reset()
	if code := execute(context.Background(), e, argv); code != 0 || !strings.Contains(errb.String(), "12 of 12 tasks judged from the batches' answers — 12 ok") {
		t.Fatalf("second run: exit %d: %s", code, errb)
	}
	if _, batches, most := srv.counts(); batches != 1 || most != 1 {
		t.Errorf("%d batches, a chunk created %d times", batches, most)
	}
	all := countVerdicts(t, st)
	if len(all) != 12 {
		t.Errorf("%d items judged in PostgreSQL, want 12", len(all))
	}
	for id, n := range all {
		if n != 1 {
			t.Errorf("item %s has %d verdicts", id, n)
		}
	}
}

// A dataset file with a team session, or a team session with --session,
// is refused with what to do; a server that does not answer is said
// without the URL's password.
func TestRunTeamRefusals(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	data := writeDataset(t, dir, 3)
	url := "postgres://ana:s3cret@127.0.0.1:1/gavel?session=evals&connect_timeout=2"
	for _, tc := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"run", data, "--session", url}, 2, "a team session holds its items: judge them with gavel run 'postgres://ana:xxxxx@"},
		{[]string{"run", url, "--session", filepath.Join(dir, "x.gavel")}, 2, "leave out --session"},
		{[]string{"run", url}, 1, "127.0.0.1:1"},
	} {
		code, _, errs := run(t, tc.argv...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("gavel %s: exit %d, want %d with %q: %s", strings.Join(tc.argv, " "), code, tc.code, tc.want, errs)
		}
		if strings.Contains(errs, "s3cret") {
			t.Errorf("the password was printed: %s", errs)
		}
	}
}
