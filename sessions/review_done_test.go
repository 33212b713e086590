package sessions

import (
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// The tasks done are found by the item's position whatever the order of
// the verdicts: in item order (the forward scan), out of it (the map it
// falls back on), both orders one after the other, and with verdicts of
// items that are not there (a dataset changed since).
func TestDoneSetFindsItemsInAnyOrder(t *testing.T) {
	items := tasksItems(40)
	var inOrder, swapped []judge.Verdict
	for i, it := range items {
		switch i % 6 {
		case 0:
			inOrder = append(inOrder, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK})
		case 1:
			inOrder = append(inOrder, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK},
				judge.Verdict{ItemID: it.ID, Criterion: 1, Status: judge.StatusParseError})
		case 2:
			swapped = append(swapped, judge.Verdict{ItemID: it.ID, Swapped: true, Status: judge.StatusOK})
			inOrder = append(inOrder, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK})
		case 3:
			inOrder = append(inOrder, judge.Verdict{ItemID: it.ID, Status: judge.StatusAPIError})
		case 4:
			inOrder = append(inOrder, judge.Verdict{ItemID: it.ID, Status: judge.StatusTruncated})
		}
	}
	reversed := slices.Clone(inOrder)
	slices.Reverse(reversed)
	unknown := append([]judge.Verdict{{ItemID: "gone", Status: judge.StatusOK}}, inOrder...)
	withGone := slices.Insert(slices.Clone(inOrder), len(inOrder)/2, judge.Verdict{ItemID: "gone", Status: judge.StatusOK})
	rubric := binaryInfo("rubric", "m")
	rubric.PerCriterion = true
	infos := []struct {
		name string
		info judge.Info
		swap bool
	}{{"whole items", binaryInfo("docqa", "m"), false}, {"criteria", rubric, false}, {"pairs both orders", prefInfo, true}, {"pairs one order", prefInfo, false}}
	for _, order := range []struct {
		name string
		runs [][]judge.Verdict
	}{
		{"in item order", [][]judge.Verdict{inOrder}},
		{"then the swapped order", [][]judge.Verdict{inOrder, swapped}},
		{"reversed", [][]judge.Verdict{reversed, swapped}},
		{"an unknown item first", [][]judge.Verdict{unknown, swapped}},
		{"an unknown item midway", [][]judge.Verdict{withGone}},
		{"both orders mixed", [][]judge.Verdict{append(slices.Clone(swapped), inOrder...)}},
		{"none", nil},
	} {
		var all []judge.Verdict
		for _, r := range order.runs {
			all = append(all, r...)
		}
		for _, tc := range infos {
			want := wantTasks(tc.info, items, withoutTruncated(all), tc.swap)
			if got := taskStrings(newTodoSource(tc.info, items, tc.swap, order.runs...).Next(1 << 20)); !slices.Equal(got, want) {
				t.Errorf("%s, %s:\n got %v\nwant %v", order.name, tc.name, got, want)
			}
		}
	}
}

// withoutTruncated leaves out truncated verdicts: they are asked again,
// as api_errors are (wantTasks leaves those out).
func withoutTruncated(vs []judge.Verdict) []judge.Verdict {
	return slices.DeleteFunc(slices.Clone(vs), func(v judge.Verdict) bool { return v.Status == judge.StatusTruncated })
}

