package sessions

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGuidelinesVersions(t *testing.T) {
	s, path := newSession(t)
	if vs, err := s.GuidelinesVersions(); err != nil || len(vs) != 0 {
		t.Fatalf("a new session's guidelines: %v, %v", vs, err)
	}
	steps := []struct {
		text   string
		id     int64
		isNew  bool
		sha256 string
	}{
		{"# Guidelines\n", 1, true, ""},
		{"# Guidelines\n", 1, false, ""},
		{"# Guidelines\n\nA typo is YES.\n", 2, true, ""},
		{"", 3, true, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}, // SHA-256 of nothing
		{"# Guidelines\n", 1, false, ""},                                                  // going back to an old file is that version again
	}
	var first GuidelinesVersion
	for i, st := range steps {
		v, isNew, err := s.AddGuidelines(st.text)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if v.ID != st.id || isNew != st.isNew || v.Text != st.text || v.SHA256 != GuidelinesSHA256(st.text) || v.FirstSeen.IsZero() {
			t.Errorf("step %d: AddGuidelines = %+v, %v; want id %d, new %v", i, v, isNew, st.id, st.isNew)
		}
		if st.text == "" && v.SHA256 != st.sha256 {
			t.Errorf("SHA-256 of the empty text = %s", v.SHA256)
		}
		if i == 0 {
			first = v
		} else if v.ID == 1 && v != first {
			t.Errorf("step %d: the known version came back as %+v, first stored as %+v", i, v, first)
		}
	}
	vs, err := s.GuidelinesVersions()
	if err != nil || len(vs) != 3 || vs[0] != first || vs[1].ID != 2 || vs[2].ID != 3 {
		t.Fatalf("GuidelinesVersions = %+v, %v", vs, err)
	}
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, _, err := ro.AddGuidelines("new"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("AddGuidelines on a read-only store: %v", err)
	}
	if got, err := ro.GuidelinesVersions(); err != nil || !reflect.DeepEqual(got, vs) {
		t.Errorf("read-only GuidelinesVersions = %v, %v", got, err)
	}
}

// TestOlderGuidelinesLabels counts the current labels made under another
// version than the one on screen, per annotator, as labels are remade and
// undone.
func TestOlderGuidelinesLabels(t *testing.T) {
	s, path := newSession(t)
	bob := openStore(t, path, "bob")
	for _, text := range []string{"v1", "v2", "v3"} {
		if _, _, err := s.AddGuidelines(text); err != nil {
			t.Fatal(err)
		}
	}
	type count struct {
		annotator string
		current   int64
		want      int
	}
	for _, st := range []struct {
		name   string
		who    *Store
		acts   []Action
		undo   bool
		counts []count
	}{
		{"labels without guidelines are not older", s, []Action{label("q1", "correct", 1)},
			false, []count{{"ann", 2, 0}, {"", 2, 0}}},
		{"two labels under v1", s, []Action{underGuidelines(label("q2", "correct", 1), 1), underGuidelines(label("q3", "correct", 0), 1)},
			false, []count{{"ann", 2, 2}, {"ann", 1, 0}, {"ann", 0, 0}, {"bob", 2, 0}}},
		{"bob under v2", bob, []Action{underGuidelines(label("q2", "correct", 0), 2)},
			false, []count{{"bob", 2, 0}, {"bob", 3, 1}, {"", 3, 3}, {"", 2, 2}, {"", 1, 1}}},
		{"q2 remade under v2", s, []Action{underGuidelines(label("q2", "correct", 0), 2)},
			false, []count{{"ann", 2, 1}, {"ann", 1, 1}}},
		{"a re-test under v2 does not remake q3", s, []Action{underGuidelines(retest(label("q3", "correct", 1)), 2)},
			false, []count{{"ann", 2, 1}}},
		{"a can't judge and a tag are not labels", s, []Action{underGuidelines(cantJudge("r1", ReasonOther, "?"), 1),
			underGuidelines(tagged("r1", "format", true), 1)}, false, []count{{"ann", 2, 1}}},
		{"undo the re-test", s, nil, true, []count{{"ann", 2, 1}}},
		{"undo the can't judge and tag", s, nil, true, []count{{"ann", 2, 1}}},
		{"undo the remake: q2 is older again", s, nil, true, []count{{"ann", 2, 2}, {"ann", 3, 2}}},
	} {
		if st.undo {
			if _, err := st.who.Undo(); err != nil {
				t.Fatal(err)
			}
		} else if _, err := st.who.Record(st.acts); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		for _, c := range st.counts {
			if n, err := s.OlderGuidelinesLabels(c.annotator, c.current); err != nil || n != c.want {
				t.Errorf("%s: OlderGuidelinesLabels(%q, %d) = %d, %v; want %d", st.name, c.annotator, c.current, n, err, c.want)
			}
		}
	}
	// A decision cannot name a version the session does not hold.
	if _, err := s.Record([]Action{underGuidelines(label("q1", "correct", 1), 9)}); err == nil || !strings.Contains(err.Error(), "guidelines version 9") {
		t.Errorf("a label under an unknown guidelines version: %v", err)
	}
}

