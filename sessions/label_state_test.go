package sessions

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// stateStep is one step of a history played both on a real store and on
// LabelStates: a key press of who (Record, or RecordAs for an annotator
// without a store), an undo, several groups in one transaction as an
// import writes them, or an undo row written by hand for one action.
type stateStep struct {
	who      string
	record   []Action
	undo     bool
	imported [][]Action
	// rawUndo undoes action rawUndo[1] of the group recorded at step
	// rawUndo[0] with a hand-written undo row (sqlite3 users may).
	rawUndo []int
}

func by(who string, acts ...Action) stateStep { return stateStep{who: who, record: acts} }
func undoBy(who string) stateStep             { return stateStep{who: who, undo: true} }

func onCrit(a Action, k int) Action { a.Criterion = k; return a }

// TestLabelStateMatchesViews plays histories on a real session and checks,
// after every step, that LabelState derives exactly what the
// current_labels and current_notes views hold: both the state the screen
// keeps (Apply before Record, Undo beside the store's Undo) and the state
// replayed from the stored history. At the end it undoes everything on
// the replayed state and the store side by side.
func TestLabelStateMatchesViews(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []stateStep
	}{
		{"one label", []stateStep{by("ann", label("q1", "correct", 1))}},
		{"relabel, undo brings the previous value back", []stateStep{
			by("ann", label("q1", "correct", 1)), by("ann", label("q1", "correct", 0)), undoBy("ann")}},
		{"undo of a group undoes all of it", []stateStep{
			by("ann", label("q2", "correct", 1)),
			by("ann", label("q1", "completeness", 4), label("q1", "correctness", 2), note("q1", "half right")),
			undoBy("ann")}},
		{"the same key twice in one group", []stateStep{
			by("ann", label("q1", "correct", 1)),
			by("ann", label("q1", "correct", 0), accept("q1", "correct", 1), label("q1", "correct", 0.5)),
			undoBy("ann")}},
		{"repeated undo walks back, past the start", []stateStep{
			by("ann", label("q1", "correct", 1)), by("ann", label("q2", "correct", 0)), by("ann", label("q1", "correct", 0)),
			undoBy("ann"), undoBy("ann"), undoBy("ann"), undoBy("ann")}},
		{"undo rows are not undoable", []stateStep{
			by("ann", label("q1", "correct", 1)), by("ann", label("q1", "correct", 0)), undoBy("ann"),
			by("ann", label("q2", "correct", 1)), undoBy("ann"), undoBy("ann")}},
		{"accept is a label marked accepted", []stateStep{
			by("ann", accept("q1", "correct", 1)), by("ann", label("q1", "correct", 1)), undoBy("ann"),
			by("ann", accept("q2", "correct", 0))}},
		{"rubric criteria are separate labels", []stateStep{
			by("ann", onCrit(label("r1", "score", 1), 1), onCrit(label("r1", "score", 0.5), 2), label("r1", "score", 0)),
			by("ann", onCrit(label("r1", "score", 0), 2)), undoBy("ann")}},
		{"a note is per item, whatever its criterion", []stateStep{
			by("ann", onCrit(note("r1", "on criterion 2"), 2)), by("ann", note("r1", "whole item")),
			undoBy("ann"), by("ann", onCrit(note("r1", "again"), 3))}},
		{"empty note clears, undo brings it back", []stateStep{
			by("ann", note("q1", "first")), by("ann", note("q1", "")), by("ann", note("q2", "")), undoBy("ann"), undoBy("ann")}},
		{"annotators undo their own groups", []stateStep{
			by("ann", label("q1", "correct", 1)), by("bob", label("q1", "correct", 0), note("q1", "no")),
			by("ann", label("q1", "correct", 0)), undoBy("bob"), by("bob", label("q3", "correct", 0)),
			undoBy("ann"), by("ann", label("q2", "correct", 1)), undoBy("bob"), undoBy("bob")}},
		{"imported annotator beside live ones", []stateStep{
			by("ann", label("q1", "correct", 1)),
			{who: "HumanJudgement", imported: [][]Action{
				{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 0, Via: ViaImported}},
				{{Kind: KindLabel, ItemID: "q2", Dimension: "correct", Value: 1, Via: ViaImported}, note("q2", "imported note")}}},
			{who: "HumanJudgement", imported: [][]Action{
				{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: ViaImported}}}},
			by("ann", label("q2", "correct", 0)), undoBy("ann")}},
		{"hand-written undo of one action of a group", []stateStep{
			by("ann", label("q1", "correct", 1)),
			by("ann", label("q1", "correct", 0), label("q2", "correct", 0), note("q2", "x")),
			{who: "ann", rawUndo: []int{1, 0}},
			{who: "ann", rawUndo: []int{1, 2}}}},
		{"hand-written undo of a whole older group", []stateStep{
			by("ann", label("q1", "correct", 1)), by("ann", label("q2", "correct", 0)),
			{who: "ann", rawUndo: []int{0, 0}}, by("ann", label("q3", "correct", 1))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newStatePlay(t)
			for i, st := range tc.steps {
				p.play(t, i, st)
			}
			p.undoAll(t)
		})
	}
}

