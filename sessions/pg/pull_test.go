package pg

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// teamSession puts a small session (8 items, the match judge's verdicts
// on the first four) into PostgreSQL at url and returns its store.
func teamSession(t *testing.T, url string) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "team.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	var items []judge.Item
	for i := range 8 {
		items = append(items, judge.Item{Index: i, ID: fmt.Sprintf("q%d", i+1), Question: fmt.Sprintf("question %d", i+1), Gold: "gold", Prediction: "pred"})
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "team.jsonl", SHA256: "abc", Format: "jsonl", Items: len(items)}, items); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	var vs []judge.Verdict
	for _, it := range items[:4] {
		vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, At: time.Now()})
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dst, err := Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dst.Close)
	if _, err := CopyFromSQLite(ctx, path, dst, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	return dst
}

// openAs opens annotator's review of the team session at url, with its
// own cache folder (as on their own machine).
func openAs(t *testing.T, url, annotator string) (*sessions.Review, *Replica) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), annotator+"-cache"))
	ctx := context.Background()
	src, err := Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	rv, r, err := OpenReview(ctx, src, annotator)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rv.Store.Close() })
	return rv, r
}

// follow runs r.Follow until the test ends and returns its pulls.
func follow(t *testing.T, r *Replica) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	ch := make(chan error, 100)
	go func() {
		defer close(done)
		r.Follow(ctx, func(_ Pulled, err error) {
			select {
			case ch <- err:
			default:
			}
		})
	}()
	return ch
}

// within waits until cond holds, failing after d.
func within(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond))
	return time.Since(start)
}

func labelsOf(t *testing.T, s *sessions.Store, annotator string) []string {
	t.Helper()
	ls, err := s.Labels(annotator)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%s=%v", l.ItemID, l.Value))
	}
	return out
}

// Two annotators on one team session, each on their own replica: what
// one records is in the team session and the other's replica within
// seconds (LISTEN), undos too; verdicts a judge run saved come in with
// their values; ids taken before an earlier one committed are found
// once it commits.
func TestReplicaSeesOthers(t *testing.T) {
	url := pgtest.Shared(t).URL(pgtest.Name(t))
	src := teamSession(t, url)
	rvA, ana := openAs(t, url, "ana")
	rvB, bo := openAs(t, url, "bo")
	if rvA.Store.Path() == rvB.Store.Path() {
		t.Fatal("both replicas in one file")
	}
	if len(rvB.Items) != 8 || rvB.Info.Path != "team.jsonl" {
		t.Fatalf("bo's replica holds %d items of %q", len(rvB.Items), rvB.Info.Path)
	}
	pulls := follow(t, bo)

	label := func(item string, v float64) []sessions.Action {
		return []sessions.Action{{Kind: sessions.KindLabel, ItemID: item, Dimension: "correct", Value: v, Via: "queue"}}
	}
	got, err := ana.Record(label("q1", 1))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ID == 0 || got[0].Sitting != ana.Sitting() || got[0].Annotator != "ana" {
		t.Errorf("recorded %+v", got[0])
	}
	if l := labelsOf(t, rvA.Store, "ana"); !slices.Equal(l, []string{"q1=1"}) {
		t.Errorf("ana's replica: %v", l)
	}
	took := within(t, 5*time.Second, "bo's replica has ana's label", func() bool {
		return slices.Equal(labelsOf(t, rvB.Store, "ana"), []string{"q1=1"})
	})
	t.Logf("ana's label reached bo's replica in %v", took)

	// bo labels too; ana pulls by hand.
	if _, err := bo.Record(label("q1", 0)); err != nil {
		t.Fatal(err)
	}
	p, err := ana.Pull(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.ActionsBy["bo"] != 1 || !slices.Equal(labelsOf(t, rvA.Store, "bo"), []string{"q1=0"}) {
		t.Errorf("ana's pull: %+v, bo's labels %v", p, labelsOf(t, rvA.Store, "bo"))
	}

	// Undo: ana's label goes, everywhere.
	if undone, err := ana.Undo(); err != nil || len(undone) != 1 || undone[0].ItemID != "q1" {
		t.Fatalf("undo: %+v, %v", undone, err)
	}
	if undone, err := ana.Undo(); err != nil || undone != nil {
		t.Errorf("second undo: %+v, %v (nothing left)", undone, err)
	}
	within(t, 5*time.Second, "bo's replica sees the undo", func() bool { return len(labelsOf(t, rvB.Store, "ana")) == 0 })

	// A verdict saved by a judge run elsewhere: written by hand here, as
	// the team session's writer would, with its notification.
	ctx := context.Background()
	var vid int64
	if err := src.pool.QueryRow(ctx, `INSERT INTO `+src.table("verdicts")+` (run_id, item_id, criterion, swapped, status, reason, error, raw, model,
		prompt_tokens, completion_tokens, latency_ms, created_at) VALUES (1, 'q6', 0, 0, 'ok', 'r', '', '', '', 0, 0, 0, '2026-11-27T00:00:00.000Z') RETURNING id`).Scan(&vid); err != nil {
		t.Fatal(err)
	}
	if _, err := src.pool.Exec(ctx, `INSERT INTO `+src.table("verdict_values")+` (verdict_id, dimension, value) VALUES ($1, 'correct', 0)`, vid); err != nil {
		t.Fatal(err)
	}
	if _, err := src.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, src.target.Channel(), fmt.Sprintf("verdicts:%d", vid)); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, "bo's replica has the new verdict", func() bool {
		vs, err := rvB.Store.CurrentVerdictsOf([]int64{vid})
		return err == nil && len(vs[1]) == 1 && vs[1][0].ItemID == "q6" && vs[1][0].Values["correct"] == 0
	})

	// Ids reserved in one order, committed in the other: the later id is
	// pulled first, the earlier one found in its hole afterwards.
	ids, err := src.ReserveActionIDs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	late := label("q2", 1)
	late[0].ID, late[0].Group = ids[0], ids[0]
	early := label("q3", 0)
	early[0].ID, early[0].Group = ids[1], ids[1]
	if _, err := src.RecordAs(ctx, "cy", early); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, "cy's second label", func() bool { return slices.Equal(labelsOf(t, rvB.Store, "cy"), []string{"q3=0"}) })
	if _, err := src.RecordAs(ctx, "cy", late); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, "cy's first label, committed last", func() bool {
		return slices.Equal(labelsOf(t, rvB.Store, "cy"), []string{"q2=1", "q3=0"})
	})
	// Nothing doubled, everything equal to the team session's history.
	want, err := src.Actions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, rv := range []*sessions.Review{rvA, rvB} {
		ana.Pull(ctx)
		have, err := rv.Store.Actions("")
		if err != nil {
			t.Fatal(err)
		}
		if len(have) != len(want) {
			t.Errorf("%s holds %d actions, the team session %d", rv.Store.Path(), len(have), len(want))
		}
	}
	select {
	case err := <-pulls:
		if err != nil {
			t.Errorf("a pull failed: %v", err)
		}
	default:
	}
}

