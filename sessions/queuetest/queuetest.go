// Package queuetest is the contract suite of sessions.Queue and
// sessions.VerdictStore: the same
// tests run against every backend (SQLite's *sessions.Store here, in
// sqlite_test.go; PostgreSQL's pg.Queue in sessions/pg), so that a team
// gets one behaviour whichever database holds its session.
//
// A backend's test calls Run with a function that returns a fresh queue
// over a session made by NewSession (for PostgreSQL: that session copied
// there); the queue must implement sessions.QueueStore.
package queuetest

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// NItems is how many items NewSession's session holds.
const NItems = 60

// ItemIDs are the ids of NewSession's items, in dataset order: plain ones
// and a few odd ones (non-ASCII, spaces, quotes, a bidi override).
func ItemIDs() []string {
	ids := make([]string, NItems)
	for i := range ids {
		ids[i] = fmt.Sprintf("q%02d", i)
	}
	ids[7] = "élève 7"
	ids[8] = `it's "8"`
	ids[9] = "nine \u202e9"
	return ids
}

// Dimensions of NewSession's judge: a binary one and a nominal one (its
// values are stored as the category's name).
const (
	Binary  = "correct"
	Nominal = "grade"
)

// NewSession makes a SQLite session with ItemIDs' items and a run whose
// judge rates Binary and Nominal (nominal:A,B,C), and returns its path.
// The session is closed.
func NewSession(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "queue.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "queuetest"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var items []judge.Item
	for i, id := range ItemIDs() {
		items = append(items, judge.Item{Index: i, ID: id, Question: "q " + id, Gold: "g", Prediction: "p"})
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "queue.jsonl", SHA256: "abc", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureRun(judge.Info{Name: "grader", Model: "m", Dimensions: []judge.Dimension{
		{Name: Binary, Scale: judge.Binary}, {Name: Nominal, Scale: judge.Scale("nominal:A,B,C")}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Open makes a fresh queue for one test.
type Open func(t *testing.T) sessions.Queue

// Run runs the contract suite; open is called once per test.
func Run(t *testing.T, open Open) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, sessions.QueueStore)
	}{
		{"Assign", testAssign},
		{"ClaimOrder", testClaimOrder},
		{"ClaimConcurrent", testClaimConcurrent},
		{"Expiry", testExpiry},
		{"Release", testRelease},
		{"DoneAndUndo", testDoneAndUndo},
		{"AlreadyDecided", testAlreadyDecided},
		{"NotInTeam", testNotInTeam},
		{"Replace", testReplace},
		{"Blind", testBlind},
		{"RecordAsIDs", testRecordAsIDs},
		{"OddText", testOddText},
		{"RunsOnce", testRunsOnce},
		{"VerdictsRoundTrip", testVerdictsRoundTrip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := open(t)
			qs, ok := q.(sessions.QueueStore)
			if !ok {
				t.Fatalf("%T does not implement sessions.QueueStore", q)
			}
			t.Cleanup(func() { q.Close() })
			tc.fn(t, qs)
		})
	}
}

var team3 = []string{"ana", "bo", "cy"}

func label(id string) sessions.Action {
	return sessions.Action{Kind: sessions.KindLabel, ItemID: id, Dimension: Binary, Value: 1, Via: "queue"}
}

// must(f())(t) is f's value, the test failed when f fails.
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func progressOf(t *testing.T, q sessions.Queue) map[string]sessions.QueueProgress {
	t.Helper()
	out := map[string]sessions.QueueProgress{}
	for _, p := range must(q.Progress())(t) {
		out[p.Annotator] = p
	}
	return out
}

// slotsOf maps each item to its slots' annotators, by slot.
func slotsOf(t *testing.T, q sessions.QueueStore) map[string][]sessions.QueueSlot {
	t.Helper()
	out := map[string][]sessions.QueueSlot{}
	for _, s := range must(q.QueueSlots())(t) {
		out[s.ItemID] = append(out[s.ItemID], s)
	}
	return out
}

// ownItems is annotator's dealt items in rank order.
func ownItems(t *testing.T, q sessions.QueueStore, annotator string) []string {
	t.Helper()
	var out []string
	for _, s := range must(q.QueueSlots())(t) {
		if s.Annotator == annotator {
			out = append(out, s.ItemID)
		}
	}
	return out
}

func testAssign(t *testing.T, q sessions.QueueStore) {
	if _, err := q.Progress(); !errors.Is(err, sessions.ErrNoQueue) {
		t.Errorf("progress without a queue: %v", err)
	}
	sum := must(q.Assign(sessions.AssignOptions{Annotators: team3, Overlap: 0.2, Seed: 7}))(t)
	if sum.Items != NItems || sum.Overlap != 12 || sum.Kept != 0 || len(sum.Annotators) != 3 {
		t.Fatalf("summary %+v", sum)
	}
	for i, a := range sum.Annotators {
		if a.Annotator != team3[i] || a.Slots != 24 {
			t.Errorf("share %+v, want 24 slots for %s", a, team3[i])
		}
	}
	st := must(q.QueueSettings())(t)
	if !slices.Equal(st.Annotators, team3) || st.Overlap != 0.2 || st.Seed != 7 || st.ClaimTimeout != sessions.DefaultClaimTimeout || st.CreatedAt.IsZero() || st.Blind {
		t.Errorf("settings %+v", st)
	}
	slots := must(q.QueueSlots())(t)
	o, _ := sessions.CheckAssign(sessions.AssignOptions{Annotators: team3, Overlap: 0.2, Seed: 7})
	want, _ := sessions.DealQueue(ItemIDs(), o, nil)
	if !reflect.DeepEqual(slots, want) {
		t.Errorf("stored slots differ from the deal:\n%v\n%v", slots, want)
	}
	two := 0
	for id, ss := range slotsOf(t, q) {
		if len(ss) == 2 {
			two++
			if ss[0].Annotator == ss[1].Annotator {
				t.Errorf("item %s: both slots to %s", id, ss[0].Annotator)
			}
		}
	}
	if two != 12 {
		t.Errorf("%d items with two slots, want 12", two)
	}
	for _, a := range team3 {
		if p := progressOf(t, q)[a]; p.Assigned != 24 || p.Claimed != 0 || p.Done != 0 {
			t.Errorf("progress %+v", p)
		}
	}
	if _, err := q.Assign(sessions.AssignOptions{Annotators: team3, Seed: 8}); !errors.Is(err, sessions.ErrQueueExists) || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("a second assign: %v", err)
	}
	if _, err := q.Assign(sessions.AssignOptions{Annotators: []string{"solo"}, Overlap: 0.5, Replace: true}); !errors.Is(err, sessions.ErrAssign) {
		t.Errorf("overlap with one person: %v", err)
	}
}