// TestLabelStateMatchesViewsRandom does the same on a long random history
// of three annotators, one of them imported. The race detector slows the
// pure-Go SQLite some fiftyfold: it plays a shorter one there.
func TestLabelStateMatchesViewsRandom(t *testing.T) {
	n := 400
	if raceDetector || testing.Short() {
		n = 60
	}
	rng := rand.New(rand.NewPCG(8, 2025))
	items := []string{"q1", "q2", "r1", "q3"}
	action := func() Action {
		item := items[rng.IntN(len(items))]
		switch rng.IntN(6) {
		case 0:
			if rng.IntN(3) == 0 {
				return note(item, "")
			}
			return note(item, fmt.Sprintf("note %d", rng.IntN(5)))
		case 1:
			return onCrit(accept(item, "correct", float64(rng.IntN(2))), rng.IntN(3))
		default:
			return onCrit(label(item, []string{"correct", "score"}[rng.IntN(2)], float64(rng.IntN(3))/2), rng.IntN(3))
		}
	}
	group := func() []Action {
		g := make([]Action, 1+rng.IntN(3))
		for i := range g {
			g[i] = action()
		}
		return g
	}
	p := newStatePlay(t)
	for i := range n {
		who := []string{"ann", "ann", "bob", "imp"}[rng.IntN(4)]
		var st stateStep
		switch {
		case who == "imp":
			st = stateStep{who: who, imported: [][]Action{group(), group()}}
		case rng.IntN(3) == 0:
			st = undoBy(who)
		default:
			st = by(who, group()...)
		}
		p.play(t, i, st)
		if t.Failed() {
			t.FailNow()
		}
	}
	p.undoAll(t)
}

// statePlay is a session and, per annotator, the state a screen keeps.
type statePlay struct {
	stores map[string]*Store // annotators that label live
	path   string
	live   map[string]*LabelState
	groups [][]Action // what each step recorded
	who    map[string]bool
}

func newStatePlay(t *testing.T) *statePlay {
	ann, path := newSession(t)
	return &statePlay{
		stores: map[string]*Store{"ann": ann, "bob": openStore(t, path, "bob")},
		path:   path,
		live:   map[string]*LabelState{},
		who:    map[string]bool{},
	}
}

func (p *statePlay) play(t *testing.T, i int, st stateStep) {
	t.Helper()
	s := p.stores["ann"]
	live := p.live[st.who]
	if live == nil && !p.who[st.who] {
		live = &LabelState{}
		p.live[st.who] = live
	}
	p.who[st.who] = true
	var recorded []Action
	switch {
	case st.undo:
		var keys []LabelKey
		if live != nil {
			keys = live.Undo()
		}
		undone, err := p.stores[st.who].Undo()
		if err != nil {
			t.Fatalf("step %d: Undo: %v", i, err)
		}
		if want := actionKeys(undone); live != nil && !reflect.DeepEqual(keys, want) {
			t.Errorf("step %d: LabelState.Undo touched %v; the store undid %v", i, keys, want)
		}
	case st.imported != nil:
		for _, g := range st.imported {
			if live != nil {
				if err := live.Apply(g); err != nil {
					t.Fatalf("step %d: Apply: %v", i, err)
				}
			}
		}
		if _, err := s.recordGroups(st.who, st.imported); err != nil {
			t.Fatalf("step %d: recordGroups: %v", i, err)
		}
	case st.rawUndo != nil:
		target := p.groups[st.rawUndo[0]][st.rawUndo[1]]
		db := rawDB(t, p.path)
		if _, err := db.Exec(`INSERT INTO actions (group_id, kind, item_id, criterion, dimension, note, via, annotator, at, undoes)
			VALUES ((SELECT max(group_id) + 1 FROM actions), 'undo', ?, ?, ?, '', '', ?, ?, ?)`,
			target.ItemID, target.Criterion, target.Dimension, st.who, stamp(now()), target.ID); err != nil {
			t.Fatalf("step %d: writing an undo row by hand: %v", i, err)
		}
		db.Close()
		// The screen never sees such rows: only the replayed state counts.
		p.live[st.who] = nil
		live = nil
	default:
		if live != nil {
			if err := live.Apply(st.record); err != nil {
				t.Fatalf("step %d: Apply: %v", i, err)
			}
		}
		var err error
		if s = p.stores[st.who]; s == nil {
			recorded, err = p.stores["ann"].RecordAs(st.who, st.record)
		} else {
			recorded, err = s.Record(st.record)
		}
		if err != nil {
			t.Fatalf("step %d: Record: %v", i, err)
		}
	}
	p.groups = append(p.groups, recorded)
	if live != nil {
		checkState(t, fmt.Sprintf("step %d, %s's screen", i, st.who), live, p.stores["ann"], st.who)
	}
	checkState(t, fmt.Sprintf("step %d, %s replayed", i, st.who), p.replay(t, st.who), p.stores["ann"], st.who)
}

