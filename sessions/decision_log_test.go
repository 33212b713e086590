package sessions

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// readLabelling reads ls's statistics input with the packed readers on
// or off and the decision log on or off, and how many ranges came from
// the log.
func (ls *labellingSession) readLabelling(packed, fromLog bool) (stats.Input, int64) {
	ls.t.Helper()
	setPacked(ls.t, packed)
	saved := logReads
	logReads = fromLog
	defer func() { logReads = saved }()
	before := logRanges.Load()
	in, err := ls.ann.StatsInput()
	if err != nil {
		ls.t.Fatal(err)
	}
	return in, logRanges.Load() - before
}

// The decision log holds a row per action the screen writes, with the
// time on screen in milliseconds, and the statistics read it; an
// annotator whose history mixes logged and unlogged actions, or one of
// whose times is in another layout, is read from actions, the same.
func TestDecisionLog(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	// Notes, one undone, which the log lists beside the decisions and its
	// reader skips.
	ls.record(ls.ann, Action{Kind: KindNote, ItemID: "i2", Note: "unsure"})
	ls.record(ls.ann, Action{Kind: KindNote, ItemID: "i8", Note: "check the gold"})
	if _, err := ls.ann.Undo(); err != nil {
		t.Fatal(err)
	}
	ls.decide(ls.ann, KindLabel, 19, true, ShownBlind, false, 5*time.Second)
	db := rawDB(t, ls.path)
	var notes, undos int
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE odd GLOB '*n[01],*'), count(*) FILTER (WHERE odd GLOB '*u[01],*')
		FROM decision_log WHERE NOT decision`).Scan(&notes, &undos); err != nil {
		t.Fatal(err)
	}
	if notes != 2 || undos < 2 {
		t.Fatalf("the log lists %d notes and %d undos, want 2 and at least 2", notes, undos)
	}
	var actions, logged int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM actions), (SELECT count(*) FROM decision_log)`).Scan(&actions, &logged); err != nil {
		t.Fatal(err)
	}
	if actions == 0 || logged != actions {
		t.Fatalf("%d actions, %d logged: every action the screen writes has a sitting", actions, logged)
	}
	// The blind first look at i1, on screen 5 s (recorded to the millisecond).
	var rec string
	if err := db.QueryRow(`SELECT record FROM decision_log WHERE id = (SELECT min(id) FROM actions)`).Scan(&rec); err != nil {
		t.Fatal(err)
	}
	f := strings.Split(rec, "\x1f")
	if len(f) != flDimension+1 || f[fdItem] != "i1" || f[fdShown] != "0" || f[fdGroup] != "" || f[flDimension] != "correct" {
		t.Errorf("record %q", f)
	}
	if ms, ok := packedNumber(f[flMillis]); !ok || ms < 5000 || ms > 5100 {
		t.Errorf("time on screen %q ms, want about 5000", f[flMillis])
	}
	rows, _ := ls.readLabelling(false, false)
	want := labellingText(rows)
	check := func(name string, wantLog bool) {
		t.Helper()
		got, n := ls.readLabelling(true, true)
		if labellingText(got) != want {
			t.Errorf("%s: packed:\n%s\nrows:\n%s", name, labellingText(got), want)
		}
		if (n > 0) != wantLog {
			t.Errorf("%s: %d ranges read from the log, want some: %v", name, n, wantLog)
		}
	}
	packedMissed = func(a string) { t.Errorf("%s's history fell back to the row reader", a) }
	check("every action logged", true)
	packedMissed = nil

	// A label inserted without a sitting or labelling column (as an import
	// writes it) is not logged: ann's history is read from actions.
	if _, err := db.Exec(`INSERT INTO actions (group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at)
		VALUES (1000, 'label', 'i20', 0, 'correct', 1, '', 'order', 'ann', '2026-01-01T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	rows, _ = ls.readLabelling(false, false)
	want = labellingText(rows)
	check("a label without a sitting", true) // bob's history is still read from the log

	// A time by hand in another layout: the row reader reads it.
	if _, err := db.Exec(`UPDATE actions SET appeared_at = '2026-01-01T00:00:00Z', at = '2026-01-01T00:00:07Z'
		WHERE id = (SELECT max(id) FROM actions WHERE annotator = 'bob' AND kind = 'label')`); err != nil {
		t.Fatal(err)
	}
	var x string
	if err := db.QueryRow(`SELECT record FROM decision_log WHERE id = (SELECT max(id) FROM actions WHERE annotator = 'bob' AND kind = 'label')`).Scan(&x); err != nil {
		t.Fatal(err)
	}
	if strings.Split(x, "\x1f")[flMillis] != "x" {
		t.Errorf("a time in another layout logged as %q", x)
	}
	rows, _ = ls.readLabelling(false, false)
	if d := bobSeconds(rows); d != 7 {
		t.Errorf("the row reader reads %v s for the hand-edited time, want 7", d)
	}
	want = labellingText(rows)
	missed := 0
	packedMissed = func(string) { missed++ }
	t.Cleanup(func() { packedMissed = nil })
	check("a time in another layout", true)
	if missed != 1 {
		t.Errorf("%d histories fell back to the row reader, want bob's", missed)
	}

	// A deleted action takes its row with it.
	if _, err := db.Exec(`DELETE FROM actions WHERE item_id = 'i20' AND group_id = 1000`); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM actions), (SELECT count(*) FROM decision_log)`).Scan(&actions, &logged); err != nil {
		t.Fatal(err)
	}
	if logged != actions {
		t.Errorf("%d actions, %d logged after a delete", actions, logged)
	}
}