func testClaimOrder(t *testing.T, q sessions.QueueStore) {
	must(q.Assign(sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Overlap: 0.5, Seed: 1}))(t)
	own := ownItems(t, q, "ana")
	got := must(q.Claim("ana", 5))(t)
	if !slices.Equal(got, own[:5]) {
		t.Errorf("first claim %v, want ana's first five %v", got, own[:5])
	}
	// Claiming again gives the items in hand back first (a reopened
	// screen), then more.
	again := must(q.Claim("ana", 7))(t)
	if !slices.Equal(again, own[:7]) {
		t.Errorf("second claim %v, want %v", again, own[:7])
	}
	if p := progressOf(t, q)["ana"]; p.Claimed != 7 || p.Assigned != 45 {
		t.Errorf("progress %+v", p)
	}
	// ana finishes her own, then gets bo's slots of items she has no slot
	// of, the items nobody has yet first; never both slots of an item.
	for _, id := range own {
		must(q.Claim("ana", 1))(t)
		must(q.RecordAs("ana", []sessions.Action{label(id)}))(t)
	}
	rest := must(q.Claim("ana", 1000))(t)
	slots := slotsOf(t, q)
	for _, id := range rest {
		ss := slots[id]
		if len(ss) != 1 {
			t.Errorf("ana was handed %s, which she shares with bo", id)
		}
	}
	if len(rest) != NItems-len(own) {
		t.Errorf("ana took %d of bo's items, want %d", len(rest), NItems-len(own))
	}
	if bo := must(q.Claim("bo", 1000))(t); len(bo) != len(ownItems(t, q, "bo"))-len(rest) {
		t.Errorf("bo got %d items, want his own %d less the %d ana took", len(bo), len(ownItems(t, q, "bo")), len(rest))
	}
	// The items ana took, held or done, are gone from bo's share: taken,
	// not left; what bo holds of his own is left until he decides it.
	must(q.RecordAs("ana", []sessions.Action{label(rest[0])}))(t)
	p := progressOf(t, q)
	nbo := len(ownItems(t, q, "bo"))
	if b := p["bo"]; b.Assigned != nbo || b.Taken != len(rest) || b.Left != nbo-len(rest) {
		t.Errorf("bo's progress %+v: want %d assigned, %d taken by ana, %d left", b, nbo, len(rest), nbo-len(rest))
	}
	if a := p["ana"]; a.Taken != 0 || a.Left != 0 || a.Done != len(own)+1 {
		t.Errorf("ana's progress %+v: want her share done (%d) and one of bo's", a, len(own))
	}
}