// The server stops mid-review: writes and pulls fail with a message
// that says so (no password), and once it is back the same key press is
// written once — also when its first commit went through unconfirmed.
func TestReplicaServerRestart(t *testing.T) {
	srv := pgtest.Start(t)
	url := strings.Replace(srv.URL(pgtest.Name(t)), "gavel@", "gavel:s3cret@", 1)
	teamSession(t, url)
	rvA, ana := openAs(t, url, "ana")
	_, bo := openAs(t, url, "bo")
	ana.timeout, bo.timeout = 3*time.Second, 3*time.Second
	acts := []sessions.Action{{Kind: sessions.KindLabel, ItemID: "q4", Dimension: "correct", Value: 1, Via: "order"}}
	srv.Stop(t)
	_, err := ana.Record(acts)
	if err == nil {
		t.Fatal("recorded while the server is down")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error shows the password: %v", err)
	}
	t.Logf("while down: %v", err)
	if _, err := bo.Pull(context.Background()); err == nil {
		t.Error("pulled while the server is down")
	}
	srv.Start(t)
	var stored []sessions.Action
	within(t, 20*time.Second, "the retried write", func() bool {
		stored, err = ana.Record(acts)
		return err == nil
	})
	if _, err := bo.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := labelsOf(t, bo.Local(), "ana"); !slices.Equal(l, []string{"q4=1"}) {
		t.Errorf("bo's replica: %v", l)
	}

	// A commit that went through but was never confirmed: the next call
	// with the same key press finds it and writes nothing more.
	again := []sessions.Action{{Kind: sessions.KindLabel, ItemID: "q5", Dimension: "correct", Value: 0, Via: "order"}}
	ana.pending = &pendingWrite{given: again, acts: slices.Clone(again)}
	ana.pending.acts[0].Sitting = ana.sitting
	if _, err := ana.src.RecordAs(context.Background(), "ana", ana.pending.acts); err != nil { // committed, the answer lost
		t.Fatal(err)
	}
	if _, err := ana.Record(again); err != nil {
		t.Fatal(err)
	}
	all, err := ana.src.Actions(context.Background(), "ana")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != stored[0].ID {
		t.Errorf("team session holds %d actions of ana (want 2, each once): %+v", len(all), all)
	}
	if l := labelsOf(t, rvA.Store, "ana"); !slices.Equal(l, []string{"q4=1", "q5=0"}) {
		t.Errorf("ana's replica: %v", l)
	}
}