// ResumeRunEach hands over the verdicts ResumeRun holds, in the same
// order, chunk by chunk without splitting an item's, and leaves the
// same tasks to do.
func TestResumeRunEachHandsOverResumeRunsVerdicts(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	var items []judge.Item
	for i, id := range []string{"d", "a", "c", "b", "e", "f"} {
		items = append(items, judge.Item{Index: i, ID: id, Question: "q", ResponseA: "x", ResponseB: "y", Rubric: []string{"r1", "r2"}})
	}
	if err := s.InitDataset(DatasetInfo{Path: "x.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	info := prefInfo
	info.PerCriterion = true
	run, err := s.EnsureRun(info)
	if err != nil {
		t.Fatal(err)
	}
	v := func(id string, crit int, swapped bool, st judge.Status, x float64) judge.Verdict {
		return judge.Verdict{ItemID: id, Criterion: crit, Swapped: swapped, Status: st, Reason: "r", Values: map[string]float64{"preference": x}, At: t0}
	}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{
		v("d", 0, false, judge.StatusOK, 1), v("d", 1, false, judge.StatusOK, 0), v("d", 2, false, judge.StatusOK, 0.5),
		v("d", 1, true, judge.StatusOK, 1), v("c", 0, false, judge.StatusAPIError, 0), v("b", 2, false, judge.StatusOK, 1),
		v("b", 2, false, judge.StatusOK, 0), v("e", 0, true, judge.StatusOK, 1), v("f", 1, false, judge.StatusParseError, 0),
	}); err != nil {
		t.Fatal(err)
	}
	rv := &Review{Store: s, Items: items, Swap: true}
	whole, err := rv.ResumeRun(t.Context(), run, nil, judge.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{0, 1, 2, 5, 1000} {
		got := map[bool][]judge.Verdict{}
		err := s.screenVerdictsEach(run.ID, false, chunk, func(vs []judge.Verdict) error {
			got[false] = append(got[false], vs...)
			if chunk > 0 && len(vs) > chunk && vs[len(vs)-2].ItemID != vs[len(vs)-1].ItemID {
				t.Errorf("chunk %d: %d verdicts handed over at once", chunk, len(vs))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.screenVerdictsEach(run.ID, true, chunk, func(vs []judge.Verdict) error {
			got[true] = append(got[true], vs...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !verdictsEqual(got[false], whole.Verdicts) || !verdictsEqual(got[true], whole.Swapped) {
			t.Errorf("chunk %d:\n got %+v\n     %+v\nwant %+v\n     %+v", chunk, got[false], got[true], whole.Verdicts, whole.Swapped)
		}
	}
	var each [2][]judge.Verdict
	st, err := rv.ResumeRunEach(t.Context(), run, nil, judge.PoolOptions{}, func(vs []judge.Verdict, swapped bool) error {
		k := 0
		if swapped {
			k = 1
		}
		each[k] = append(each[k], vs...)
		return nil
	})
	if err != nil || st.Verdicts != nil || st.Swapped != nil {
		t.Fatalf("ResumeRunEach: %+v, %v", st, err)
	}
	if !verdictsEqual(each[0], whole.Verdicts) || !verdictsEqual(each[1], whole.Swapped) {
		t.Errorf("ResumeRunEach handed over\n %+v\n %+v\nwant %+v\n %+v", each[0], each[1], whole.Verdicts, whole.Swapped)
	}
	// The tasks left: those of ResumeRun's verdicts, made by the done
	// set the chunks filled.
	want := wantTasks(info, items, append(slices.Clone(whole.Verdicts), whole.Swapped...), true)
	d := newDoneSet(info, items, true)
	if err := s.screenVerdictsEach(run.ID, false, 1, func(vs []judge.Verdict) error { d.add(vs); return nil }); err != nil {
		t.Fatal(err)
	}
	d.restart()
	if err := s.screenVerdictsEach(run.ID, true, 1, func(vs []judge.Verdict) error { d.add(vs); return nil }); err != nil {
		t.Fatal(err)
	}
	if got := taskStrings(newTodoSourceDone(info, items, true, d).Next(100)); !slices.Equal(got, want) {
		t.Errorf("tasks left:\n got %v\nwant %v", got, want)
	}
}

// verdictsEqual compares verdicts by what the screen reads of them.
func verdictsEqual(a, b []judge.Verdict) bool {
	return slices.EqualFunc(a, b, func(x, y judge.Verdict) bool {
		return x.ItemID == y.ItemID && x.Criterion == y.Criterion && x.Swapped == y.Swapped && x.Status == y.Status &&
			x.Reason == y.Reason && x.Values["preference"] == y.Values["preference"] && x.At.Equal(y.At)
	})
}
