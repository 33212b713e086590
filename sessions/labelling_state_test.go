package sessions

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func cantJudge(item, reason, text string) Action {
	return Action{Kind: KindCantJudge, ItemID: item, Reason: reason, Note: text, Via: "order"}
}

func tagged(item, tag string, on bool) Action {
	a := Action{Kind: KindTag, ItemID: item, Tag: tag, Via: "order"}
	if on {
		a.Value = 1
	}
	return a
}

func retest(a Action) Action { a.Retest = true; return a }

func underGuidelines(a Action, id int64) Action { a.Guidelines = id; return a }

// checkLabellingState compares what st derives of can't-judge, tags,
// re-tests, decisions and guidelines with what the session's views and
// columns say for who.
func checkLabellingState(t *testing.T, what string, st *LabelState, s *Store, who string) {
	t.Helper()
	cjs, err := s.CantJudges(who)
	if err != nil {
		t.Fatal(err)
	}
	wantCJ := map[string]string{}
	for _, c := range cjs {
		wantCJ[c.ItemID] = c.Reason + ":" + c.Note
	}
	tags, err := s.ItemTags(who)
	if err != nil {
		t.Fatal(err)
	}
	wantTags := map[string][]string{}
	for _, tg := range tags {
		wantTags[tg.ItemID] = append(wantTags[tg.ItemID], tg.Tag)
	}
	retested := map[string]bool{}
	for _, id := range queryStrings(t, s, `SELECT DISTINCT item_id FROM live_actions WHERE annotator = ? AND retest = 1`, who) {
		retested[id] = true
	}
	for _, it := range sampleItems() {
		got := ""
		if r, n, ok := st.CantJudge(it.ID); ok {
			got = r + ":" + n
		}
		if got != wantCJ[it.ID] {
			t.Errorf("%s: CantJudge(%s) = %q; current_cant_judge says %q", what, it.ID, got, wantCJ[it.ID])
		}
		if got := st.Tags(it.ID); !reflect.DeepEqual(got, wantTags[it.ID]) {
			t.Errorf("%s: Tags(%s) = %q; current_tags says %q", what, it.ID, got, wantTags[it.ID])
		}
		for _, tag := range []string{"format", "too strict", "hallucinated gold"} {
			if st.HasTag(it.ID, tag) != slices.Contains(wantTags[it.ID], tag) {
				t.Errorf("%s: HasTag(%s, %s) = %v", what, it.ID, tag, st.HasTag(it.ID, tag))
			}
		}
		if st.Retested(it.ID) != retested[it.ID] {
			t.Errorf("%s: Retested(%s) = %v; the history says %v", what, it.ID, st.Retested(it.ID), retested[it.ID])
		}
	}
	var decisions int
	if err := s.db.QueryRow(`SELECT count(DISTINCT group_id) FROM live_actions WHERE annotator = ? AND kind IN ('label', 'accept', 'cant_judge')`,
		who).Scan(&decisions); err != nil {
		t.Fatal(err)
	}
	if st.Decisions() != decisions {
		t.Errorf("%s: Decisions() = %d; the history holds %d", what, st.Decisions(), decisions)
	}
	// Each key's latest live re-test value, and each current label's
	// guidelines version.
	rows, err := s.db.Query(`SELECT a.item_id, a.criterion, a.dimension, a.value FROM live_actions a
		WHERE a.annotator = ? AND a.retest = 1 AND a.kind IN ('label', 'accept') AND a.id = (
			SELECT max(b.id) FROM live_actions b WHERE b.annotator = a.annotator AND b.retest = 1 AND b.kind IN ('label', 'accept')
			AND b.item_id = a.item_id AND b.criterion = a.criterion AND b.dimension = a.dimension)`, who)
	if err != nil {
		t.Fatal(err)
	}
	wantRetest := map[LabelKey]float64{}
	for rows.Next() {
		var k LabelKey
		var v float64
		if err := rows.Scan(&k.ItemID, &k.Criterion, &k.Dimension, &v); err != nil {
			t.Fatal(err)
		}
		wantRetest[k] = v
	}
	rows.Close()
	for _, it := range sampleItems() {
		for crit := range 3 {
			for _, dim := range []string{"correct", "score"} {
				k := LabelKey{ItemID: it.ID, Criterion: crit, Dimension: dim}
				v, ok := st.RetestLabel(k)
				if w, wok := wantRetest[k]; ok != wok || v != w {
					t.Errorf("%s: RetestLabel(%v) = %v, %v; the history says %v, %v", what, k, v, ok, w, wok)
				}
			}
		}
	}
	rows, err = s.db.Query(`SELECT l.item_id, l.criterion, l.dimension, coalesce(a.guidelines_id, 0)
		FROM current_labels l JOIN actions a ON a.id = l.action_id WHERE l.annotator = ?`, who)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k LabelKey
		var g int64
		if err := rows.Scan(&k.ItemID, &k.Criterion, &k.Dimension, &g); err != nil {
			t.Fatal(err)
		}
		if got := st.LabelGuidelines(k); got != g {
			t.Errorf("%s: LabelGuidelines(%v) = %d; the label's action says %d", what, k, got, g)
		}
	}
}