func (p *statePlay) replay(t *testing.T, who string) *LabelState {
	t.Helper()
	hist, err := p.stores["ann"].Actions(who)
	if err != nil {
		t.Fatal(err)
	}
	return ReplayLabels(hist)
}

// undoAll undoes, for each annotator with a store, everything on the
// state replayed from the history and on the store, checking each step.
func (p *statePlay) undoAll(t *testing.T) {
	t.Helper()
	for _, who := range slices.Sorted(maps.Keys(p.who)) {
		s := p.stores[who]
		if s == nil {
			continue
		}
		st := p.replay(t, who)
		for i := 0; ; i++ {
			can := st.CanUndo()
			keys := st.Undo()
			undone, err := s.Undo()
			if err != nil {
				t.Fatal(err)
			}
			if want := actionKeys(undone); !reflect.DeepEqual(keys, want) || can != (undone != nil) {
				t.Fatalf("%s's undo %d: LabelState undid %v (CanUndo %v); the store %v", who, i, keys, can, want)
			}
			checkState(t, fmt.Sprintf("%s after undo %d", who, i), st, s, who)
			if undone == nil {
				break
			}
		}
		if st.Len() != 0 {
			t.Errorf("%s: %d labels left after undoing everything", who, st.Len())
		}
	}
}