func TestCheckTagName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"too strict", true},
		{"hallucinated gold", true},
		{"é—✓ 日本語", true},
		{"👩‍💻", true}, // a ZWJ sequence is no control character
		{strings.Repeat("x", MaxTagRunes), true},
		{strings.Repeat("é", MaxTagRunes), true},
		{strings.Repeat("x", MaxTagRunes+1), false},
		{"", false},
		{" ", false},
		{" padded", false},
		{"padded\t", false},
		{"a,b", false},
		{"bell\a", false},
		{"esc\x1b[31mred", false},
		{"new\nline", false},
		{"nul\x00", false},
		{"del\x7f", false},
		{"c1\u0085", false},
		{"bidi\u202eevil", false},
		{"isolate\u2066x", false},
		{"mark\u200fx", false},
		{"bad\xffutf8", false},
		// Format characters (Cf) that draw nothing: the name would look
		// like another ("zw\u200bsp" like "zwsp").
		{"zw\u200bsp", false},
		{"\u200bzwsp", false},
		{"word\u2060joiner", false},
		{"soft\u00adhyphen", false},
		{"bom\ufeff", false},
		{"a\u200db", false},       // a joiner between Latin letters shows nothing
		{"a\u200cb", false},       // so does a non-joiner
		{"\u200d👩", false},        // nor at an end
		{"tag\U000e0041x", false}, // a tag character
		{"interlinear\ufff9x", false},
		// Joiners that change what is drawn stay allowed.
		{"🧑🏽\u200d💻", true},      // after a skin tone
		{"🏳\ufe0f\u200d🌈", true}, // after a variation selector
		{"می\u200cخواهم", true},  // Persian: the non-joiner keeps the letters apart
		{"क्\u200dष", true},      // Devanagari: the joiner picks a half form
	} {
		err := CheckTagName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckTagName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestParseTagList(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string
		bad  bool
	}{
		{"too strict,format,hallucinated gold", []string{"too strict", "format", "hallucinated gold"}, false},
		{" a , b ,, a,", []string{"a", "b"}, false},
		{"", nil, false},
		{" , ,", nil, false},
		{"ok,bad\x1b", nil, true},
		{"ok," + strings.Repeat("y", 41), nil, true},
	} {
		got, err := ParseTagList(tc.list)
		if (err != nil) != tc.bad || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseTagList(%q) = %q, %v; want %q, error %v", tc.list, got, err, tc.want, tc.bad)
		}
	}
}

