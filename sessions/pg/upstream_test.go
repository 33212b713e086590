package pg

import (
	"context"
	"database/sql"
	"reflect"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// verdictIDs are the ids of a run's verdicts per item, in the team
// session and in the replica.
func verdictIDs(t *testing.T, src *Store, local *sessions.Store, runID int64) (team, replica map[string][]int64) {
	t.Helper()
	team, replica = map[string][]int64{}, map[string][]int64{}
	rows, err := src.pool.Query(context.Background(), `SELECT item_id, id FROM `+src.table("verdicts")+` WHERE run_id = $1 ORDER BY id`, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var item string
		var id int64
		if err := rows.Scan(&item, &id); err != nil {
			t.Fatal(err)
		}
		team[item] = append(team[item], id)
	}
	err = local.ReadSnapshot(func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT item_id, id FROM verdicts WHERE run_id = ? ORDER BY id`, runID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var item string
			var id int64
			if err := rows.Scan(&item, &id); err != nil {
				return err
			}
			replica[item] = append(replica[item], id)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return team, replica
}

// A replica with its upstream set writes judge runs to the team session
// first: a new run gets the team session's id and is in the replica, an
// existing one takes the judge's new description in both; verdicts go
// there and come back under the same ids; a batch whose write was
// committed but not confirmed, handed again with more verdicts after it
// (the judging's last try), is not written twice.
func TestUpstreamRunsAndVerdicts(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.URL(pgtest.Name(t))
	src := teamSession(t, url)
	rv, rep := openAs(t, url, "gavel run")
	local := rv.Store
	local.SetUpstream(rep.Upstream())
	ctx := context.Background()

	match := judge.Info{Name: "match", Description: "told anew", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}
	run, err := local.EnsureRun(match)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := local.Runs()
	if err != nil {
		t.Fatal(err)
	}
	if run.ID != 1 || len(runs) != 1 || runs[0].Info.Description != "told anew" {
		t.Errorf("the existing run: %+v; the replica's runs %+v", run, runs)
	}
	var desc string
	if err := src.pool.QueryRow(ctx, `SELECT description FROM `+src.table("runs")+` WHERE id = 1`).Scan(&desc); err != nil || desc != "told anew" {
		t.Errorf("the team session's run description %q (%v)", desc, err)
	}
	other, err := local.EnsureRun(judge.Info{Name: "other", Model: "m", Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Likert}}})
	if err != nil {
		t.Fatal(err)
	}
	var teamRun int64
	if err := src.pool.QueryRow(ctx, `SELECT id FROM `+src.table("runs")+` WHERE judge = 'other'`).Scan(&teamRun); err != nil || teamRun != other.ID {
		t.Errorf("the new run is %d in the replica, %d in the team session (%v)", other.ID, teamRun, err)
	}
	if got, err := local.RunByID(other.ID); err != nil || got.Info.Dimensions[0].Scale != judge.Likert {
		t.Errorf("the new run in the replica: %+v, %v", got, err)
	}

	verdict := func(id string) judge.Verdict {
		return judge.Verdict{ItemID: id, Status: judge.StatusOK, Values: map[string]float64{"correct": 0}}
	}
	// q5 and q6 were written, but the answer was lost: the batch is
	// handed again with q7.
	u := rep.Upstream().(*judgeUpstream)
	local.SetUpstream(u)
	given := []judge.Verdict{verdict("q5"), verdict("q6")}
	ids, err := src.reserveVerdictIDs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	stamped := slices.Clone(given)
	for i := range stamped {
		stamped[i].At = sessions.Now()
	}
	if err := src.saveVerdicts(ctx, run.ID, ids, sessions.Now(), stamped); err != nil {
		t.Fatal(err)
	}
	u.unsaved = &unsavedVerdicts{runID: run.ID, given: slices.Clone(given), stamped: stamped, ids: ids}
	if err := local.SaveVerdicts(run.ID, append(given, verdict("q7"))); err != nil {
		t.Fatal(err)
	}
	if err := local.SaveVerdicts(run.ID, []judge.Verdict{verdict("q8")}); err != nil {
		t.Fatal(err)
	}

	team, replica := verdictIDs(t, src, local, run.ID)
	for _, id := range []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"} {
		if len(team[id]) != 1 {
			t.Errorf("item %s has %d verdicts in the team session, want 1", id, len(team[id]))
		}
	}
	if team["q5"][0] != ids[0] || team["q6"][0] != ids[1] {
		t.Errorf("q5 and q6 were written under %v and %v, reserved %v", team["q5"], team["q6"], ids)
	}
	if !reflect.DeepEqual(team, replica) {
		t.Errorf("verdict ids per item: the team session's %v, the replica's %v", team, replica)
	}
}