func queryStrings(t *testing.T, s *Store, q string, args ...any) []string {
	t.Helper()
	rows, err := s.db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var x string
		if err := rows.Scan(&x); err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	return out
}

// TestLabelStateMatchesViewsV8 plays histories with can't-judges, tags,
// re-tests and guidelines versions on a real session and on the screen's
// and the replayed LabelState (statePlay checks both after every step and
// while undoing everything at the end); want states the end by hand.
func TestLabelStateMatchesViewsV8(t *testing.T) {
	withGuidelines := func(t *testing.T) *statePlay {
		p := newStatePlay(t)
		for _, text := range []string{"v1", "v2"} {
			if _, _, err := p.stores["ann"].AddGuidelines(text); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	type end struct {
		cantJudge []string // item:reason:note
		labels    []string // item/criterion/dimension=value
		tags      []string // item:tag
		retested  []string
		decisions int
	}
	lbl := func(item string, v float64) Action { return label(item, "correct", v) }
	for _, tc := range []struct {
		name  string
		steps []stateStep
		want  end
	}{
		{"can't judge alone", []stateStep{by("ann", cantJudge("q1", ReasonOther, "no question"))},
			end{cantJudge: []string{"q1:other:no question"}, decisions: 1}},
		{"can't judge, then a label takes it back", []stateStep{
			by("ann", cantJudge("q1", ReasonGoldWrong, "")), by("ann", lbl("q1", 1))},
			end{labels: []string{"q1/0/correct=1"}, decisions: 2}},
		{"can't judge, label, undo: can't judge again", []stateStep{
			by("ann", cantJudge("q1", ReasonGoldWrong, "")), by("ann", lbl("q1", 1)), undoBy("ann")},
			end{cantJudge: []string{"q1:gold-wrong:"}, decisions: 1}},
		{"a label, then can't judge: the label stays, left out by statistics", []stateStep{
			by("ann", lbl("q1", 0)), by("ann", cantJudge("q1", ReasonAmbiguous, ""))},
			end{cantJudge: []string{"q1:ambiguous:"}, labels: []string{"q1/0/correct=0"}, decisions: 2}},
		{"an accept takes a can't judge back too", []stateStep{
			by("ann", cantJudge("q2", ReasonUnreadable, "")), by("ann", accept("q2", "correct", 1))},
			end{labels: []string{"q2/0/correct=1"}, decisions: 2}},
		{"a rubric criterion's label takes the item's can't judge back", []stateStep{
			by("ann", cantJudge("r1", ReasonAmbiguous, "")), by("ann", onCrit(label("r1", "score", 1), 2))},
			end{labels: []string{"r1/2/score=1"}, decisions: 2}},
		{"the latest can't judge's reason counts", []stateStep{
			by("ann", cantJudge("q1", ReasonAmbiguous, "")), by("ann", cantJudge("q1", ReasonOther, "both")),
			by("ann", cantJudge("q2", ReasonGoldWrong, "")), undoBy("ann")},
			end{cantJudge: []string{"q1:other:both"}, decisions: 2}},
		{"can't judge undone", []stateStep{by("ann", cantJudge("q1", ReasonAmbiguous, "")), undoBy("ann")}, end{}},
		{"a note and a tag are no decision and do not take a can't judge back", []stateStep{
			by("ann", cantJudge("q1", ReasonAmbiguous, "")), by("ann", note("q1", "hm")), by("ann", tagged("q1", "format", true))},
			end{cantJudge: []string{"q1:ambiguous:"}, tags: []string{"q1:format"}, decisions: 1}},
		{"a re-test does not take a can't judge back", []stateStep{
			by("ann", lbl("q1", 1)), by("ann", cantJudge("q1", ReasonAmbiguous, "")), by("ann", retest(lbl("q1", 0)))},
			end{cantJudge: []string{"q1:ambiguous:"}, labels: []string{"q1/0/correct=1"}, retested: []string{"q1"}, decisions: 3}},
		{"tags on, off, undo", []stateStep{
			by("ann", tagged("q1", "format", true)), by("ann", tagged("q1", "too strict", true)),
			by("ann", tagged("q1", "format", false)), by("ann", tagged("q2", "format", true)), undoBy("ann"), undoBy("ann")},
			end{tags: []string{"q1:format", "q1:too strict"}}},
		{"a tag off that was never on", []stateStep{by("ann", tagged("q3", "format", false))}, end{}},
		{"tags in one group with a label", []stateStep{
			by("ann", lbl("q2", 0), tagged("q2", "hallucinated gold", true), tagged("q2", "format", true)),
			by("ann", tagged("q2", "format", false))},
			end{labels: []string{"q2/0/correct=0"}, tags: []string{"q2:hallucinated gold"}, decisions: 1}},
		{"a re-test never replaces the first label", []stateStep{
			by("ann", lbl("q1", 1)), by("ann", lbl("q2", 1)), by("ann", retest(lbl("q1", 0)))},
			end{labels: []string{"q1/0/correct=1", "q2/0/correct=1"}, retested: []string{"q1"}, decisions: 3}},
		{"a re-test accept, and a re-test's undo", []stateStep{
			by("ann", lbl("q1", 0)), by("ann", retest(accept("q1", "correct", 1))), by("ann", retest(lbl("q2", 1))), undoBy("ann")},
			end{labels: []string{"q1/0/correct=0"}, retested: []string{"q1"}, decisions: 2}},
		{"a re-test can't judge", []stateStep{
			by("ann", lbl("q3", 1)), by("ann", retest(cantJudge("q3", ReasonUnreadable, "")))},
			end{labels: []string{"q3/0/correct=1"}, retested: []string{"q3"}, decisions: 2}},
		{"a relabel after the re-test replaces the first label", []stateStep{
			by("ann", lbl("q1", 1)), by("ann", retest(lbl("q1", 0))), by("ann", lbl("q1", 0))},
			end{labels: []string{"q1/0/correct=0"}, retested: []string{"q1"}, decisions: 3}},
		{"guidelines versions of labels", []stateStep{
			by("ann", underGuidelines(lbl("q1", 1), 1)), by("ann", underGuidelines(lbl("q2", 0), 1)),
			by("ann", underGuidelines(lbl("q1", 0), 2)), by("ann", underGuidelines(retest(lbl("q2", 1)), 2)),
			by("ann", underGuidelines(lbl("q2", 1), 2)), undoBy("ann")},
			end{labels: []string{"q1/0/correct=0", "q2/0/correct=0"}, retested: []string{"q2"}, decisions: 4}},
		{"two annotators: can't judge and tags are per person", []stateStep{
			by("ann", cantJudge("q1", ReasonGoldWrong, "")), by("bob", lbl("q1", 1)), by("bob", tagged("q1", "format", true)),
			by("ann", tagged("q2", "format", true))},
			end{cantJudge: []string{"q1:gold-wrong:"}, tags: []string{"q2:format"}, decisions: 1}},
		{"hand-written undo of the can't judge inside a group", []stateStep{
			by("ann", lbl("q2", 1), cantJudge("q1", ReasonOther, "x"), tagged("q1", "format", true)),
			{who: "ann", rawUndo: []int{0, 1}}},
			end{labels: []string{"q2/0/correct=1"}, tags: []string{"q1:format"}, decisions: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := withGuidelines(t)
			for i, st := range tc.steps {
				p.play(t, i, st)
			}
			st := p.replay(t, "ann")
			var got end
			for _, it := range sampleItems() {
				if r, n, ok := st.CantJudge(it.ID); ok {
					got.cantJudge = append(got.cantJudge, it.ID+":"+r+":"+n)
				}
				for _, tg := range st.Tags(it.ID) {
					got.tags = append(got.tags, it.ID+":"+tg)
				}
				if st.Retested(it.ID) {
					got.retested = append(got.retested, it.ID)
				}
			}
			for k, v := range st.All() {
				got.labels = append(got.labels, fmt.Sprintf("%s/%d/%s=%g", k.ItemID, k.Criterion, k.Dimension, v))
			}
			slices.Sort(got.labels)
			got.decisions = st.Decisions()
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ann's state at the end:\n got %+v\nwant %+v", got, tc.want)
			}
			p.undoAll(t)
		})
	}
}

// TestLabelStateMatchesViewsV8Random plays a long random history with
// every kind of action on a session and on LabelStates.
func TestLabelStateMatchesViewsV8Random(t *testing.T) {
	n := 300
	if raceDetector || testing.Short() {
		n = 50
	}
	rng := rand.New(rand.NewPCG(19, 2026))
	items := []string{"q1", "q2", "r1", "q3"}
	action := func() Action {
		item := items[rng.IntN(len(items))]
		var a Action
		switch rng.IntN(8) {
		case 0:
			a = note(item, fmt.Sprintf("note %d", rng.IntN(3)))
		case 1:
			a = cantJudge(item, CantJudgeReasons[rng.IntN(4)], fmt.Sprintf("why %d", rng.IntN(2)))
		case 2:
			a = tagged(item, []string{"format", "too strict", "hallucinated gold"}[rng.IntN(3)], rng.IntN(3) > 0)
		case 3:
			a = onCrit(accept(item, "correct", float64(rng.IntN(2))), rng.IntN(3))
		default:
			a = onCrit(label(item, []string{"correct", "score"}[rng.IntN(2)], float64(rng.IntN(3))/2), rng.IntN(3))
		}
		if (a.Kind == KindLabel || a.Kind == KindAccept || a.Kind == KindCantJudge) && rng.IntN(5) == 0 {
			a.Retest = true
		}
		a.Guidelines = int64(rng.IntN(3))
		return a
	}
	p := newStatePlay(t)
	for _, text := range []string{"v1", "v2"} {
		if _, _, err := p.stores["ann"].AddGuidelines(text); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		who := []string{"ann", "ann", "bob"}[rng.IntN(3)]
		var st stateStep
		if rng.IntN(4) == 0 {
			st = undoBy(who)
		} else {
			g := make([]Action, 1+rng.IntN(3))
			for k := range g {
				g[k] = action()
			}
			st = by(who, g...)
		}
		p.play(t, i, st)
		if t.Failed() {
			t.FailNow()
		}
	}
	p.undoAll(t)
}

func TestLabelStateApplyRefusesBadV8Actions(t *testing.T) {
	var st LabelState
	for _, bad := range []Action{
		{Kind: KindCantJudge, ItemID: "q1"},
		{Kind: KindCantJudge, ItemID: "q1", Reason: "boring"},
		{Kind: KindTag, ItemID: "q1", Value: 1},
		{Kind: KindTag, ItemID: "q1", Tag: " padded ", Value: 1},
		{Kind: KindTag, ItemID: "q1", Tag: "a,b", Value: 1},
		{Kind: KindTag, ItemID: "q1", Tag: "format", Value: 2},
		{Kind: KindNote, ItemID: "q1", Note: "x", Retest: true},
		{Kind: KindTag, ItemID: "q1", Tag: "format", Value: 1, Retest: true},
		{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Reason: ReasonOther},
		{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Tag: "format"},
		{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Shown: 7},
	} {
		if err := st.Apply([]Action{label("q2", "correct", 1), bad}); err == nil {
			t.Errorf("Apply accepted %+v", bad)
		}
	}
	if st.CanUndo() || st.Len() != 0 || st.Decisions() != 0 {
		t.Error("a refused group was applied")
	}
	// What Apply refuses, Record refuses.
	s, _ := newSession(t)
	if _, err := s.Record([]Action{{Kind: KindTag, ItemID: "q1", Tag: "bad\x1b[31m", Value: 1}}); err == nil {
		t.Error("Record stored a tag with an escape sequence")
	}
	if tags, _ := s.TagSet(); len(tags) != 0 {
		t.Errorf("a refused tag joined the set: %q", tags)
	}
}

func TestLabelStateUndoKeys(t *testing.T) {
	var st LabelState
	must := func(acts ...Action) {
		t.Helper()
		if err := st.Apply(acts); err != nil {
			t.Fatal(err)
		}
	}
	must(label("q1", "correct", 1), cantJudge("q2", ReasonOther, "x"), tagged("q1", "format", true),
		retest(label("q3", "correct", 1)), retest(label("q3", "other", 0)), note("q1", "n"))
	want := []LabelKey{{ItemID: "q1", Dimension: "correct"}, CantJudgeKey("q2"), TagKey("q1", "format"), RetestKey("q3"), NoteKey("q1")}
	if got := st.Undo(); !reflect.DeepEqual(got, want) {
		t.Errorf("Undo() = %v, want %v", got, want)
	}
	for _, k := range want[1:4] {
		if k.IsNote() {
			t.Errorf("%v reads as a note key", k)
		}
		if _, ok := st.Label(k); ok {
			t.Errorf("Label(%v) has a value", k)
		}
	}
	if st.LabelGuidelines(NoteKey("q1")) != 0 {
		t.Error("a note key has a guidelines version")
	}
}

// TestRetestsDue: an item comes back once, blind, after at least gap
// other decisions since its first label, in the seeded share only, and
// again when its re-test is undone.
func TestRetestsDue(t *testing.T) {
	const gap = 20
	id := func(i int) string { return fmt.Sprintf("it-%02d", i) }
	var st LabelState
	must := func(acts ...Action) {
		t.Helper()
		if err := st.Apply(acts); err != nil {
			t.Fatal(err)
		}
	}
	due := func() []string { return st.RetestsDue("ann", 7, 1, gap) }
	ids := func(from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, id(i))
		}
		return out
	}
	for i := range 25 { // decisions 1..25, one item each
		must(label(id(i), "correct", 1))
		if i < gap && len(due()) != 0 {
			t.Fatalf("after %d decisions %v are due", i+1, due())
		}
	}
	// it-00 has 24 decisions after it, it-04 20, it-05 19.
	if got := due(); !reflect.DeepEqual(got, ids(0, 4)) {
		t.Fatalf("due after 25 decisions = %v, want it-00..it-04", got)
	}
	must(note("it-30", "x"))
	must(tagged("it-30", "format", true))
	if got := due(); !reflect.DeepEqual(got, ids(0, 4)) {
		t.Fatalf("a note and a tag counted as decisions: %v", got)
	}
	must(label(id(1), "correct", 0)) // a relabel: it-01's first label stays where it was
	if got := due(); !reflect.DeepEqual(got, ids(0, 5)) {
		t.Fatalf("due after a relabel = %v, want it-00..it-05", got)
	}
	must(retest(label(id(0), "correct", 1)))
	if got := due(); !reflect.DeepEqual(got, ids(1, 6)) {
		t.Fatalf("due after it-00's re-test = %v, want it-01..it-06 (the re-test is a decision)", got)
	}
	st.Undo()
	if got := due(); !reflect.DeepEqual(got, ids(0, 5)) {
		t.Fatalf("undoing the re-test: due %v, want it-00..it-05 again", got)
	}
	must(retest(cantJudge(id(0), ReasonAmbiguous, "")))
	must(cantJudge(id(2), ReasonGoldWrong, ""))
	if got := due(); !reflect.DeepEqual(got, []string{id(1), id(3), id(4), id(5), id(6), id(7)}) {
		t.Fatalf("due = %v: a re-test can't judge is a re-test, an item that is can't judge now is not due", got)
	}
	// Each comes back once: re-test them all, then many more decisions.
	for _, it := range due() {
		must(retest(label(it, "correct", 0)))
	}
	for i := 40; i < 100; i++ {
		must(label(id(i), "correct", 1))
	}
	for _, it := range st.RetestsDue("ann", 7, 1, gap) {
		if slices.Contains(ids(0, 7), it) {
			t.Errorf("%s is due a second time", it)
		}
	}
	// Undo back past the first labels: their items are no longer due, and
	// labels made again start their gap again.
	for st.CanUndo() {
		st.Undo()
	}
	if got := due(); len(got) != 0 {
		t.Fatalf("nothing labelled, yet %v due", got)
	}
	must(label(id(3), "correct", 1))
	for i := range gap - 1 {
		must(label(id(50+i), "correct", 1))
	}
	if got := due(); len(got) != 0 {
		t.Fatalf("after %d decisions %v due", gap-1, got)
	}
	must(label(id(99), "correct", 1))
	if got := due(); !reflect.DeepEqual(got, []string{id(3)}) {
		t.Fatalf("after the gap: %v, want [it-03]", got)
	}
}

