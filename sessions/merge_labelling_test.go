package sessions

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestMergeLabellingWell merges two people's sessions that each read
// guidelines (one version in common), marked items can't judge, tagged
// them and re-tested: the merged session holds each text once, numbered
// by when it was first seen, every action pointing at its text, the union
// of the tag sets, and every v8 column of every action.
func TestMergeLabellingWell(t *testing.T) {
	dir := t.TempDir()
	mustRecord := func(s *Store, acts ...Action) {
		t.Helper()
		if _, err := s.Record(acts); err != nil {
			t.Fatal(err)
		}
	}
	addGuidelines := func(s *Store, text string) int64 {
		t.Helper()
		v, _, err := s.AddGuidelines(text)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Millisecond) // first_seen orders the versions
		return v.ID
	}
	appeared := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	ana := annotatorSession(t, dir, "ana", func(s *Store) {
		v1 := addGuidelines(s, "v1: a near miss is NO")
		if err := s.AddTags("too strict", "format"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.EnsureRun(binaryInfo("strict", "")); err != nil { // ana's run 2, merged 2
			t.Fatal(err)
		}
		l := underGuidelines(label("q1", "correct", 1), v1)
		l.Shown, l.Appeared = ShownBlind, appeared
		mustRecord(s, l)
		v2 := addGuidelines(s, "v2: a typo is YES")
		mustRecord(s, underGuidelines(cantJudge("q2", ReasonGoldWrong, "Paris is the gold"), v2))
		mustRecord(s, underGuidelines(tagged("q1", "too strict", true), v2))
		rt := underGuidelines(retest(label("q1", "correct", 0)), v2)
		rt.Shown = ShownBlind
		mustRecord(s, rt)
	})
	time.Sleep(3 * time.Millisecond)
	bo := annotatorSession(t, dir, "bo", func(s *Store) {
		v2 := addGuidelines(s, "v2: a typo is YES") // bo's version 1
		v3 := addGuidelines(s, "v3: say why")
		if err := s.AddTags("format", "hallucinated gold"); err != nil {
			t.Fatal(err)
		}
		docqa, err := s.EnsureRun(binaryInfo("docqa", "")) // bo's run 2, merged 3
		if err != nil {
			t.Fatal(err)
		}
		l := underGuidelines(accept("q1", "correct", 1), v2)
		l.Shown, l.ShownRun = ShownVerdict, docqa.ID
		mustRecord(s, l)
		mustRecord(s, underGuidelines(label("q2", "correct", 0), v3), underGuidelines(tagged("q2", "hallucinated gold", true), v3))
		mustRecord(s, underGuidelines(cantJudge("q3", ReasonOther, "no gold"), v3))
		if _, err := s.Undo(); err != nil {
			t.Fatal(err)
		}
	})
	out := filepath.Join(dir, "team.gavel")
	sum, err := Merge(out, []string{ana, bo})
	if err != nil {
		t.Fatal(err)
	}
	if sum.DuplicateActions != 0 || sum.Actions != 4+4+1 {
		t.Errorf("summary %+v: want 9 actions, no duplicate", sum)
	}
	m, err := Open(out, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	vs, err := m.GuidelinesVersions()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, v := range vs {
		texts = append(texts, v.Text)
		if v.SHA256 != GuidelinesSHA256(v.Text) {
			t.Errorf("version %d: hash %s of another text", v.ID, v.SHA256)
		}
	}
	if want := []string{"v1: a near miss is NO", "v2: a typo is YES", "v3: say why"}; !reflect.DeepEqual(texts, want) {
		t.Fatalf("merged guidelines %q, want %q (once each, oldest first)", texts, want)
	}
	if tags, err := m.TagSet(); err != nil || !reflect.DeepEqual(tags, []string{"too strict", "format", "hallucinated gold"}) {
		t.Errorf("merged tag set %q, %v", tags, err)
	}

	// Every action of every input is in the merged session with the same
	// columns, its guidelines being the same text.
	textOf := func(s *Store) map[int64]string {
		vs, err := s.GuidelinesVersions()
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]string{}
		for _, v := range vs {
			out[v.ID] = v.Text
		}
		return out
	}
	keyOf := func(s *Store) map[int64]string {
		runs, err := s.Runs()
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]string{}
		for _, r := range runs {
			out[r.ID] = r.Key
		}
		return out
	}
	comparable := func(s *Store, who string) []Action {
		acts, err := s.Actions(who)
		if err != nil {
			t.Fatal(err)
		}
		texts, keys := textOf(s), keyOf(s)
		for i := range acts {
			acts[i].ID, acts[i].Group, acts[i].Undoes = 0, 0, 0
			acts[i].Note += "|" + texts[acts[i].Guidelines] // compare the text, not the id
			acts[i].Guidelines = 0
			acts[i].Note += "|" + keys[acts[i].ShownRun] // the run shown by its key, not its id
			acts[i].ShownRun = 0
		}
		return acts
	}
	for _, in := range []struct{ path, who string }{{ana, "ana"}, {bo, "bo"}} {
		s, err := Open(in.path, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		want := comparable(s, in.who)
		s.Close()
		if got := comparable(m, in.who); !reflect.DeepEqual(got, want) {
			t.Errorf("%s's actions after the merge:\n%+v\nwant\n%+v", in.who, got, want)
		}
	}
	docqaKey, _ := RunKey(binaryInfo("docqa", ""))
	if bos, _ := m.Actions("bo"); len(bos) == 0 || bos[0].Shown != ShownVerdict || keyOf(m)[bos[0].ShownRun] != docqaKey || bos[0].ShownRun != 3 {
		t.Errorf("bo's accept after the merge: shown %v run %d, want docqa's merged id 3 (bo's run 2)", bos[0].Shown, bos[0].ShownRun)
	}
	if cj, err := m.CantJudges(""); err != nil || len(cj) != 1 || cj[0].Annotator != "ana" || cj[0].Reason != ReasonGoldWrong {
		t.Errorf("merged CantJudges = %+v, %v", cj, err)
	}
	if it, err := m.ItemTags(""); err != nil || len(it) != 2 {
		t.Errorf("merged ItemTags = %+v, %v", it, err)
	}
	if n, err := m.OlderGuidelinesLabels("", 3); err != nil || n != 2 {
		t.Errorf("merged OlderGuidelinesLabels under v3 = %d, %v; want 2 (ana's q1 under v1, bo's q1 under v2)", n, err)
	}
	hist, _ := m.Actions("ana")
	st := ReplayLabels(hist)
	if v, ok := st.RetestLabel(LabelKey{ItemID: "q1", Dimension: "correct"}); !ok || v != 0 || !st.Retested("q1") {
		t.Errorf("ana's re-test after the merge: %v, %v", v, ok)
	}
	if v, _ := st.Label(LabelKey{ItemID: "q1", Dimension: "correct"}); v != 1 {
		t.Errorf("ana's first label after the merge: %v, want 1 (the re-test does not replace it)", v)
	}

	// Merging the merged session with a copy of one input keeps the
	// shared history once, guidelines included.
	again := filepath.Join(dir, "again.gavel")
	sum, err = Merge(again, []string{out, ana})
	if err != nil {
		t.Fatal(err)
	}
	if sum.DuplicateActions != 4 || sum.Actions != 9 {
		t.Errorf("merging again: %+v, want 9 actions and ana's 4 as duplicates", sum)
	}
	m2, err := Open(again, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if vs2, _ := m2.GuidelinesVersions(); len(vs2) != 3 {
		t.Errorf("merging again: %d guidelines versions, want 3", len(vs2))
	}
	os.Remove(again)
}

// TestActionPrintSeesEveryColumn: two actions that differ in any column
// but their ids and group are two actions for the merge.
func TestActionPrintSeesEveryColumn(t *testing.T) {
	base := Action{ID: 1, Group: 1, Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "order",
		Annotator: "ann", At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	fp := func(a Action, guidelines string) string { return actionPrint(a, "", guidelines, "") }
	same := base
	same.ID, same.Group = 7, 9
	if fp(same, "") != fp(base, "") {
		t.Error("ids and group change the print")
	}
	for name, change := range map[string]func(a *Action){
		"reason":   func(a *Action) { a.Kind, a.Reason, a.Dimension, a.Value = KindCantJudge, ReasonOther, "", 0 },
		"tag":      func(a *Action) { a.Tag = "format" },
		"shown":    func(a *Action) { a.Shown = ShownBlind },
		"verdict":  func(a *Action) { a.Shown, a.ShownRun = ShownVerdict, 1 },
		"retest":   func(a *Action) { a.Retest = true },
		"appeared": func(a *Action) { a.Appeared = a.At.Add(-time.Second) },
		"sitting":  func(a *Action) { a.Sitting = "abc" },
		"note":     func(a *Action) { a.Note = "x" },
	} {
		a := base
		change(&a)
		if fp(a, "") == fp(base, "") {
			t.Errorf("a different %s gives the same print", name)
		}
	}
	if fp(base, "sha-a") == fp(base, "sha-b") || fp(base, "sha-a") == fp(base, "") {
		t.Error("the guidelines' text does not change the print")
	}
	shown := base
	shown.Shown, shown.ShownRun = ShownVerdict, 1
	if actionPrint(shown, "", "", "match") == actionPrint(shown, "", "", "docqa") {
		t.Error("the run shown (by key) does not change the print")
	}
	other := shown
	other.ShownRun = 2 // the same run under another session's id
	if actionPrint(shown, "", "", "match") != actionPrint(other, "", "", "match") {
		t.Error("the run shown's id, not its key, changes the print")
	}
}
