package pg_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// itemsSession writes a session with items only (one id with a NUL, one
// with invalid UTF-8).
func itemsSession(t *testing.T) (string, []judge.Item) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "items.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	var items []judge.Item
	for i := range 12 {
		id := fmt.Sprintf("it%02d", i)
		switch i {
		case 3:
			id = "nul\x00id"
		case 4:
			id = "bad\xffid"
		}
		items = append(items, judge.Item{Index: i, ID: id, Question: "q", Gold: "g", Prediction: "p", Rubric: []string{"a", "b"}})
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "x.jsonl", SHA256: "x", Format: "jsonl", Items: len(items)}, items); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, items
}

// judgeWork is what a judge run writes: runs ensured, batches of
// verdicts, a run ensured again with a new description.
type judgeWork struct {
	infos   []judge.Info
	batches [][]judge.Verdict // for infos[i%len]
	again   judge.Info
}

func work(items []judge.Item) judgeWork {
	conf := func(x float64) *float64 { return &x }
	grade := judge.Dimension{Name: "grade", Scale: judge.Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED")}
	pair := judge.Dimension{Name: "preference", Scale: judge.Pairwise}
	w := judgeWork{infos: []judge.Info{
		{Name: "docqa", Model: "m\x00odel", Params: map[string]any{"temperature": 0.2, "b": []any{1, "x"}}, Description: "d \xff",
			Definition: "def", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}, grade}},
		{Name: "rubric", PerCriterion: true, Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Likert, Description: "1-5"}}},
		{Name: "pairs", Dimensions: []judge.Dimension{pair}},
	}}
	at := time.Date(2026, 5, 6, 7, 8, 9, 10e6, time.UTC)
	var b0, b1, b2 []judge.Verdict
	for i, it := range items {
		v := judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2), "grade": float64(i % 3), "none": math.NaN()},
			Reason: "r \x00 " + it.ID, Raw: "raw", Model: "m", PromptTokens: i, CompletionTokens: 2 * i, Latency: time.Duration(i) * time.Millisecond / 3,
			Extra: map[string]any{"k": []any{1, "two"}}, At: at}
		switch i % 3 {
		case 0:
			v.Confidence = conf(0.5)
		case 1:
			v.Confidence, v.At = conf(math.NaN()), time.Time{}
		}
		if i == 5 {
			v.Status, v.Values, v.Error = judge.StatusAPIError, nil, "timeout"
		}
		b0 = append(b0, v)
		for c := range 3 {
			b1 = append(b1, judge.Verdict{ItemID: it.ID, Criterion: c, Status: judge.StatusOK, Values: map[string]float64{"score": float64(1 + (i+c)%5)}, At: at})
		}
		b2 = append(b2, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"preference": float64(i % 3)}, At: at},
			judge.Verdict{ItemID: it.ID, Swapped: true, Status: judge.StatusOK, Values: map[string]float64{"preference": float64((i + 1) % 3)}, At: at})
	}
	w.batches = [][]judge.Verdict{b0, b1, b2, b0[:4]} // the last: re-judges
	w.again = w.infos[0]
	w.again.Description = "changed \x00"
	w.again.Definition = ""
	w.again.Dimensions = w.again.Dimensions[:1]
	return w
}

// stamps are the times a dump shows, masked for comparing two runs made
// at different moments.
var stamps = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"`)

func masked(d map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, lines := range d {
		for _, l := range lines {
			out[k] = append(out[k], stamps.ReplaceAllString(l, `"TIME"`))
		}
	}
	return out
}