// TestRetestsDueShare: only the seeded share comes back, the same items
// for the same seed, and other annotators draw other items.
func TestRetestsDueShare(t *testing.T) {
	var st LabelState
	for i := range 400 {
		if err := st.Apply([]Action{label(fmt.Sprintf("item-%03d", i), "correct", 1)}); err != nil {
			t.Fatal(err)
		}
	}
	got := st.RetestsDue("ann", 42, 0.25, 0)
	var want []string
	for i := range 400 {
		if id := fmt.Sprintf("item-%03d", i); InShare(42, "retest:ann", id, 0.25) {
			want = append(want, id)
		}
	}
	if !reflect.DeepEqual(got, want) || len(want) < 60 || len(want) > 140 {
		t.Fatalf("due %d items, want the %d in the share", len(got), len(want))
	}
	if bob := st.RetestsDue("bob", 42, 0.25, 0); reflect.DeepEqual(bob, got) {
		t.Error("another annotator's share is the same")
	}
	if again := st.RetestsDue("ann", 42, 0.25, 0); !reflect.DeepEqual(again, want) {
		t.Error("a second call after switching annotators differs")
	}
	if other := st.RetestsDue("ann", 43, 0.25, 0); reflect.DeepEqual(other, got) {
		t.Error("another seed draws the same items")
	}
	if none := st.RetestsDue("ann", 42, 0, 0); none != nil {
		t.Errorf("share 0: %d due", len(none))
	}
}

