package sessions

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// TestUpgradeFromV9 opens a v9 session with verdicts, labels and a plan:
// the v10 step adds the queue tables, empty, leaves every row as it was,
// and a queue can then be assigned and claimed from.
func TestUpgradeFromV9(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:9], 9
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	if err := s.InitDataset(DatasetInfo{Path: "plan.jsonl", SHA256: "abc", Format: "jsonl"}, planItems40()); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(binaryInfo("conf", "m"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "p01", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "p01", Dimension: "correct", Value: 1, Via: "random"}}); err != nil {
		t.Fatal(err)
	}
	queries := []string{`SELECT * FROM verdicts ORDER BY id`, `SELECT * FROM actions ORDER BY id`, `SELECT * FROM current_labels`,
		`SELECT * FROM decision_log ORDER BY annotator, id`, `SELECT * FROM items ORDER BY idx`}
	before := map[string][]string{}
	for _, q := range queries {
		before[q] = dumpRows(t, s.w, q)
	}
	s.Close()

	migrations, schemaVersion = saved[:10], 10 // the v10 step alone (schema_v11_test.go goes on)
	s = openStore(t, path, "ann")
	db := rawDB(t, path)
	if v := pragmaInt(t, db, "user_version"); v != 10 || schemaVersion != 10 {
		t.Fatalf("user_version %d after the upgrade (schema v%d), want 10", v, schemaVersion)
	}
	for _, q := range queries {
		if got := dumpRows(t, db, q); !reflect.DeepEqual(got, before[q]) {
			t.Errorf("%s changed:\n%s\nbefore:\n%s", q, strings.Join(got, "\n"), strings.Join(before[q], "\n"))
		}
	}
	if got := dumpRows(t, db, `SELECT (SELECT count(*) FROM queue_slots) + (SELECT count(*) FROM queue_settings) AS n`); got[0] != "n=0" {
		t.Errorf("queue rows after the upgrade: %v", got)
	}
	if _, err := s.Claim("ann", 1); !errors.Is(err, ErrNoQueue) || !strings.Contains(err.Error(), "gavel assign") {
		t.Errorf("claim before any assignment: %v", err)
	}
	sum, err := s.Assign(AssignOptions{Annotators: []string{"ann", "bob"}, Overlap: 0.25, Seed: 3})
	if err != nil || sum.Items != 40 || sum.Overlap != 10 {
		t.Fatalf("assign after the upgrade: %+v %v", sum, err)
	}
	// ann labelled p01 before the queue: whoever it was dealt to, ann is
	// never handed it again; her own slots done, she takes bob's (one
	// slot per item), so she gets every other item.
	got, err := s.Claim("ann", 40)
	if err != nil || len(got) != 39 || slices.Contains(got, "p01") {
		t.Errorf("ann's claim: %d items %v (p01 in it: %v)", len(got), err, slices.Contains(got, "p01"))
	}
	if got := dumpRows(t, db, `PRAGMA foreign_key_check`); len(got) != 0 {
		t.Errorf("foreign key check: %v", got)
	}
	for _, bad := range []string{
		`INSERT INTO queue_slots (item_id, slot, annotator, rank) VALUES ('p02', 2, 'ann', 0)`,
		`INSERT INTO queue_slots (item_id, slot, annotator, rank) VALUES ('nope', 0, 'ann', 0)`,
		`INSERT INTO queue_slots (item_id, slot, annotator, rank) VALUES ('p02', 0, '', 0)`,
		`INSERT INTO queue_slots (item_id, slot, annotator, rank) VALUES ('p02', 0, 'ann', -1)`,
		`UPDATE queue_slots SET claimed_by = 'x' WHERE claimed_by IS NULL`,
		`INSERT INTO queue_settings (key, value) VALUES ('seed', NULL)`,
	} {
		if _, err := s.w.Exec(bad); err == nil {
			t.Errorf("accepted: %s", bad)
		}
	}
}