// SyncReplica makes the local copy once and pulls into it after; a
// session copied anew under the same name gets a copy of its own.
func TestSyncReplica(t *testing.T) {
	url := pgtest.Shared(t).URL(pgtest.Name(t))
	src := teamSession(t, url)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	path, err := SyncReplica(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if dir, _ := ReplicaDir(); filepath.Dir(path) != dir {
		t.Errorf("replica at %s, not in %s", path, dir)
	}
	if _, err := src.RecordAs(ctx, "cy", []sessions.Action{{Kind: sessions.KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	// A judge run while nobody followed: 3,000 verdicts (re-judges of the
	// 8 items) come in with one sync.
	run, err := src.EnsureRun(ctx, judge.Info{Name: "docqa", Model: "m", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	var vs []judge.Verdict
	for i := range 3000 {
		vs = append(vs, judge.Verdict{ItemID: fmt.Sprintf("q%d", i%8+1), Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)},
			Reason: strings.Repeat("why ", 50), At: time.Now()})
	}
	if err := src.SaveVerdicts(ctx, run.ID, vs); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	again, err := SyncReplica(ctx, url)
	if err != nil || again != path {
		t.Fatalf("second sync: %s, %v (want %s)", again, err, path)
	}
	t.Logf("a sync bringing 3,000 verdicts: %v", time.Since(start).Round(time.Millisecond))
	var want, have int
	if err := src.pool.QueryRow(ctx, `SELECT count(*) FROM `+src.table("verdict_values")).Scan(&want); err != nil {
		t.Fatal(err)
	}
	db, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ReadSnapshot(func(tx *sql.Tx) error { return tx.QueryRow(`SELECT count(*) FROM verdict_values`).Scan(&have) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if have != want || want < 3000 {
		t.Errorf("the replica holds %d verdict values, the session %d", have, want)
	}
	s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if l := labelsOf(t, s, "cy"); !slices.Equal(l, []string{"q1=1"}) {
		t.Errorf("synced replica: %v", l)
	}
	s.Close()
	// The session replaced: a new copy, not a pull into the old one.
	if _, err := src.pool.Exec(ctx, `UPDATE `+src.table(MetaTable)+` SET value = 'another time' WHERE key = 'created_at'`); err != nil {
		t.Fatal(err)
	}
	other, err := SyncReplica(ctx, url)
	if err != nil || other == path {
		t.Errorf("after replacing: %s, %v", other, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Error(err)
	}
}

// Guidelines and tags a review brings are written to the team session
// first, then pulled: the other replica gets the same version, its text
// (a NUL too) as it was.
func TestReplicaGuidelinesAndTags(t *testing.T) {
	url := pgtest.Shared(t).URL(pgtest.Name(t))
	teamSession(t, url)
	rvA, ana := openAs(t, url, "ana")
	rvB, bo := openAs(t, url, "bo")
	ctx := context.Background()
	text := "# Guidelines\nA NUL \x00 and ✓.\n"
	if isNew, err := ana.AddGuidelines(ctx, text); err != nil || !isNew {
		t.Fatalf("AddGuidelines: %v, %v", isNew, err)
	}
	if isNew, err := bo.AddGuidelines(ctx, text); err != nil || isNew {
		t.Errorf("the same text again: new %v, %v", isNew, err)
	}
	if err := ana.AddTags(ctx, []string{"too strict", "format"}); err != nil {
		t.Fatal(err)
	}
	if _, err := bo.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	for _, rv := range []*sessions.Review{rvA, rvB} {
		vs, err := rv.Store.GuidelinesVersions()
		if err != nil || len(vs) != 1 || vs[0].Text != text || vs[0].ID == 0 {
			t.Errorf("%s: guidelines %+v, %v", rv.Store.Path(), vs, err)
		}
		tags, err := rv.Store.TagSet()
		if err != nil || !slices.Equal(tags, []string{"too strict", "format"}) {
			t.Errorf("%s: tags %v, %v", rv.Store.Path(), tags, err)
		}
	}
	if err := ana.AddTags(ctx, []string{"bad,tag"}); err == nil {
		t.Error("a tag with a comma was added")
	}
}
