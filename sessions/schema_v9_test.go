package sessions

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/plan"
)

// TestUpgradeFromV8 opens a v8 session with verdicts and labels: the v9
// step adds the plan tables, empty, leaves every row as it was, and a
// plan can then be drawn from the old verdicts.
func TestUpgradeFromV8(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:8], 8
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	if err := s.InitDataset(DatasetInfo{Path: "plan.jsonl", SHA256: "abc", Format: "jsonl"}, planItems40()); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(binaryInfo("conf", "m"))
	if err != nil {
		t.Fatal(err)
	}
	c := 0.8
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "p01", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Confidence: &c}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "p01", Dimension: "correct", Value: 1, Via: "random"}}); err != nil {
		t.Fatal(err)
	}
	queries := []string{`SELECT * FROM verdicts ORDER BY id`, `SELECT * FROM actions ORDER BY id`, `SELECT * FROM current_labels`}
	before := map[string][]string{}
	for _, q := range queries {
		before[q] = dumpRows(t, s.w, q)
	}
	s.Close()

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	db := rawDB(t, path)
	if v := pragmaInt(t, db, "user_version"); v != int64(len(saved)) || schemaVersion != len(saved) {
		t.Fatalf("user_version %d after the upgrade (schema v%d), want %d", v, schemaVersion, len(saved))
	}
	for _, q := range queries {
		if got := dumpRows(t, db, q); !reflect.DeepEqual(got, before[q]) {
			t.Errorf("%s changed:\n%s\nbefore:\n%s", q, strings.Join(got, "\n"), strings.Join(before[q], "\n"))
		}
	}
	if got := dumpRows(t, db, `SELECT (SELECT count(*) FROM plans) + (SELECT count(*) FROM plan_units) AS n`); got[0] != "n=0" {
		t.Errorf("plan rows after the upgrade: %v", got)
	}
	dr, err := s.CreatePlan(PlanOptions{Design: plan.Active, N: 4, Seed: 1})
	if err != nil || dr.Plan.RunID != run.ID || len(dr.Units) != 40 {
		t.Fatalf("plan after the upgrade: %+v %v", dr.Plan, err)
	}
	if got := dumpRows(t, db, `PRAGMA foreign_key_check`); len(got) != 0 {
		t.Errorf("foreign key check: %v", got)
	}
	// The checks refuse what no plan can be.
	for _, bad := range []string{
		`INSERT INTO plans (design, n, seed, created) VALUES ('clever', 3, 1, 'x')`,
		`INSERT INTO plans (design, n, seed, created) VALUES ('uniform', 0, 1, 'x')`,
		`INSERT INTO plans (design, n, seed, created) VALUES ('stratified', 3, 1, 'x')`,
		`INSERT INTO plans (design, n, seed, stratify, created) VALUES ('uniform', 3, 1, 'category', 'x')`,
		`INSERT INTO plans (design, n, seed, floor, created) VALUES ('active', 3, 1, 1.5, 'x')`,
		`INSERT INTO plan_units (plan_id, item_id, size, prn) VALUES (1, 'p02', -1, 0.5)`,
		`INSERT INTO plan_units (plan_id, item_id, size, prn) VALUES (1, 'p02', 1, 0)`,
		`INSERT INTO plan_units (plan_id, item_id, size, prn) VALUES (1, 'nope', 1, 0.5)`,
		`INSERT INTO plan_units (plan_id, item_id, size, prn) VALUES (1, 'p01', 1, 0.5)`,
	} {
		if _, err := s.w.Exec(bad); err == nil {
			t.Errorf("accepted: %s", bad)
		}
	}
}