// The deal: exact overlap count, both slots of an item to two people,
// counts within one, the same deal for the same seed whatever the names'
// order, another for another seed, and every pair of people sharing items.
func TestDealQueue(t *testing.T) {
	ids := make([]string, 1003)
	for i := range ids {
		ids[i] = fmt.Sprintf("item-%04d", i)
	}
	for _, tc := range []struct {
		team    []string
		overlap float64
	}{
		{[]string{"ana"}, 0}, {[]string{"ana", "bo"}, 1}, {[]string{"ana", "bo", "cy"}, 0.2},
		{[]string{"ana", "bo", "cy", "di", "ed"}, 0.37}, {[]string{"a", "b", "c", "d", "e", "f", "g"}, 0.05},
	} {
		o, err := CheckAssign(AssignOptions{Annotators: tc.team, Overlap: tc.overlap, Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		slots, k := DealQueue(ids, o, nil)
		if want := int(float64(len(ids))*tc.overlap + 0.5); k != want || len(slots) != len(ids)+k {
			t.Errorf("%v: overlap %d items, %d slots; want %d and %d", tc.team, k, len(slots), want, len(ids)+want)
		}
		count := map[string]int{}
		byItem := map[string][]QueueSlot{}
		shared := map[[2]string]int{}
		for _, s := range slots {
			count[s.Annotator]++
			byItem[s.ItemID] = append(byItem[s.ItemID], s)
		}
		for id, ss := range byItem {
			if len(ss) == 2 {
				if ss[0].Annotator == ss[1].Annotator || ss[0].Rank != ss[1].Rank || ss[0].Slot == ss[1].Slot {
					t.Errorf("%v: item %s: %+v", tc.team, id, ss)
				}
				pair := [2]string{ss[0].Annotator, ss[1].Annotator}
				slices.Sort(pair[:])
				shared[pair]++
			}
		}
		lo, hi := len(ids), 0
		for _, a := range tc.team {
			lo, hi = min(lo, count[a]), max(hi, count[a])
		}
		if hi-lo > 1 {
			t.Errorf("%v: unbalanced %v", tc.team, count)
		}
		if n := len(tc.team); tc.overlap > 0 && k >= n*(n-1) && len(shared) != n*(n-1)/2 {
			t.Errorf("%v: pairs sharing items %v, want every pair", tc.team, shared)
		}
		reversed := slices.Clone(tc.team)
		slices.Reverse(reversed)
		o.Annotators = reversed
		if again, _ := DealQueue(ids, o, nil); !reflect.DeepEqual(again, slots) {
			t.Errorf("%v: the names' order changed the deal", tc.team)
		}
		o.Seed = 43
		if other, _ := DealQueue(ids, o, nil); len(tc.team) > 1 && reflect.DeepEqual(other, slots) {
			t.Errorf("%v: another seed dealt the same", tc.team)
		}
	}
}

func TestCheckAssign(t *testing.T) {
	for _, o := range []AssignOptions{
		{},
		{Annotators: []string{"ana", " ana "}},
		{Annotators: []string{"ana", ""}},
		{Annotators: []string{"ana\x00"}},
		{Annotators: []string{"a\x1b[31m"}},
		{Annotators: []string{"\xff"}},
		{Annotators: []string{"ana"}, Overlap: 0.1},
		{Annotators: []string{"ana", "bo"}, Overlap: 1.01},
		{Annotators: []string{"ana", "bo"}, Overlap: -0.1},
		{Annotators: []string{"ana", "bo"}, ClaimTimeout: -time.Second},
		{Annotators: []string{"ana", "bo"}, ClaimTimeout: time.Millisecond},
	} {
		if _, err := CheckAssign(o); !errors.Is(err, ErrAssign) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	o, err := CheckAssign(AssignOptions{Annotators: []string{" ana", "bo "}, Overlap: 0.5})
	if err != nil || !slices.Equal(o.Annotators, []string{"ana", "bo"}) || o.ClaimTimeout != DefaultClaimTimeout {
		t.Errorf("%+v %v", o, err)
	}
}

// Settings survive their text form.
func TestQueueSettingRows(t *testing.T) {
	st := QueueSettings{Annotators: []string{"ana", "b,o", `"cy"`}, Overlap: 0.1 + 0.2, Seed: -7, ClaimTimeout: 90 * time.Second,
		CreatedAt: time.Date(2026, 11, 27, 4, 0, 0, 123e6, time.UTC)}
	rows := map[string]string{}
	for _, kv := range QueueSettingRows(st) {
		rows[kv[0]] = kv[1]
	}
	got, err := ParseQueueSettings(rows)
	if err != nil || !reflect.DeepEqual(got, st) {
		t.Errorf("%+v %v, want %+v", got, err, st)
	}
	rows[settingClaimTimeout] = "soon"
	if _, err := ParseQueueSettings(rows); err == nil {
		t.Error("a bad timeout read")
	}
}

// The blind setting: written as true or false, read back; a queue
// assigned before it (no row) is not blind; anything else is refused.
func TestQueueSettingBlind(t *testing.T) {
	st := QueueSettings{Annotators: []string{"ana", "bo"}, Overlap: 0.2, Seed: 7, ClaimTimeout: time.Minute,
		CreatedAt: time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC), Blind: true}
	rows := map[string]string{}
	for _, kv := range QueueSettingRows(st) {
		rows[kv[0]] = kv[1]
	}
	if rows[settingBlind] != "true" {
		t.Errorf("blind written as %q", rows[settingBlind])
	}
	if got, err := ParseQueueSettings(rows); err != nil || !got.Blind {
		t.Errorf("%+v %v: not blind", got, err)
	}
	delete(rows, settingBlind)
	if got, err := ParseQueueSettings(rows); err != nil || got.Blind {
		t.Errorf("without the key: %+v %v, want not blind", got, err)
	}
	rows[settingBlind] = "yes"
	if _, err := ParseQueueSettings(rows); err == nil || !strings.Contains(err.Error(), "blind") {
		t.Errorf("a bad blind setting: %v", err)
	}
	o, err := ReplacingQueue(AssignOptions{KeepBlind: true, Blind: true}, map[string]string{settingBlind: "false"})
	if err != nil || o.Blind {
		t.Errorf("kept: %+v %v, want not blind", o, err)
	}
	if _, err := ReplacingQueue(AssignOptions{KeepBlind: true}, rows); err == nil {
		t.Error("a bad blind setting kept")
	}
}

// ActionRow and ActionFromRow, which another backend writes and reads
// actions with, agree with this package's own writer and reader on every
// kind and column.
func TestActionRowMatchesStore(t *testing.T) {
	s, _ := newSession(t)
	run, err := s.EnsureRun(judge.Info{Name: "g", Model: "m", Dimensions: []judge.Dimension{
		{Name: "correct", Scale: judge.Binary}, {Name: "grade", Scale: judge.Scale("nominal:A,B,C")}}})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := s.AddGuidelines("# be fair")
	if err != nil {
		t.Fatal(err)
	}
	for _, grp := range [][]Action{
		{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "queue", Guidelines: g.ID, Shown: ShownVerdict, ShownRun: run.ID,
			Appeared: time.Now().Add(-3 * time.Second)}},
		{{Kind: KindLabel, ItemID: "q2", Dimension: "grade", Value: 2, Via: "x", Shown: ShownBlind},
			{Kind: KindAccept, ItemID: "r1", Criterion: 2, Dimension: "correct", Value: 0, Via: "order"}},
		{{Kind: KindCantJudge, ItemID: "q3", Reason: ReasonOther, Note: "nul \x00 here", Via: "order", Retest: true}},
		{{Kind: KindTag, ItemID: "q1", Tag: "odd one", Value: 1, Via: "order"}, {Kind: KindNote, ItemID: "q1", Note: "\xff", Via: "order"}},
	} {
		if _, err := s.Record(grp); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.UndoItemAs("ann", "q2"); err != nil {
		t.Fatal(err)
	}
	acts, err := s.Actions("")
	if err != nil {
		t.Fatal(err)
	}
	scales := map[string]judge.Scale{"grade": judge.Scale("nominal:A,B,C")}
	rows, err := s.w.Query(`SELECT ` + strings.Join(ActionColumnNames, ", ") + ` FROM actions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		raw := make([]any, len(ActionColumnNames))
		ptrs := make([]any, len(raw))
		for j := range raw {
			ptrs[j] = &raw[j]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		want := acts[i]
		if got := ActionRow(want, scales); !reflect.DeepEqual(got, raw) {
			t.Errorf("action %d: ActionRow\n%#v\nstored\n%#v", want.ID, got, raw)
		}
		got, err := ActionFromRow(raw, scales)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("action %d: ActionFromRow %+v %v, want %+v", want.ID, got, err, want)
		}
		i++
	}
	if i != len(acts) || i != 7 {
		t.Errorf("%d rows, %d actions", i, len(acts))
	}
}