// Five people claim at once, over and over, labelling what they get: no
// slot is handed to two people, nobody gets an item twice, and every slot
// ends done exactly once.
func testClaimConcurrent(t *testing.T, q sessions.QueueStore) {
	team := []string{"ana", "bo", "cy", "di", "ed"}
	must(q.Assign(sessions.AssignOptions{Annotators: team, Overlap: 0.5, Seed: 11}))(t)
	var mu sync.Mutex
	handed := map[string][]string{} // item → who got it
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, len(team))
	for _, a := range team {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for {
				ids, err := q.Claim(a, 2)
				if err != nil {
					errs <- err
					return
				}
				if len(ids) == 0 {
					return
				}
				mu.Lock()
				for _, id := range ids {
					handed[id] = append(handed[id], a)
				}
				mu.Unlock()
				var acts []sessions.Action
				for _, id := range ids {
					acts = append(acts, label(id))
				}
				if _, err := q.RecordAs(a, acts); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	slots := slotsOf(t, q)
	total := 0
	for id, ss := range slots {
		who := handed[id]
		total += len(who)
		if len(who) != len(ss) {
			t.Errorf("item %q handed to %v, it has %d slots", id, who, len(ss))
		}
		if len(who) == 2 && who[0] == who[1] {
			t.Errorf("item %q handed twice to %s", id, who[0])
		}
	}
	if total != 90 {
		t.Errorf("%d items handed out, want 90 slots", total)
	}
	done := 0
	for _, p := range must(q.Progress())(t) {
		done += p.Done
		if p.Claimed != 0 {
			t.Errorf("%s still holds %d", p.Annotator, p.Claimed)
		}
	}
	if done != 90 {
		t.Errorf("%d slots done, want 90", done)
	}
	if n := len(must(q.Actions(""))(t)); n != 90 {
		t.Errorf("%d actions, want 90", n)
	}
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func testExpiry(t *testing.T, q sessions.QueueStore) {
	c := &clock{t: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	q.SetQueueClock(c.now)
	must(q.Assign(sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Seed: 2, ClaimTimeout: 10 * time.Minute}))(t)
	held := must(q.Claim("ana", 3))(t)
	if len(held) != 3 {
		t.Fatalf("ana claimed %v", held)
	}
	boAll := must(q.Claim("bo", 1000))(t)
	if len(boAll) != NItems-3 || slices.ContainsFunc(boAll, func(id string) bool { return slices.Contains(held, id) }) {
		t.Fatalf("bo got %d items, some of ana's held ones: %v", len(boAll), boAll)
	}
	c.add(9 * time.Minute)
	if p := progressOf(t, q)["ana"]; p.Claimed != 3 {
		t.Errorf("before the timeout: %+v", p)
	}
	c.add(2 * time.Minute)
	if p := progressOf(t, q)["ana"]; p.Claimed != 0 {
		t.Errorf("after the timeout: %+v", p)
	}
	// The expired slots are back in the queue (bo's own claims expired
	// too): he gets every item, ana's three among them.
	got := must(q.Claim("bo", 1000))(t)
	if len(got) != NItems || slices.ContainsFunc(held, func(id string) bool { return !slices.Contains(got, id) }) {
		t.Errorf("bo after the timeout: %d items %v, want all, ana's %v among them", len(got), got, held)
	}
	if p := progressOf(t, q)["bo"]; p.Claimed != NItems {
		t.Errorf("bo holds %+v", p)
	}
	// A claim renewed by Claim lasts a new timeout.
	c.add(9 * time.Minute)
	must(q.Claim("bo", 1))(t)
	c.add(9 * time.Minute)
	if p := progressOf(t, q)["bo"]; p.Claimed != NItems {
		t.Errorf("renewed claims: %+v", p)
	}
}

func testRelease(t *testing.T, q sessions.QueueStore) {
	must(q.Assign(sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Seed: 3}))(t)
	held := must(q.Claim("ana", 3))(t)
	if err := q.Release("ana", append(held[:2:2], "not-an-item", held[0])); err != nil {
		t.Fatal(err)
	}
	if p := progressOf(t, q)["ana"]; p.Claimed != 1 {
		t.Errorf("after releasing two: %+v", p)
	}
	// bo cannot release ana's claim.
	if err := q.Release("bo", held[2:]); err != nil {
		t.Fatal(err)
	}
	if p := progressOf(t, q)["ana"]; p.Claimed != 1 {
		t.Errorf("bo released ana's claim: %+v", p)
	}
	// The released items go to bo once his own are claimed.
	got := must(q.Claim("bo", 1000))(t)
	for _, id := range held[:2] {
		if !slices.Contains(got, id) {
			t.Errorf("released %s not handed to bo", id)
		}
	}
	if slices.Contains(got, held[2]) {
		t.Errorf("bo got %s, which ana holds", held[2])
	}
	// A done slot stays done when released.
	must(q.RecordAs("ana", []sessions.Action{label(held[2])}))(t)
	if err := q.Release("ana", held[2:]); err != nil {
		t.Fatal(err)
	}
	if p := progressOf(t, q)["ana"]; p.Done != 1 || p.Claimed != 0 {
		t.Errorf("released after labelling: %+v", p)
	}
}

func testDoneAndUndo(t *testing.T, q sessions.QueueStore) {
	must(q.Assign(sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Seed: 4}))(t)
	ids := must(q.Claim("ana", 4))(t)
	nominal := sessions.Action{Kind: sessions.KindLabel, ItemID: ids[1], Dimension: Nominal, Value: 1, Via: "queue"}
	cant := sessions.Action{Kind: sessions.KindCantJudge, ItemID: ids[2], Reason: sessions.ReasonAmbiguous, Via: "queue"}
	note := sessions.Action{Kind: sessions.KindNote, ItemID: ids[3], Note: "later", Via: "queue"}
	tag := sessions.Action{Kind: sessions.KindTag, ItemID: ids[3], Tag: "odd", Value: 1, Via: "queue"}
	must(q.RecordAs("ana", []sessions.Action{label(ids[0]), nominal}))(t)
	must(q.RecordAs("ana", []sessions.Action{cant}))(t)
	must(q.RecordAs("ana", []sessions.Action{note, tag}))(t)
	if p := progressOf(t, q)["ana"]; p.Done != 3 || p.Claimed != 1 {
		t.Errorf("after a label, a nominal label and a can't judge (a note and a tag decide nothing): %+v", p)
	}
	if got := must(q.Claim("ana", 1))(t); !slices.Equal(got, ids[3:4]) {
		t.Errorf("claim after deciding three: %v, want %v", got, ids[3:4])
	}
	undone := must(q.UndoItemAs("ana", ids[2]))(t)
	if len(undone) != 1 || undone[0].Kind != sessions.KindCantJudge {
		t.Errorf("undo: %+v", undone)
	}
	if p := progressOf(t, q)["ana"]; p.Done != 2 || p.Claimed != 2 {
		t.Errorf("after the undo: %+v", p)
	}
	if got := must(q.Claim("ana", 2))(t); !slices.Contains(got, ids[2]) {
		t.Errorf("the undone item is not handed back: %v", got)
	}
	// The history reads back what was written, value by scale.
	acts := must(q.Actions("ana"))(t)
	if len(acts) != 6 || acts[1].Dimension != Nominal || acts[1].Value != 1 || acts[5].Kind != sessions.KindUndo || acts[5].Undoes != acts[2].ID {
		t.Errorf("history: %+v", acts)
	}
	if acts[0].Group != acts[1].Group || acts[1].Group == acts[2].Group || acts[3].Group != acts[4].Group {
		t.Errorf("groups: %d %d %d %d %d", acts[0].Group, acts[1].Group, acts[2].Group, acts[3].Group, acts[4].Group)
	}
}