// actionKeys returns the distinct keys of actions, in order.
func actionKeys(acts []Action) []LabelKey {
	var out []LabelKey
	for _, a := range acts {
		k := LabelKey{ItemID: a.ItemID, Criterion: a.Criterion, Dimension: a.Dimension}
		switch {
		case a.Kind == KindNote:
			k = NoteKey(a.ItemID)
		case a.Retest:
			k = RetestKey(a.ItemID)
		case a.Kind == KindCantJudge:
			k = CantJudgeKey(a.ItemID)
		case a.Kind == KindTag:
			k = TagKey(a.ItemID, a.Tag)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// checkState compares st with the current_labels and current_notes views
// for who: every label, its value and whether it was accepted, and every
// item's note; and with the v8 views and columns (checkLabellingState).
func checkState(t *testing.T, what string, st *LabelState, s *Store, who string) {
	t.Helper()
	labels, err := s.Labels(who)
	if err != nil {
		t.Fatal(err)
	}
	show := func(v float64, accepted bool) string {
		if accepted {
			return fmt.Sprintf("%g*", v)
		}
		return fmt.Sprintf("%g", v)
	}
	want := map[LabelKey]string{}
	for _, l := range labels {
		k := LabelKey{ItemID: l.ItemID, Criterion: l.Criterion, Dimension: l.Dimension}
		want[k] = show(l.Value, l.Accepted)
		if v, ok := st.Label(k); !ok || show(v, st.Accepted(k)) != want[k] {
			t.Errorf("%s: Label(%v) = %v, %v; the view says %s", what, k, v, ok, want[k])
		}
	}
	got := map[LabelKey]string{}
	for k, v := range st.All() {
		got[k] = show(v, st.Accepted(k))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: labels %v; the view holds %v", what, got, want)
	}
	if st.Len() != len(want) {
		t.Errorf("%s: Len() = %d, want %d", what, st.Len(), len(want))
	}
	notes, err := s.Notes(who)
	if err != nil {
		t.Fatal(err)
	}
	wantNotes := map[string]string{}
	for _, n := range notes {
		wantNotes[n.ItemID] = n.Text
	}
	for _, it := range sampleItems() {
		if got := st.Note(it.ID); got != wantNotes[it.ID] {
			t.Errorf("%s: Note(%s) = %q; the view says %q", what, it.ID, got, wantNotes[it.ID])
		}
	}
	checkLabellingState(t, what, st, s, who)
}

func TestLabelStateApplyAndUndo(t *testing.T) {
	var st LabelState // the zero value is ready
	if st.CanUndo() || st.Undo() != nil || st.Len() != 0 || st.Note("q1") != "" {
		t.Fatal("the zero value is not empty")
	}
	k := LabelKey{ItemID: "q1", Dimension: "correct"}
	if _, ok := st.Label(k); ok {
		t.Fatal("a label on an empty state")
	}
	must := func(acts ...Action) {
		t.Helper()
		if err := st.Apply(acts); err != nil {
			t.Fatal(err)
		}
	}
	must(accept("q1", "correct", 1))
	must(label("q1", "correct", 0), note("q1", "why"), label("q2", "correct", 1), label("q1", "correct", 1))
	if v, ok := st.Label(k); !ok || v != 1 || st.Accepted(k) || st.Note("q1") != "why" || st.Len() != 2 {
		t.Errorf("after two groups: %v %v accepted=%v note=%q len=%d", v, ok, st.Accepted(k), st.Note("q1"), st.Len())
	}
	if _, ok := st.Label(NoteKey("q1")); ok {
		t.Error("Label of a note key")
	}
	var keys []string
	for k, v := range st.All() {
		keys = append(keys, fmt.Sprintf("%s/%d/%s=%g", k.ItemID, k.Criterion, k.Dimension, v))
	}
	if want := []string{"q1/0/correct=1", "q2/0/correct=1"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("All() = %v, want %v", keys, want)
	}
	got := st.Undo()
	if want := []LabelKey{k, NoteKey("q1"), {ItemID: "q2", Dimension: "correct"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Undo() = %v, want %v (each key once, in order)", got, want)
	}
	if v, ok := st.Label(k); !ok || v != 1 || !st.Accepted(k) || st.Note("q1") != "" || st.Len() != 1 {
		t.Errorf("after undo: %v %v accepted=%v note=%q len=%d", v, ok, st.Accepted(k), st.Note("q1"), st.Len())
	}
	if err := st.Apply(nil); err != nil || !st.CanUndo() {
		t.Errorf("Apply(nil) = %v", err)
	}
	if got := st.Undo(); !reflect.DeepEqual(got, []LabelKey{k}) || st.CanUndo() || st.Len() != 0 {
		t.Errorf("last Undo() = %v, CanUndo %v, Len %d", got, st.CanUndo(), st.Len())
	}
	// Apply refuses what Record refuses, and applies nothing then.
	for _, bad := range [][]Action{
		{label("q1", "correct", 1), {Kind: KindLabel, ItemID: "q1", Value: 1}},
		{{Kind: KindUndo, ItemID: "q1", Undoes: 1}},
		{label("", "correct", 1)},
		{onCrit(label("q1", "correct", 1), -1)},
	} {
		if err := st.Apply(bad); err == nil {
			t.Errorf("Apply(%+v) accepted", bad)
		}
	}
	if st.CanUndo() || st.Len() != 0 {
		t.Error("a refused group was applied")
	}
}

func TestReplayLabelsLeavesOutWhatNoStoreHolds(t *testing.T) {
	st := ReplayLabels([]Action{
		{ID: 1, Group: 1, Kind: "delete", ItemID: "q1", Dimension: "correct", Value: 1},
		{ID: 2, Group: 2, Kind: KindLabel, ItemID: "q1", Value: 1},
		{ID: 3, Group: 3, Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 0, Criterion: -1},
		{ID: 4, Group: 4, Kind: KindUndo, ItemID: "q1", Undoes: 99},
	})
	if st.CanUndo() || st.Len() != 0 || st.Note("q1") != "" {
		t.Errorf("replayed %d labels, CanUndo %v", st.Len(), st.CanUndo())
	}
}

// replayHistory is an annotator's history of n actions over n/2 items: one
// or two labels per key press, a note now and then, and one key press in
// ten undone.
func replayHistory(n int) []Action {
	hist := make([]Action, 0, n)
	var id, group int64
	add := func(a Action) {
		id++
		a.ID, a.Group, a.Annotator = id, group, "ann"
		hist = append(hist, a)
	}
	for len(hist) < n {
		group++
		item := fmt.Sprintf("item-%07d", (group*7919)%int64(n/2+1))
		switch group % 10 {
		case 3:
			add(Action{Kind: KindLabel, ItemID: item, Dimension: "correct", Value: 1})
			add(Action{Kind: KindNote, ItemID: item, Note: "looks wrong"})
		case 7:
			last := hist[len(hist)-1]
			group++
			add(Action{Kind: KindUndo, ItemID: last.ItemID, Dimension: last.Dimension, Undoes: last.ID})
		default:
			add(Action{Kind: KindAccept, ItemID: item, Dimension: "correct", Value: float64(group % 2)})
		}
	}
	return hist
}

// BenchmarkReplayLabels measures replaying 100,000 actions, and reports
// the heap a replayed state keeps per current label.
func BenchmarkReplayLabels(b *testing.B) {
	hist := replayHistory(100_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st := ReplayLabels(hist)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perLabel := float64(after.HeapAlloc-before.HeapAlloc) / float64(st.Len())
	runtime.KeepAlive(st)
	for b.Loop() {
		ReplayLabels(hist)
	}
	b.ReportMetric(perLabel, "heapB/label")
}
