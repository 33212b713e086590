package pg

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions"
)

// gavel label's writes on a team session wait for a server that stops
// and starts again: the label, then an undo of it, are each written once,
// in the team session and the replica; the undo takes back the latest
// live group on the item, its actions on that item only.
func TestLabelWritesWaitForTheServer(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.URL(pgtest.Name(t))
	teamSession(t, url)
	rv, ana := openAs(t, url, "ana")
	ana.timeout = 2 * time.Second
	ctx := context.Background()

	restart := func() <-chan error {
		srv.Stop(t)
		done := make(chan error, 1)
		go func() {
			time.Sleep(time.Second)
			done <- srv.StartErr()
		}()
		return done
	}
	first := []sessions.Action{
		{Kind: sessions.KindLabel, ItemID: "q2", Dimension: "correct", Value: 1, Via: "script"},
		{Kind: sessions.KindNote, ItemID: "q2", Note: "on q2", Via: "script"},
		{Kind: sessions.KindNote, ItemID: "q3", Note: "on q3", Via: "script"},
	}
	if _, err := ana.RecordWaiting(ctx, first); err != nil {
		t.Fatal(err)
	}
	acts := []sessions.Action{{Kind: sessions.KindLabel, ItemID: "q1", Dimension: "correct", Value: 0, Via: "script"}}
	up := restart()
	stored, err := ana.RecordWaiting(ctx, acts)
	if err != nil {
		t.Fatalf("label through a restart: %v", err)
	}
	if err := <-up; err != nil {
		t.Fatal(err)
	}
	up = restart()
	undone, err := ana.UndoItem(ctx, "q2")
	if err != nil {
		t.Fatalf("undo through a restart: %v", err)
	}
	if err := <-up; err != nil {
		t.Fatal(err)
	}
	if len(undone) != 2 || undone[0].ItemID != "q2" || undone[1].ItemID != "q2" {
		t.Errorf("undone %+v, want the label and note on q2", undone)
	}
	if again, err := ana.UndoItem(ctx, "q4"); err != nil || again != nil {
		t.Errorf("undo with nothing on q4: %v, %v", again, err)
	}

	all, err := ana.src.Actions(ctx, "ana")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		t.Errorf("the team session holds %d actions of ana, want 6 (3, 1, 2 undos): %+v", len(all), all)
	}
	local, err := rv.Store.Actions("ana")
	if err != nil {
		t.Fatal(err)
	}
	id := func(a sessions.Action) int64 { return a.ID }
	if !slices.Equal(sliceMap(all, id), sliceMap(local, id)) {
		t.Errorf("ids: the team session's %v, the replica's %v", sliceMap(all, id), sliceMap(local, id))
	}
	if l := labelsOf(t, rv.Store, "ana"); !slices.Equal(l, []string{"q1=0"}) || stored[0].ID == 0 {
		t.Errorf("ana's labels in the replica: %v", l)
	}
}

func sliceMap[T, U any](s []T, f func(T) U) []U {
	out := make([]U, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}