// FuzzParseTagList: whatever the list, the names it gives pass
// CheckTagName, are distinct, and read back the same when joined.
func FuzzParseTagList(f *testing.F) {
	for _, seed := range []string{"too strict,format", " a , b ,, a,", "x\x1by", "é,\u202e", strings.Repeat("z", 45), "👩‍💻,  ,👩‍💻"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		names, err := ParseTagList(list)
		if err != nil {
			if names != nil {
				t.Errorf("names %q with error %v", names, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, n := range names {
			if err := CheckTagName(n); err != nil {
				t.Errorf("ParseTagList(%q) gave %q: %v", list, n, err)
			}
			if seen[n] {
				t.Errorf("ParseTagList(%q) gave %q twice", list, n)
			}
			seen[n] = true
			if !utf8.ValidString(n) || strings.Contains(n, ",") {
				t.Errorf("ParseTagList(%q) gave %q", list, n)
			}
		}
		again, err := ParseTagList(strings.Join(names, ","))
		if err != nil || len(again) != len(names) || (len(names) > 0 && !reflect.DeepEqual(again, names)) {
			t.Errorf("joined %q reads back as %q, %v", names, again, err)
		}
	})
}

// TestTagSet: tags keep the order they were added in, from AddTags and
// from tags used on items; a bad name adds nothing.
func TestTagSet(t *testing.T) {
	s, _ := newSession(t)
	steps := []struct {
		add  []string
		use  string // a tag put on an item
		bad  bool
		want []string
	}{
		{add: []string{"too strict", " format ", "hallucinated gold"}, want: []string{"too strict", "format", "hallucinated gold"}},
		{add: []string{"format", "zzz", "aaa"}, want: []string{"too strict", "format", "hallucinated gold", "zzz", "aaa"}},
		{use: "on the screen", want: []string{"too strict", "format", "hallucinated gold", "zzz", "aaa", "on the screen"}},
		{use: "zzz", want: []string{"too strict", "format", "hallucinated gold", "zzz", "aaa", "on the screen"}},
		{add: []string{"fine", "a,b"}, bad: true, want: []string{"too strict", "format", "hallucinated gold", "zzz", "aaa", "on the screen"}},
		{add: []string{"ok", ""}, bad: true, want: []string{"too strict", "format", "hallucinated gold", "zzz", "aaa", "on the screen"}},
		{add: nil, want: []string{"too strict", "format", "hallucinated gold", "zzz", "aaa", "on the screen"}},
	}
	for i, st := range steps {
		var err error
		if st.use != "" {
			_, err = s.Record([]Action{tagged("q1", st.use, true)})
		} else {
			err = s.AddTags(st.add...)
		}
		if (err != nil) != st.bad {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, err := s.TagSet(); err != nil || !reflect.DeepEqual(got, st.want) {
			t.Errorf("step %d: TagSet = %q, %v; want %q", i, got, err, st.want)
		}
	}
}

// TestItemTagsAndCantJudges reads the current tags and can't-judges of
// two people, in item order.
func TestItemTagsAndCantJudges(t *testing.T) {
	s, path := newSession(t)
	bob := openStore(t, path, "bob")
	for _, st := range []struct {
		who  *Store
		acts []Action
		undo bool
	}{
		{who: s, acts: []Action{tagged("q3", "format", true), tagged("q1", "zeta", true), tagged("q1", "alpha", true)}},
		{who: bob, acts: []Action{tagged("q1", "format", true), cantJudge("q3", ReasonOther, "no gold")}},
		{who: s, acts: []Action{cantJudge("q2", ReasonGoldWrong, ""), tagged("q3", "format", false)}},
		{who: s, acts: []Action{cantJudge("q1", ReasonAmbiguous, "")}},
		{who: s, undo: true},
		{who: s, acts: []Action{cantJudge("r1", ReasonUnreadable, "")}},
		{who: s, acts: []Action{label("r1", "correct", 1)}},
	} {
		var err error
		if st.undo {
			_, err = st.who.Undo()
		} else {
			_, err = st.who.Record(st.acts)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	show := func(v any) string { return fmt.Sprintf("%v", v) }
	tags := func(who string) []string {
		got, err := s.ItemTags(who)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tg := range got {
			if tg.At.IsZero() {
				t.Errorf("%+v has no time", tg)
			}
			out = append(out, tg.Annotator+":"+tg.ItemID+":"+tg.Tag)
		}
		return out
	}
	cjs := func(who string) []string {
		got, err := s.CantJudges(who)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range got {
			if c.At.IsZero() || c.ActionID == 0 {
				t.Errorf("%+v has no time or action", c)
			}
			out = append(out, c.Annotator+":"+c.ItemID+":"+c.Reason+":"+c.Note)
		}
		return out
	}
	for _, tc := range []struct {
		got, want []string
	}{
		{tags(""), []string{"ann:q1:alpha", "bob:q1:format", "ann:q1:zeta"}},
		{tags("ann"), []string{"ann:q1:alpha", "ann:q1:zeta"}},
		{tags("carol"), nil},
		{cjs(""), []string{"ann:q2:gold-wrong:", "bob:q3:other:no gold"}},
		{cjs("bob"), []string{"bob:q3:other:no gold"}},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("got %s, want %s", show(tc.got), show(tc.want))
		}
	}
}

// TestUndoItem takes back one person's latest decision on one item,
// whatever they did after on other items, and only its actions on that
// item.
func TestUndoItem(t *testing.T) {
	s, path := newSession(t)
	bob := openStore(t, path, "bob")
	record := func(st *Store, acts ...Action) {
		t.Helper()
		if _, err := st.Record(acts); err != nil {
			t.Fatal(err)
		}
	}
	record(s, label("q1", "correct", 1))
	record(s, label("q1", "correct", 0), label("q2", "correct", 1), note("q1", "why"))
	record(s, cantJudge("q3", ReasonOther, "x"))
	record(bob, label("q1", "correct", 1))
	record(s, tagged("q2", "format", true))

	steps := []struct {
		item   string
		undone []string // kind:item of what it undid
		labels []string // ann's labels after
	}{
		{"q1", []string{"label:q1", "note:q1"}, []string{"q1/0/correct=1", "q2/0/correct=1"}},
		{"q1", []string{"label:q1"}, []string{"q2/0/correct=1"}},
		{"q1", nil, []string{"q2/0/correct=1"}},
		{"q9", nil, []string{"q2/0/correct=1"}},
		{"q2", []string{"tag:q2"}, []string{"q2/0/correct=1"}},
		{"q2", []string{"label:q2"}, nil},
		{"q3", []string{"cant_judge:q3"}, nil},
	}
	for i, st := range steps {
		undone, err := s.UndoItem(st.item)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range undone {
			if a.Annotator != "ann" || a.ID == 0 {
				t.Errorf("step %d: undid %+v", i, a)
			}
			got = append(got, string(a.Kind)+":"+a.ItemID)
		}
		if !reflect.DeepEqual(got, st.undone) {
			t.Errorf("step %d: UndoItem(%s) undid %v, want %v", i, st.item, got, st.undone)
		}
		labels, err := s.Labels("ann")
		if err != nil {
			t.Fatal(err)
		}
		var ls []string
		for _, l := range labels {
			ls = append(ls, labelKey(l))
		}
		if !reflect.DeepEqual(ls, st.labels) {
			t.Errorf("step %d: ann's labels %v, want %v", i, ls, st.labels)
		}
	}
	if l, _ := s.Labels("bob"); len(l) != 1 {
		t.Errorf("bob's label went with ann's undo: %v", l)
	}
	if cj, _ := s.CantJudges(""); len(cj) != 0 {
		t.Errorf("can't judge left after its undo: %v", cj)
	}
	// The state replayed from the history agrees with the views.
	hist, err := s.Actions("ann")
	if err != nil {
		t.Fatal(err)
	}
	st := ReplayLabels(hist)
	checkState(t, "after UndoItem", st, s, "ann")
	// Undo rows are one group per call, in the store's sitting.
	last := hist[len(hist)-1]
	if last.Kind != KindUndo || last.Sitting == "" {
		t.Errorf("the last undo row: %+v", last)
	}
}

func TestItemLookup(t *testing.T) {
	s, _ := newSession(t)
	all, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range all {
		got, ok, err := s.Item(want.ID)
		if err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Item(%q) = %+v, %v, %v\nwant %+v", want.ID, got, ok, err, want)
		}
	}
	if _, ok, err := s.Item("nope"); ok || err != nil {
		t.Errorf("Item of an unknown id: %v, %v", ok, err)
	}
	ids, err := s.ItemIDs()
	if err != nil || !reflect.DeepEqual(ids, []string{"q1", "q2", "r1", "q3"}) {
		t.Errorf("ItemIDs = %v, %v", ids, err)
	}
}

func TestInShare(t *testing.T) {
	// Determinism and edges.
	for _, share := range []float64{0, -1, math.NaN()} {
		if InShare(1, "blind", "x", share) {
			t.Errorf("share %v holds an item", share)
		}
	}
	if !InShare(1, "blind", "x", 1) || !InShare(1, "blind", "x", 2) {
		t.Error("share 1 leaves an item out")
	}
	// The draw is a fixed function of seed, salt and id (a change would
	// move every user's shares).
	if d := shareDraw(7, "blind", "q1"); d < 0 || d >= 1 {
		t.Fatalf("draw %v out of [0, 1)", d)
	}
	if shareDraw(7, "blind", "q1") != shareDraw(7, "blind", "q1") {
		t.Fatal("the draw is not deterministic")
	}
	if shareDraw(7, "a|b", "c") == shareDraw(7, "a", "b|c") {
		t.Error("salt and id are not kept apart")
	}
	// The share is p, within 4.5 standard errors, on 10,000 ids; salts
	// draw independently (the overlap is about p²).
	const n = 10_000
	for _, p := range []float64{0.05, 0.3, 0.5, 0.95} {
		in, both := 0, 0
		for i := range n {
			id := fmt.Sprintf("item-%05d", i)
			a := InShare(2026, "blind", id, p)
			if a {
				in++
			}
			if a && InShare(2026, "retest:ann", id, p) {
				both++
			}
			if a != InShare(2026, "blind", id, p) {
				t.Fatal("InShare is not deterministic")
			}
			if a && !InShare(2026, "blind", id, math.Min(1, p+0.1)) {
				t.Fatal("a larger share does not hold a smaller one")
			}
		}
		se := math.Sqrt(p * (1 - p) / n)
		if got := float64(in) / n; math.Abs(got-p) > 4.5*se {
			t.Errorf("share %v: %v of %d ids", p, got, n)
		}
		q := p * p
		if got := float64(both) / n; math.Abs(got-q) > 4.5*math.Sqrt(q*(1-q)/n) {
			t.Errorf("share %v: two salts overlap on %v, want about %v", p, got, q)
		}
	}
}
