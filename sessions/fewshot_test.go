package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// fewShotItems are n items whose rows repeat their question (so that the
// stored row elides it and FewShot must put it back); item "i003" has a
// rubric.
func fewShotItems(n int) []judge.Item {
	items := make([]judge.Item, n)
	for i := range items {
		id := fmt.Sprintf("i%03d", i)
		items[i] = judge.Item{Index: i, ID: id, Question: "question of " + id, Gold: "gold " + id, Prediction: "pred " + id,
			Fields: json.RawMessage(fmt.Sprintf(`{"id":%q,"question":"question of %s","extra":%d}`, id, id, i))}
		if i == 3 {
			items[i].Rubric = []string{"first", "second"}
		}
	}
	return items
}

// fewShotSession is a session of fewShotItems(n) with a split of seed and
// share, and the items of each part in Fraction order.
func fewShotSession(t *testing.T, n int, seed uint64, share float64) (*Store, Split, map[Part][]string) {
	t.Helper()
	s := openStore(t, sessionPath(t), "ann")
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "abc", Format: "jsonl"}, fewShotItems(n)); err != nil {
		t.Fatal(err)
	}
	sp, err := s.RecordSplit(Split{Seed: seed, Calibration: share}, false)
	if err != nil {
		t.Fatal(err)
	}
	return s, sp, partsByFraction(sp, fewShotItems(n))
}

// partsByFraction lists the items of each part in Fraction order, their
// parts computed independently of Split.PartOf.
func partsByFraction(sp Split, items []judge.Item) map[Part][]string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	slices.SortFunc(ids, func(a, b string) int {
		fa, fb := sp.Fraction(a), sp.Fraction(b)
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := map[Part][]string{}
	for _, id := range ids {
		p := independentPart(sp.Seed, sp.Calibration, id)
		parts[p] = append(parts[p], id)
	}
	return parts
}

func exampleIDs(ex []judge.Example) []string {
	var ids []string
	for _, e := range ex {
		ids = append(ids, e.Item.ID)
	}
	return ids
}

func TestFewShot(t *testing.T) {
	s, _, parts := fewShotSession(t, 80, 7, 0.5)
	cal, val, ev := parts[PartCalibration], parts[PartValidation], parts[PartEvaluation]
	if len(cal) < 9 || len(val) < 2 || len(ev) < 2 {
		t.Fatalf("split too small for the test: %d calibration, %d validation, %d evaluation", len(cal), len(val), len(ev))
	}
	rec := func(who string, acts ...Action) {
		t.Helper()
		var err error
		if who == "ann" {
			_, err = s.Record(acts)
		} else {
			_, err = s.RecordAs(who, acts)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	crit := func(a Action, k int) Action { a.Criterion = k; return a }
	rec("ann", label(cal[0], "correct", 1), label(cal[0], "fluent", 1))
	rec("ann", label(cal[1], "correct", 1)) // a tie: left out
	rec("bob", label(cal[1], "correct", 0))
	rec("ann", label(cal[2], "correct", 0)) // the majority: NO
	rec("bob", label(cal[2], "correct", 0))
	rec("cy", label(cal[2], "correct", 1))
	rec("ann", label(cal[3], "correct", 1), label(cal[3], "fluent", 0), note(cal[3], "first"))
	rec("bob", note(cal[3], "second")) // the latest note, whoever wrote it
	rec("ann", label(cal[4], "correct", 0))
	rec("ann", note(cal[4], "undone"))
	if _, err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	rec("ann", crit(label(cal[5], "correct", 1), 1)) // a criterion's label is not the item's
	rec("ann", label(cal[6], "correct", 1), note(cal[6], "ann's"))
	rec("bob", note(cal[6], "bob's"))
	rec("bob", note(cal[6], "")) // bob clears his: ann's stays
	rec("ann", accept(cal[7], "correct", 1))
	rec("ann", label(cal[8], "correct", 1), label(cal[8], "correct", 0)) // relabelled: the current one counts
	for _, id := range append(slices.Clone(val[:2]), ev[:2]...) {
		rec("ann", label(id, "correct", 0), label(id, "fluent", 1), note(id, "held out "+id))
	}

	correct := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	both := append(slices.Clone(correct), judge.Dimension{Name: "fluent", Scale: judge.Binary})
	// Candidates by fraction: cal0 YES, cal2 NO, cal3 YES, cal4 NO, cal6
	// YES, cal7 YES, cal8 NO; round-robin NO first.
	all := []string{cal[2], cal[0], cal[4], cal[3], cal[8], cal[6], cal[7]}
	for _, tc := range []struct {
		name string
		dims []judge.Dimension
		k    int
		want []string
	}{
		{"k+1 examples, NO and YES in turn", correct, 3, all[:4]},
		{"one asked, two given", correct, 1, all[:2]},
		{"more asked than there are", correct, 50, all},
		{"every dimension labelled", both, 5, []string{cal[0], cal[3]}},
		{"none asked", correct, 0, nil},
		{"an unlabelled dimension", []judge.Dimension{{Name: "other", Scale: judge.Binary}}, 3, nil},
	} {
		for _, packed := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s packed=%v", tc.name, packed), func(t *testing.T) {
				setPacked(t, packed)
				ex, err := s.FewShot(tc.dims, tc.k)
				if err != nil {
					t.Fatal(err)
				}
				if got := exampleIDs(ex); !slices.Equal(got, tc.want) {
					t.Errorf("FewShot(k=%d) = %q\nwant %q", tc.k, got, tc.want)
				}
			})
		}
	}

	ex, err := s.FewShot(both, 5)
	if err != nil {
		t.Fatal(err)
	}
	items := fewShotItems(80)
	byID := map[string]judge.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	for _, e := range ex {
		want := byID[e.Item.ID]
		if e.Item.Question != want.Question || e.Item.Gold != want.Gold || e.Item.Prediction != want.Prediction ||
			string(e.Item.Fields) != string(want.Fields) || !slices.Equal(e.Item.Rubric, want.Rubric) || e.Item.Index != want.Index {
			t.Errorf("example item %+v\nwant %+v", e.Item, want)
		}
	}
	if l := ex[1].Labels; len(l) != 2 || l["correct"] != 1 || l["fluent"] != 0 || ex[1].Note != "second" {
		t.Errorf("example %s: labels %v, note %q; want correct 1, fluent 0, note \"second\"", ex[1].Item.ID, l, ex[1].Note)
	}
	if l := ex[0].Labels; l["correct"] != 1 || l["fluent"] != 1 || ex[0].Note != "" {
		t.Errorf("example %s: labels %v, note %q", ex[0].Item.ID, l, ex[0].Note)
	}

	ex, _ = s.FewShot(correct, 50)
	notes := map[string]string{}
	for _, e := range ex {
		notes[e.Item.ID] = e.Note
	}
	if want := map[string]string{cal[0]: "", cal[2]: "", cal[3]: "second", cal[4]: "", cal[6]: "ann's", cal[7]: "", cal[8]: ""}; fmt.Sprint(notes) != fmt.Sprint(want) {
		t.Errorf("notes %q\nwant %q", notes, want)
	}

	if _, err := s.FewShot(nil, 3); err == nil {
		t.Error("FewShot without dimensions gave no error")
	}
}