// TestRetestsDueIncremental: the answer kept between calls equals a fresh
// state's on a random history of labels, re-tests and undos.
func TestRetestsDueIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var live LabelState
	var groups [][]Action
	for step := range 3000 {
		switch r := rng.IntN(10); {
		case r < 2 && live.CanUndo():
			live.Undo()
			groups = groups[:len(groups)-1]
		default:
			item := fmt.Sprintf("item-%03d", rng.IntN(300))
			a := label(item, "correct", float64(rng.IntN(2)))
			switch {
			case r == 2:
				a.Retest = true
			case r == 3:
				a = cantJudge(item, ReasonAmbiguous, "")
			case r == 4:
				a = tagged(item, "format", true)
			}
			if err := live.Apply([]Action{a}); err != nil {
				t.Fatal(err)
			}
			groups = append(groups, []Action{a})
		}
		if step%7 != 0 {
			continue
		}
		var fresh LabelState
		for _, g := range groups {
			if err := fresh.Apply(g); err != nil {
				t.Fatal(err)
			}
		}
		got, want := live.RetestsDue("ann", 1, 0.3, 10), fresh.RetestsDue("ann", 1, 0.3, 10)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: kept answer %v, fresh %v", step, got, want)
		}
	}
}

// BenchmarkRetestsDueAfterADecision is the screen's call after each
// decision late in a long history: 100,000 labels, a 5 % re-test share,
// every due item already re-tested. It should not walk those re-tests.
func BenchmarkRetestsDueAfterADecision(b *testing.B) {
	st := ReplayLabels(nil)
	const n = 100_000
	for i := range n {
		if err := st.Apply([]Action{label(fmt.Sprintf("item-%06d", i), "correct", 1)}); err != nil {
			b.Fatal(err)
		}
	}
	for _, id := range st.RetestsDue("ann", 1, 0.05, 20) {
		if err := st.Apply([]Action{retest(label(id, "correct", 1))}); err != nil {
			b.Fatal(err)
		}
	}
	st.RetestsDue("ann", 1, 0.05, 20)
	i := n
	for b.Loop() {
		i++
		if err := st.Apply([]Action{label(fmt.Sprintf("item-%06d", i), "correct", 1)}); err != nil {
			b.Fatal(err)
		}
		st.RetestsDue("ann", 1, 0.05, 20)
	}
}
