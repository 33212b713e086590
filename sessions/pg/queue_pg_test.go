package pg_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/queuetest"
)

func queueLabel(id string) sessions.Action {
	return sessions.Action{Kind: sessions.KindLabel, ItemID: id, Dimension: queuetest.Binary, Value: 1, Via: "queue"}
}

// A RecordAs called again with the same slice — after an error whose
// outcome the caller cannot know — writes nothing twice; ids reserved
// beforehand are used as given; an id another action holds is refused.
// The rows written copy back to SQLite as the history PostgreSQL reads.
func TestRecordAsRetry(t *testing.T) {
	ctx := context.Background()
	q := openQueue(t, pgtest.Shared(t))
	defer q.Close()
	st := q.Store()
	ids := queuetest.ItemIDs()
	acts := []sessions.Action{queueLabel(ids[0]), {Kind: sessions.KindNote, ItemID: ids[0], Note: "nul \x00 and \xff", Via: "queue"},
		{Kind: sessions.KindLabel, ItemID: ids[9], Dimension: queuetest.Nominal, Value: 2, Via: "queue"}}
	first, err := st.RecordAs(ctx, "ana", acts)
	if err != nil {
		t.Fatal(err)
	}
	if acts[0].ID == 0 || acts[0].ID != first[0].ID || acts[2].Group != first[0].ID || first[1].Group != first[0].ID {
		t.Fatalf("ids not kept in the caller's slice: %+v / %+v", acts, first)
	}
	again, err := st.RecordAs(ctx, "ana", acts)
	if err != nil || !reflect.DeepEqual(again, first) {
		t.Fatalf("retry: %v\n%+v\nwant %+v", err, again, first)
	}
	reserved, err := st.ReserveActionIDs(ctx, 2)
	if err != nil || len(reserved) != 2 || reserved[0] <= first[2].ID || reserved[1] <= reserved[0] {
		t.Fatalf("reserved %v %v", reserved, err)
	}
	preset := []sessions.Action{queueLabel(ids[1]), queueLabel(ids[2])}
	preset[0].ID, preset[1].ID = reserved[0], reserved[1]
	for range 2 {
		out, err := st.RecordAs(ctx, "bo", preset)
		if err != nil || out[0].ID != reserved[0] || out[1].Group != reserved[0] {
			t.Fatalf("preset ids: %+v %v", out, err)
		}
	}
	all, err := st.Actions(ctx, "")
	if err != nil || len(all) != 5 {
		t.Fatalf("%d actions after retries (%v), want 5", len(all), err)
	}
	taken := []sessions.Action{queueLabel(ids[3])}
	taken[0].ID = first[0].ID
	if _, err := st.RecordAs(ctx, "ana", taken); err == nil || !strings.Contains(err.Error(), "taken by another action") {
		t.Errorf("an id another action holds: %v", err)
	}
	mixed := []sessions.Action{queueLabel(ids[3]), queueLabel(ids[4])}
	mixed[0].ID = reserved[1] + 1000
	if _, err := st.RecordAs(ctx, "ana", mixed); err == nil {
		t.Error("a group with some ids set was accepted")
	}

	// Undo rows: idempotent with their ids, never twice for one action.
	undo := []sessions.Action{{Kind: sessions.KindUndo, Undoes: first[0].ID}, {Kind: sessions.KindUndo, Undoes: first[2].ID}}
	u1, err := st.RecordUndo(ctx, "ana", undo)
	if err != nil || len(u1) != 2 || u1[0].ItemID != ids[0] || u1[1].Dimension != queuetest.Nominal {
		t.Fatalf("undo: %+v %v", u1, err)
	}
	if u2, err := st.RecordUndo(ctx, "ana", undo); err != nil || !reflect.DeepEqual(u2, u1) {
		t.Errorf("undo retried: %+v %v", u2, err)
	}
	for _, bad := range []struct {
		who string
		u   sessions.Action
	}{
		{"ana", sessions.Action{Kind: sessions.KindUndo, Undoes: first[0].ID}}, // undone already
		{"ana", sessions.Action{Kind: sessions.KindUndo, Undoes: reserved[0]}}, // bo's
		{"ana", sessions.Action{Kind: sessions.KindUndo, Undoes: u1[0].ID}},    // an undo
		{"ana", sessions.Action{Kind: sessions.KindUndo, Undoes: 99999}},
	} {
		if _, err := st.RecordUndo(ctx, bad.who, []sessions.Action{bad.u}); err == nil {
			t.Errorf("undo of %d accepted", bad.u.Undoes)
		}
	}
	if undone, err := st.UndoItemAs(ctx, "bo", ids[2]); err != nil || len(undone) != 1 || undone[0].ID != reserved[1] {
		t.Errorf("undo item: %+v %v", undone, err)
	}

	// Copied back to SQLite, the history reads the same.
	want, err := st.Actions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "back.gavel")
	if _, err := pg.CopyToSQLite(ctx, st, path); err != nil {
		t.Fatal(err)
	}
	back, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	got, err := back.Actions("")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("copied back (%v):\n%+v\nwant\n%+v", err, got, want)
	}
}