// setPacked sets packedReads for the test.
func setPacked(t *testing.T, on bool) {
	saved := packedReads
	packedReads = on
	t.Cleanup(func() { packedReads = saved })
}

// TestFewShotScales: labels of every kind of scale are read, packed or
// not: ternary's 0.5 (not a whole number), nominal and pairwise names,
// Likert points; values the scale cannot read are no label.
func TestFewShotScales(t *testing.T) {
	s, _, parts := fewShotSession(t, 120, 11, 0.6)
	cal := parts[PartCalibration]
	nominal := judge.Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED")
	if _, err := s.EnsureRun(judge.Info{Name: "multi", Dimensions: []judge.Dimension{
		{Name: "grade", Scale: nominal}, {Name: "pref", Scale: judge.Pairwise}}}); err != nil {
		t.Fatal(err)
	}
	dims := []judge.Dimension{
		{Name: "tern", Scale: judge.Ternary}, {Name: "likert", Scale: judge.Likert},
		{Name: "grade", Scale: nominal}, {Name: "pref", Scale: judge.Pairwise},
	}
	var acts []Action
	want := map[string][4]float64{}
	for i, id := range cal[:9] {
		v := [4]float64{float64(i%3) / 2, float64(1 + i%5), float64(i % 3), []float64{judge.PreferA, judge.PreferB, judge.PreferTie}[i%3]}
		want[id] = v
		for k, d := range dims {
			acts = append(acts, label(id, d.Name, v[k]))
		}
	}
	if _, err := s.Record(acts); err != nil {
		t.Fatal(err)
	}
	for _, packed := range []bool{true, false} {
		setPacked(t, packed)
		ex, err := s.FewShot(dims, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(ex) != len(want) {
			t.Errorf("packed=%v: %d examples, want %d", packed, len(ex), len(want))
		}
		// Ternary values in turn: 0, 0.5, 1, 0, …
		for j, e := range ex {
			w := want[e.Item.ID]
			got := [4]float64{e.Labels["tern"], e.Labels["likert"], e.Labels["grade"], e.Labels["pref"]}
			if got != w || got[0] != float64(j%3)/2 {
				t.Errorf("packed=%v: example %d (%s) has %v, want %v", packed, j, e.Item.ID, got, w)
			}
		}
	}
}

func TestFewShotNeedsASplit(t *testing.T) {
	s, path := newSession(t)
	if _, err := s.Record([]Action{label("q1", "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	ex, err := s.FewShot([]judge.Dimension{{Name: "correct", Scale: judge.Binary}}, 2)
	if !errors.Is(err, ErrNoSplit) || !strings.Contains(err.Error(), "gavel split "+path) || ex != nil {
		t.Fatalf("FewShot without a split = %v, %v; want ErrNoSplit naming `gavel split %s`", ex, err, path)
	}
}

// TestFewShotNeverLeavesCalibration is the leakage property: whatever the
// seed, the share, the labels and k, no example is an item of the
// validation third or of the evaluation part, and with k large enough
// every labelled calibration item (with a majority) is one.
func TestFewShotNeverLeavesCalibration(t *testing.T) {
	const n = 240
	items := fewShotItems(n)
	s := openStore(t, sessionPath(t), "ann")
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "abc", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Every item labelled by ann; a third also by bob and cy, so that
	// some majorities tie and some overturn ann.
	majorities := map[string]float64{} // items with a majority, and its value
	var acts []Action
	var bob, cy []Action
	for _, it := range items {
		v := float64(rng.IntN(2))
		acts = append(acts, label(it.ID, "correct", v), note(it.ID, "note of "+it.ID))
		counts := map[float64]int{v: 1}
		if rng.IntN(3) == 0 {
			b, c := float64(rng.IntN(2)), float64(rng.IntN(2))
			bob = append(bob, label(it.ID, "correct", b))
			counts[b]++
			if rng.IntN(2) == 0 {
				cy = append(cy, label(it.ID, "correct", c))
				counts[c]++
			}
		}
		if m, ok := mapMajority(counts); ok {
			majorities[it.ID] = m
		}
	}
	for who, a := range map[string][]Action{"ann": acts, "bob": bob, "cy": cy} {
		if _, err := s.RecordAs(who, a); err != nil {
			t.Fatal(err)
		}
	}
	dims := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	replace := false
	for seed := uint64(0); seed < 60; seed++ {
		share := []float64{0.5, 0.2, 0.8, 0.05, 0.95, 1e-9}[seed%6]
		sp, err := s.RecordSplit(Split{Seed: seed*7919 + 3, Calibration: share}, replace)
		if err != nil {
			t.Fatal(err)
		}
		replace = true
		var want []string
		for _, it := range items {
			if _, ok := majorities[it.ID]; ok && independentPart(sp.Seed, sp.Calibration, it.ID) == PartCalibration {
				want = append(want, it.ID)
			}
		}
		for _, k := range []int{1, 4, n} {
			ex, err := s.FewShot(dims, k)
			if err != nil {
				t.Fatal(err)
			}
			if len(ex) > k+1 {
				t.Errorf("seed %d, k %d: %d examples, more than k+1", sp.Seed, k, len(ex))
			}
			seen := map[float64]bool{}
			for _, e := range ex {
				if p := independentPart(sp.Seed, sp.Calibration, e.Item.ID); p != PartCalibration {
					t.Fatalf("seed %d share %v k %d: example %s is in the %s part", sp.Seed, sp.Calibration, k, e.Item.ID, p)
				}
				if e.Labels["correct"] != majorities[e.Item.ID] || e.Note != "note of "+e.Item.ID {
					t.Errorf("seed %d: example %s has labels %v, note %q", sp.Seed, e.Item.ID, e.Labels, e.Note)
				}
				seen[e.Labels["correct"]] = true
			}
			if k == n {
				got := exampleIDs(ex)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("seed %d share %v: %d examples, want the %d labelled calibration items", sp.Seed, sp.Calibration, len(got), len(want))
				}
			}
			// Stratified: the first two hold both values where both exist.
			if k >= 1 && len(ex) >= 2 && !(seen[0] && seen[1]) {
				vals := map[float64]bool{}
				for _, id := range want {
					vals[majorities[id]] = true
				}
				if len(vals) == 2 {
					t.Errorf("seed %d, k %d: examples hold only %v", sp.Seed, k, seen)
				}
			}
		}
	}
}

// BenchmarkFewShot measures choosing 8 examples in a session of 100,000
// items, every one labelled: it reads the labels and the chosen items,
// never every item's text.
func BenchmarkFewShot(b *testing.B) {
	s, err := Open(sessionPathB(b), Options{Annotator: "ann"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 100_000
	if err := s.InitDataset(DatasetInfo{}, benchItems(n)); err != nil {
		b.Fatal(err)
	}
	acts := make([]Action, n)
	for i := range acts {
		acts[i] = Action{Kind: KindLabel, ItemID: fmt.Sprintf("item-%06d", i), Dimension: "correct", Value: float64(i % 2), Via: "order"}
	}
	if _, err := s.Record(acts); err != nil {
		b.Fatal(err)
	}
	if _, err := s.RecordSplit(Split{Seed: 1, Calibration: 0.5}, false); err != nil {
		b.Fatal(err)
	}
	dims := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	for b.Loop() {
		if ex, err := s.FewShot(dims, 8); err != nil || len(ex) != 9 {
			b.Fatal(len(ex), err)
		}
	}
}

// mapMajority is the most frequent value of counts, false on a tie.
func mapMajority(counts map[float64]int) (float64, bool) {
	best, n, tie := 0.0, 0, false
	for v, c := range counts {
		switch {
		case c > n:
			best, n, tie = v, c, false
		case c == n:
			tie = true
		}
	}
	return best, n > 0 && !tie
}

func sessionPathB(b *testing.B) string { return filepath.Join(b.TempDir(), "b.gavel") }