// A judge run's runs and verdicts written to PostgreSQL (EnsureRun,
// SaveVerdicts), copied to SQLite, are the rows sessions' store writes
// for the same calls: every table equal, times aside (and the times the
// verdicts carry equal too).
func TestSaveVerdictsLikeSQLite(t *testing.T) {
	ctx := context.Background()
	base, items := itemsSession(t)
	w := work(items)

	local := filepath.Join(t.TempDir(), "local.gavel")
	if err := sessions.CopyFile(base, local); err != nil {
		t.Fatal(err)
	}
	s, err := sessions.Open(local, sessions.Options{Annotator: "runner"})
	if err != nil {
		t.Fatal(err)
	}
	var localRuns []sessions.Run
	for _, info := range w.infos {
		r, err := s.EnsureRun(info)
		if err != nil {
			t.Fatal(err)
		}
		localRuns = append(localRuns, r)
	}
	for i, b := range w.batches {
		if err := s.SaveVerdicts(localRuns[i%len(localRuns)].ID, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.EnsureRun(w.again); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(localRuns[0].ID, []judge.Verdict{{ItemID: "no such item", Status: judge.StatusOK}}); err == nil {
		t.Fatal("SQLite saved a verdict for an unknown item")
	}
	s.Close()

	st := connect(t)
	if _, err := pg.CopyFromSQLite(ctx, base, st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	var runs []sessions.Run
	for i, info := range w.infos {
		r, err := st.EnsureRun(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != localRuns[i].ID || r.Key != localRuns[i].Key || r.CreatedAt.IsZero() {
			t.Errorf("run %d: %+v, SQLite's %+v", i, r, localRuns[i])
		}
		runs = append(runs, r)
	}
	for i, b := range w.batches {
		if err := st.SaveVerdicts(ctx, runs[i%len(runs)].ID, b); err != nil {
			t.Fatal(err)
		}
	}
	again, err := st.EnsureRun(ctx, w.again)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != runs[0].ID || !again.CreatedAt.Equal(runs[0].CreatedAt) {
		t.Errorf("ensured again: %+v, first %+v", again, runs[0])
	}
	err = st.SaveVerdicts(ctx, runs[0].ID, []judge.Verdict{{ItemID: "no such item", Status: judge.StatusOK}})
	mustFail(t, err, `verdict for unknown item "no such item"`)
	err = st.SaveVerdicts(ctx, 999, []judge.Verdict{{ItemID: items[0].ID, Status: judge.StatusOK}})
	mustFail(t, err, "no judge run 999")
	_, err = st.EnsureRun(ctx, judge.Info{Name: "other", Dimensions: []judge.Dimension{{Name: "grade", Scale: judge.Scale("nominal:A,B")}}})
	mustFail(t, err, `dimension "grade" is on the scale`)

	back := filepath.Join(t.TempDir(), "back.gavel")
	if _, err := pg.CopyToSQLite(ctx, st, back); err != nil {
		t.Fatal(err)
	}
	want, got := dump(t, local), dump(t, back)
	for _, tb := range []string{"verdicts", "verdict_values", "runs", "run_dimensions", "dimension_scales"} {
		if len(want[tb]) == 0 {
			t.Errorf("no %s written: the test covers less than it says", tb)
		}
	}
	sameDump(t, masked(want), masked(got))
	// The verdicts' own times are kept, not masked away.
	at := `"2026-05-06T07:08:09.010Z"`
	if n, m := countContaining(want["verdicts"], at), countContaining(got["verdicts"], at); n == 0 || n != m {
		t.Errorf("%d verdicts at their own time, %d in the copy", n, m)
	}
}

func countContaining(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if regexp.MustCompile(regexp.QuoteMeta(s)).MatchString(l) {
			n++
		}
	}
	return n
}

// Writers ensuring one run at once get one run; each call's verdicts are
// written once; every write is announced on the session's channel.
func TestEnsureRunAndSaveVerdictsConcurrently(t *testing.T) {
	ctx := context.Background()
	base, items := itemsSession(t)
	st := connect(t)
	if _, err := pg.CopyFromSQLite(ctx, base, st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	listen, err := pgx.Connect(ctx, pgtest.Shared(t).ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer listen.Close(ctx)
	if _, err := listen.Exec(ctx, `LISTEN `+pgx.Identifier{"gavel_" + st.Target().Session}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	info := judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}
	var wg sync.WaitGroup
	ids := make([]int64, 6)
	errs := make([]error, 6)
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := st.EnsureRun(ctx, info)
			if err != nil {
				errs[g] = err
				return
			}
			ids[g] = r.ID
			var vs []judge.Verdict
			for _, it := range items {
				vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(g % 2)}})
			}
			errs[g] = st.SaveVerdicts(ctx, r.ID, vs)
		}()
	}
	wg.Wait()
	for g := range 6 {
		if errs[g] != nil {
			t.Fatal(errs[g])
		}
		if ids[g] != ids[0] {
			t.Errorf("writers got runs %v", ids)
		}
	}
	var runs, verdicts, values int
	q := func(sql string, n *int) {
		if err := st.Pool().QueryRow(ctx, sql).Scan(n); err != nil {
			t.Fatal(err)
		}
	}
	schema := pgx.Identifier{st.Target().Schema}.Sanitize()
	q(`SELECT count(*) FROM `+schema+`.runs`, &runs)
	q(`SELECT count(DISTINCT id) FROM `+schema+`.verdicts`, &verdicts)
	q(`SELECT count(*) FROM `+schema+`.verdict_values`, &values)
	if runs != 1 || verdicts != 6*len(items) || values != 6*len(items) {
		t.Errorf("%d runs, %d verdicts, %d values; want 1, %d, %d", runs, verdicts, values, 6*len(items), 6*len(items))
	}
	got := map[string]bool{}
	deadline, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for !got["verdicts"] || !got["runs"] {
		n, err := listen.WaitForNotification(deadline)
		if err != nil {
			t.Fatalf("notifications so far %v: %v", got, err)
		}
		var table string
		var id int64
		if _, err := fmt.Sscanf(n.Payload, "%s", &table); err == nil {
			for i := range table {
				if table[i] == ':' {
					fmt.Sscanf(table[i+1:], "%d", &id)
					table = table[:i]
					break
				}
			}
		}
		if id <= 0 {
			t.Errorf("notification %q names no id", n.Payload)
		}
		got[table] = true
	}
}

// A judge run goes on through a server restart: SaveVerdicts waits for
// the server and writes each verdict once.
func TestSaveVerdictsThroughRestart(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)
	base, items := itemsSession(t)
	st, err := pg.Connect(ctx, srv.URL("restart"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := pg.CopyFromSQLite(ctx, base, st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	run, err := st.EnsureRun(ctx, judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	const batches = 40
	done := make(chan error, 1)
	go func() {
		for b := range batches {
			var vs []judge.Verdict
			for _, it := range items {
				vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(b % 2)}})
			}
			if err := st.SaveVerdicts(ctx, run.ID, vs); err != nil {
				done <- fmt.Errorf("batch %d: %w", b, err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		done <- nil
	}()
	time.Sleep(150 * time.Millisecond)
	if err := srv.StopErr(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the batches ended before the server stopped (%v): the test tries nothing", err)
	default:
	}
	time.Sleep(500 * time.Millisecond)
	if err := srv.StartErr(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var n, distinct int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), count(DISTINCT (item_id, id)) FROM gavel_restart.verdicts`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != batches*len(items) || distinct != n {
		t.Errorf("%d verdicts (%d distinct), want %d", n, distinct, batches*len(items))
	}
	var values int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM gavel_restart.verdict_values`).Scan(&values); err != nil || values != n {
		t.Errorf("%d values for %d verdicts (%v)", values, n, err)
	}
}