// A session copied from a Gavel before schema v10 has no queue tables:
// Assign makes them as the copy would have, and the session is v10.
func TestQueueTablesMadeWhenMissing(t *testing.T) {
	ctx := context.Background()
	q := openQueue(t, pgtest.Shared(t))
	defer q.Close()
	st := q.Store()
	schema := st.Target().Schema
	layout := func() []string {
		t.Helper()
		rows, err := st.Pool().Query(ctx, `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '')
			FROM information_schema.columns WHERE table_schema = $1 AND table_name LIKE 'queue%' ORDER BY table_name, ordinal_position`, schema)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		rows.Close()
		rows, err = st.Pool().Query(ctx, `SELECT r.relname || ' ' || c.contype::text || ' ' || pg_get_constraintdef(c.oid)
			FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
			WHERE c.connamespace = $1::regnamespace AND r.relname LIKE 'queue%' ORDER BY 1`, schema)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		rows.Close()
		return out
	}
	copied := layout()
	if len(copied) < 10 {
		t.Fatalf("the copy made no queue tables: %v", copied)
	}
	for _, stmt := range []string{`DROP TABLE queue_slots`, `DROP TABLE queue_settings`, `UPDATE gavel_meta SET value = '9' WHERE key = 'schema_version'`} {
		if _, err := st.Pool().Exec(ctx, `BEGIN; SET LOCAL search_path TO `+schema+`; `+stmt+`; COMMIT`); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Progress(); !errors.Is(err, sessions.ErrNoQueue) {
		t.Errorf("progress without the tables: %v", err)
	}
	if _, err := q.Assign(sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Overlap: 0.5, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if made := layout(); !reflect.DeepEqual(made, copied) {
		t.Errorf("made:\n%s\ncopied:\n%s", strings.Join(made, "\n"), strings.Join(copied, "\n"))
	}
	var v string
	if err := st.Pool().QueryRow(ctx, `SELECT value FROM `+schema+`.gavel_meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != "10" {
		t.Errorf("schema_version %q %v", v, err)
	}
	// And it copies back.
	if _, err := pg.CopyToSQLite(ctx, st, filepath.Join(t.TempDir(), "back.gavel")); err != nil {
		t.Error(err)
	}
}

// teamSession is a SQLite session of n items with a binary judge.
func teamSession(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "team.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	items := make([]judge.Item, n)
	for i := range items {
		items[i] = judge.Item{Index: i, ID: fmt.Sprintf("t%04d", i), Question: "q", Gold: "g", Prediction: "p"}
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "team.jsonl", SHA256: "abc", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureRun(judge.Info{Name: "grader", Model: "m", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}); err != nil {
		t.Fatal(err)
	}
	return path
}

// Five annotators label 200 items each at once from one queue, while a
// judge run elsewhere saves verdicts, and the server is stopped and
// started again: writers retry (a claim or a label whose commit may or may
// not be in is called again as it was; SaveVerdicts retries itself), and
// at the end every label a RecordAs confirmed is there exactly once,
// nothing else is, every slot is done, no item went to more people than
// its slots, and every verdict batch confirmed is there once.
func TestQueueFiveAnnotatorsThroughRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("a PostgreSQL restart under load: not in -short")
	}
	ctx := context.Background()
	srv := pgtest.Start(t)
	st, err := pg.Connect(ctx, srv.URL("team"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := pg.CopyFromSQLite(ctx, teamSession(t, 800), st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	team := []string{"ana", "bo", "cy", "di", "ed"}
	sum, err := st.Assign(ctx, sessions.AssignOptions{Annotators: team, Overlap: 0.25, Seed: 15})
	if err != nil || sum.Overlap != 200 {
		t.Fatalf("assign: %+v %v", sum, err)
	}
	for _, a := range sum.Annotators {
		if a.Slots != 200 {
			t.Fatalf("%s has %d slots, want 200", a.Annotator, a.Slots)
		}
	}

	deadline := time.Now().Add(3 * time.Minute)
	var (
		mu        sync.Mutex
		confirmed = map[int64]sessions.Action{}
		labels    atomic.Int64
		failures  atomic.Int64
		restarted = make(chan error, 1)
	)
	retry := func(what string, fn func() error) error {
		for {
			err := fn()
			if err == nil {
				return nil
			}
			if isRefusal(err) || time.Now().After(deadline) {
				return fmt.Errorf("%s: %w", what, err)
			}
			failures.Add(1)
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The judge: two passes over the items (the second re-judges), ten
	// verdicts a call.
	run, err := st.EnsureRun(ctx, judge.Info{Name: "grader", Model: "m", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	var verdicts, atRestart atomic.Int64
	judged := make(chan error, 1)
	go func() {
		for pass := range 2 {
			for i := 0; i < 800; i += 10 {
				var vs []judge.Verdict
				for j := i; j < i+10; j++ {
					vs = append(vs, judge.Verdict{ItemID: fmt.Sprintf("t%04d", j), Status: judge.StatusOK,
						Values: map[string]float64{"correct": float64((j + pass) % 2)}, Reason: fmt.Sprintf("pass %d", pass)})
				}
				if err := retry("verdicts", func() error { return st.SaveVerdicts(ctx, run.ID, vs) }); err != nil {
					judged <- err
					return
				}
				verdicts.Add(int64(len(vs)))
				time.Sleep(2 * time.Millisecond)
			}
		}
		judged <- nil
	}()
	go func() {
		for labels.Load() < 300 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		atRestart.Store(verdicts.Load())
		restarted <- srv.RestartErr()
	}()
	var wg sync.WaitGroup
	errs := make(chan error, len(team))
	start := make(chan struct{})
	for _, a := range team {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for {
				var ids []string
				if err := retry("claim", func() (err error) { ids, err = st.Claim(ctx, a, 5); return err }); err != nil {
					errs <- err
					return
				}
				if len(ids) == 0 {
					return
				}
				for _, id := range ids {
					acts := []sessions.Action{queueLabel(id)}
					var out []sessions.Action
					if err := retry("label", func() (err error) { out, err = st.RecordAs(ctx, a, acts); return err }); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					if _, dup := confirmed[out[0].ID]; dup {
						errs <- fmt.Errorf("id %d confirmed twice", out[0].ID)
					}
					confirmed[out[0].ID] = out[0]
					mu.Unlock()
					labels.Add(1)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := <-restarted; err != nil {
		t.Fatalf("restart: %v", err)
	}
	if err := <-judged; err != nil {
		t.Error(err)
	}
	t.Logf("%d labels, %d failed calls retried across the restart; %d of 1600 verdicts saved when it began", labels.Load(), failures.Load(), atRestart.Load())
	if v := atRestart.Load(); v == 0 || v == 1600 {
		t.Errorf("the judge was not writing when the server restarted (%d verdicts saved then)", v)
	}
	if failures.Load() == 0 {
		t.Error("the restart failed no call: it did not happen under load")
	}

	var all []sessions.Action
	if err := retry("reading", func() (err error) { all, err = st.Actions(ctx, ""); return err }); err != nil {
		t.Fatal(err)
	}
	if len(all) != 1000 || len(confirmed) != 1000 {
		t.Errorf("%d actions stored, %d confirmed; want 1000 each", len(all), len(confirmed))
	}
	byItem := map[string][]string{}
	for _, a := range all {
		c, ok := confirmed[a.ID]
		if !ok || c.ItemID != a.ItemID || c.Annotator != a.Annotator {
			t.Errorf("stored action %d (%s on %s) was not confirmed as such", a.ID, a.Annotator, a.ItemID)
		}
		byItem[a.ItemID] = append(byItem[a.ItemID], a.Annotator)
	}
	slots, err := st.QueueSlots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nslots := map[string]int{}
	for _, s := range slots {
		nslots[s.ItemID]++
	}
	for id, n := range nslots {
		who := byItem[id]
		sorted := slices.Clone(who)
		slices.Sort(sorted)
		if len(who) != n || len(slices.Compact(sorted)) != n {
			t.Errorf("item %s: labelled by %v, it has %d slots", id, who, n)
		}
	}
	var nVerdicts, items, latest int
	err = st.Pool().QueryRow(ctx, `SELECT count(*), count(DISTINCT item_id), count(*) FILTER (WHERE reason = 'pass 1') FROM `+
		pgx.Identifier{st.Target().Schema, "verdicts"}.Sanitize()+` WHERE run_id = $1`, run.ID).Scan(&nVerdicts, &items, &latest)
	if err != nil || nVerdicts != 1600 || verdicts.Load() != 1600 || items != 800 || latest != 800 {
		t.Errorf("verdicts: %d stored (%d items, %d of the second pass), %d confirmed, %v; want 1600, 800, 800, 1600",
			nVerdicts, items, latest, verdicts.Load(), err)
	}
	progress, err := st.Progress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, p := range progress {
		done += p.Done
		if p.Claimed != 0 {
			t.Errorf("%s still holds %d slots", p.Annotator, p.Claimed)
		}
	}
	if done != 1000 {
		t.Errorf("%d slots done, want 1000: %+v", done, progress)
	}
}

// isRefusal tells the queue's own refusals (no retry helps) from failures
// of the connection.
func isRefusal(err error) bool {
	for _, e := range []error{sessions.ErrNoQueue, sessions.ErrNotInTeam, sessions.ErrQueueExists, sessions.ErrAssign} {
		if errors.Is(err, e) {
			return true
		}
	}
	return strings.Contains(err.Error(), "taken by another action")
}

// RecordAs and Assign tell listeners on the session's channel what they
// wrote, when they commit.
func TestQueueWritesNotify(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Shared(t)
	q := openQueue(t, srv)
	defer q.Close()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{"gavel_" + q.Store().Target().Session}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	wait := func() string {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		n, err := conn.WaitForNotification(wctx)
		if err != nil {
			t.Fatal(err)
		}
		return n.Payload
	}
	if _, err := q.Assign(sessions.AssignOptions{Annotators: []string{"ana"}, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if got := wait(); got != "queue_slots:0" {
		t.Errorf("assign notified %q", got)
	}
	out, err := q.RecordAs("ana", []sessions.Action{queueLabel(queuetest.ItemIDs()[0]), queueLabel(queuetest.ItemIDs()[1])})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wait(), fmt.Sprintf("actions:%d", out[1].ID); got != want {
		t.Errorf("RecordAs notified %q, want %q", got, want)
	}
	// A refused write sends nothing.
	if _, err := q.RecordAs("ana", []sessions.Action{queueLabel("no such item")}); err == nil {
		t.Fatal("unknown item accepted")
	}
	undone, err := q.UndoItemAs("ana", queuetest.ItemIDs()[0])
	if err != nil || len(undone) != 1 {
		t.Fatalf("undo: %+v %v", undone, err)
	}
	if got, want := wait(), fmt.Sprintf("actions:%d", out[1].ID+2); got != want {
		t.Errorf("undo notified %q, want %q (the refused write's ids are not reused)", got, want)
	}
}