// An item a person has decided is never handed to them, whoever it was
// dealt to.
func testAlreadyDecided(t *testing.T, q sessions.QueueStore) {
	must(q.Assign(sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Overlap: 0, Seed: 5}))(t)
	bo := ownItems(t, q, "bo")
	must(q.RecordAs("ana", []sessions.Action{label(bo[0])}))(t)
	got := must(q.Claim("ana", 1000))(t)
	if slices.Contains(got, bo[0]) || len(got) != NItems-1 {
		t.Errorf("ana got %d items (%s among them: %v)", len(got), bo[0], slices.Contains(got, bo[0]))
	}
	// bo's slot of it is his still: ana's label is not his.
	if got := must(q.Claim("bo", 1))(t); !slices.Equal(got, bo[:1]) {
		t.Errorf("bo's first claim %v, want %v", got, bo[:1])
	}
}

func testNotInTeam(t *testing.T, q sessions.QueueStore) {
	if _, err := q.Claim("ana", 1); !errors.Is(err, sessions.ErrNoQueue) || !strings.Contains(err.Error(), "gavel assign") {
		t.Errorf("claim without a queue: %v", err)
	}
	must(q.Assign(sessions.AssignOptions{Annotators: team3, Seed: 6}))(t)
	_, err := q.Claim("dan", 1)
	if !errors.Is(err, sessions.ErrNotInTeam) || !strings.Contains(err.Error(), `"ana", "bo", "cy"`) {
		t.Errorf("claim by someone outside the team: %v", err)
	}
	if err := q.Release("dan", []string{"q01"}); !errors.Is(err, sessions.ErrNotInTeam) {
		t.Errorf("release by someone outside the team: %v", err)
	}
	for _, n := range []int{0, -1} {
		if _, err := q.Claim("ana", n); err == nil {
			t.Errorf("claim of %d items accepted", n)
		}
	}
}