// bobSeconds is the time on screen of bob's last label.
func bobSeconds(in stats.Input) float64 {
	s := -1.0
	for _, d := range in.Labelling.Decisions {
		if d.Annotator == "bob" && d.Kind == stats.KindLabel {
			s = d.Seconds
		}
	}
	return s
}

// Upgrading a v8 session logs the actions already there exactly as the
// trigger logs new ones.
func TestDecisionLogFilledOnUpgrade(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	db := rawDB(t, ls.path)
	const logRows = `SELECT annotator, id, decision, record, coalesce(odd, 'NULL') FROM decision_log ORDER BY annotator, id`
	byTrigger := dumpRows(t, db, logRows)
	// Make it a v8 session whose log is gone, then open it again.
	for _, q := range []string{`DROP TRIGGER decision_log_on_insert`, `DROP TRIGGER decision_log_on_update`,
		`DROP TRIGGER decision_log_on_delete`, `DROP TABLE decision_log`, `PRAGMA user_version = 8`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ls.ann.Close()
	ls.bob.Close()
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	// Only the log's step runs again: the rest of v9 is there already.
	migrations = append(append([]migration(nil), saved[:8]...), migration{name: "decision log", sql: schemaDecisionLog})
	schemaVersion = len(migrations)
	s := openStore(t, ls.path, "ann")
	defer s.Close()
	if got := dumpRows(t, db, logRows); !reflect.DeepEqual(got, byTrigger) {
		t.Errorf("filled by the upgrade:\n%s\nby the trigger:\n%s", strings.Join(got, "\n"), strings.Join(byTrigger, "\n"))
	}
}

// One person's history, every id of it theirs and logged, is read from
// the log (without counting their actions); a label of theirs added
// without a sitting (as an import writes it) is not logged, and the range
// that holds it is then read from actions, the same.
func TestDecisionLogOnePerson(t *testing.T) {
	ls := newLabellingSession(t)
	for k := 1; k <= 12; k++ {
		ls.decide(ls.ann, KindLabel, k, k%4 != 0, ShownBlind, false, 5*time.Second)
	}
	ls.record(ls.ann, Action{Kind: KindCantJudge, ItemID: "i3", Reason: ReasonAmbiguous, Shown: ShownBlind, Appeared: time.Now().Add(-time.Second)})
	ls.record(ls.ann, Action{Kind: KindTag, ItemID: "i5", Tag: "format", Value: 1})
	check := func(name string, wantLog bool) {
		t.Helper()
		rows, _ := ls.readLabelling(false, false)
		got, n := ls.readLabelling(true, true)
		if labellingText(got) != labellingText(rows) {
			t.Errorf("%s: packed:\n%s\nrows:\n%s", name, labellingText(got), labellingText(rows))
		}
		if wantLog && n == 0 {
			t.Errorf("%s: no range read from the log", name)
		}
		if len(got.Labelling.Decisions) < 13 || len(got.Labelling.CantJudge) != 1 || len(got.Labelling.Tags) != 1 {
			t.Errorf("%s: %d decisions, marks %+v, tags %+v", name, len(got.Labelling.Decisions), got.Labelling.CantJudge, got.Labelling.Tags)
		}
	}
	check("every action logged", true)
	db := rawDB(t, ls.path)
	if _, err := db.Exec(`INSERT INTO actions (group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at)
		VALUES (1000, 'label', 'i20', 0, 'correct', 1, '', 'order', 'ann', '2026-01-01T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	ls.decide(ls.ann, KindLabel, 21, true, ShownBlind, false, 5*time.Second)
	check("a label without a sitting", false)
}