// Replace keeps the slots already done and deals the rest to the new
// team.
func testReplace(t *testing.T, q sessions.QueueStore) {
	must(q.Assign(sessions.AssignOptions{Annotators: team3, Overlap: 0.5, Seed: 7}))(t)
	ana := must(q.Claim("ana", 2))(t)
	must(q.RecordAs("ana", []sessions.Action{label(ana[0]), label(ana[1])}))(t)
	cy := must(q.Claim("cy", 1))(t) // in hand, not done: dropped
	sum := must(q.Assign(sessions.AssignOptions{Annotators: []string{"bo", "dan"}, Overlap: 0.5, Seed: 9, Replace: true}))(t)
	if sum.Kept != 2 || sum.Items != NItems {
		t.Errorf("replace: %+v", sum)
	}
	slots := slotsOf(t, q)
	for _, id := range ana {
		found := false
		for _, s := range slots[id] {
			if s.Annotator == "ana" {
				found = true
			}
		}
		if !found {
			t.Errorf("ana's done slot of %s was not kept: %+v", id, slots[id])
		}
	}
	for id, ss := range slots {
		if len(ss) == 2 && ss[0].Annotator == ss[1].Annotator {
			t.Errorf("%s: both slots to %s", id, ss[0].Annotator)
		}
		for _, s := range ss {
			if s.Annotator == "cy" || s.ClaimedBy == "cy" {
				t.Errorf("%s: cy's slot or claim survived: %+v", id, s)
			}
		}
	}
	p := progressOf(t, q)
	if p["ana"].Done != 2 || p["bo"].Assigned+p["dan"].Assigned+2 != len(must(q.QueueSlots())(t)) {
		t.Errorf("progress after replace: %+v", p)
	}
	if _, err := q.Claim("cy", 1); !errors.Is(err, sessions.ErrNotInTeam) {
		t.Errorf("cy after leaving the team: %v (held %v)", err, cy)
	}
}

// A blind queue's setting is recorded, read back, named when a second
// deal is refused, and set anew or kept by a Replace (KeepBlind); the
// deal itself is the same as without it.
func testBlind(t *testing.T, q sessions.QueueStore) {
	sum := must(q.Assign(sessions.AssignOptions{Annotators: team3, Overlap: 0.2, Seed: 7, Blind: true}))(t)
	if !sum.Settings.Blind {
		t.Errorf("summary settings %+v: not blind", sum.Settings)
	}
	if st := must(q.QueueSettings())(t); !st.Blind || st.Seed != 7 {
		t.Errorf("settings %+v: want blind, seed 7", st)
	}
	o, _ := sessions.CheckAssign(sessions.AssignOptions{Annotators: team3, Overlap: 0.2, Seed: 7})
	if want, _ := sessions.DealQueue(ItemIDs(), o, nil); !reflect.DeepEqual(must(q.QueueSlots())(t), want) {
		t.Error("a blind queue is dealt differently")
	}
	if _, err := q.Assign(sessions.AssignOptions{Annotators: team3}); !errors.Is(err, sessions.ErrQueueExists) || !strings.Contains(err.Error(), "seed 7; blind;") {
		t.Errorf("a second assign over a blind queue: %v", err)
	}
	for i, step := range []struct {
		opts sessions.AssignOptions
		want bool
	}{
		{sessions.AssignOptions{KeepBlind: true}, true},               // --replace alone keeps it on
		{sessions.AssignOptions{Blind: false}, false},                 // --blind=false
		{sessions.AssignOptions{KeepBlind: true, Blind: true}, false}, // kept off; Blind unused
		{sessions.AssignOptions{Blind: true}, true},                   // --blind
	} {
		o := step.opts
		o.Annotators, o.Seed, o.Replace = team3, 7, true
		if sum := must(q.Assign(o))(t); sum.Settings.Blind != step.want {
			t.Errorf("replace %d (%+v): summary blind %v, want %v", i, step.opts, sum.Settings.Blind, step.want)
		}
		if st := must(q.QueueSettings())(t); st.Blind != step.want {
			t.Errorf("replace %d (%+v): settings blind %v, want %v", i, step.opts, st.Blind, step.want)
		}
	}
}

// RecordAs from many goroutines: ids unique and increasing with commits,
// each group its own group id.
func testRecordAsIDs(t *testing.T, q sessions.QueueStore) {
	ids := ItemIDs()
	var mu sync.Mutex
	var got [][]sessions.Action
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				id := ids[(w*10+i)%len(ids)]
				out, err := q.RecordAs(fmt.Sprintf("w%d", w), []sessions.Action{label(id), {Kind: sessions.KindNote, ItemID: id, Note: "n", Via: "queue"}})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got = append(got, out)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	seen := map[int64]bool{}
	groups := map[int64]bool{}
	for _, g := range got {
		if len(g) != 2 || g[0].Group != g[1].Group || g[1].ID <= g[0].ID {
			t.Errorf("group %+v", g)
			continue
		}
		if groups[g[0].Group] {
			t.Errorf("group id %d used twice", g[0].Group)
		}
		groups[g[0].Group] = true
		for _, a := range g {
			if seen[a.ID] {
				t.Errorf("id %d returned twice", a.ID)
			}
			seen[a.ID] = true
		}
	}
	all := must(q.Actions(""))(t)
	if len(all) != 80 || len(seen) != 80 {
		t.Errorf("%d actions stored, %d ids returned; want 80", len(all), len(seen))
	}
	for _, a := range all {
		if !seen[a.ID] {
			t.Errorf("stored action %d was not returned", a.ID)
		}
	}
	// The store refuses what Record refuses.
	for _, bad := range [][]sessions.Action{
		{{Kind: sessions.KindLabel, ItemID: ids[0], Via: "queue"}},
		{{Kind: sessions.KindUndo, ItemID: ids[0], Undoes: 1}},
		{label("no such item")},
		{{Kind: sessions.KindCantJudge, ItemID: ids[0], Reason: "bored"}},
	} {
		if _, err := q.RecordAs("w0", bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	if _, err := q.RecordAs(" ", []sessions.Action{label(ids[0])}); err == nil {
		t.Error("accepted an action without an annotator")
	}
	if n := len(must(q.Actions(""))(t)); n != 80 {
		t.Errorf("refused actions left %d rows", n-80)
	}
}

// Notes with NUL, invalid UTF-8, bidi overrides and control characters
// come back byte for byte.
func testOddText(t *testing.T, q sessions.QueueStore) {
	notes := []string{"a\x00b", "\xff\xfe latin-1 \xe9", "\u202eevil\u202c", "tab\tnl\ncr\r", "emoji 👩‍⚖️", strings.Repeat("long ", 2000), ""}
	var acts []sessions.Action
	for i, n := range notes {
		acts = append(acts, sessions.Action{Kind: sessions.KindNote, ItemID: ItemIDs()[i], Note: n, Via: "odd\x00via"})
	}
	must(q.RecordAs("ana", acts))(t)
	got := must(q.Actions("ana"))(t)
	if len(got) != len(notes) {
		t.Fatalf("%d actions", len(got))
	}
	for i, a := range got {
		if a.Note != notes[i] || a.Via != "odd\x00via" || a.ItemID != ItemIDs()[i] {
			t.Errorf("note %d: %q via %q on %q, want %q", i, a.Note, a.Via, a.ItemID, notes[i])
		}
	}
}
