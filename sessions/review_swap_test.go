package sessions

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

var prefInfo = judge.Info{Name: "pairwise", Model: "m",
	Dimensions: []judge.Dimension{{Name: "preference", Scale: judge.Pairwise}}}

func pairItems() []judge.Item {
	return []judge.Item{
		{Index: 0, ID: "p1", Question: "q", ResponseA: "a", ResponseB: "b"},
		{Index: 1, ID: "p2", Question: "q", ResponseA: "a", ResponseB: "b"},
		{Index: 2, ID: "plain", Question: "q", Prediction: "x"},
	}
}

// taskNames writes tasks as "p1", "p1~" (swapped), for comparison.
func taskNames(ts []judge.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Item.ID
		if t.Swapped {
			out[i] += "~"
		}
	}
	return out
}

func TestTasksToDoBothOrders(t *testing.T) {
	ok := func(id string, swapped bool) judge.Verdict {
		return judge.Verdict{ItemID: id, Swapped: swapped, Status: judge.StatusOK}
	}
	failed := func(id string, swapped bool) judge.Verdict {
		return judge.Verdict{ItemID: id, Swapped: swapped, Status: judge.StatusAPIError}
	}
	binary := binaryInfo("docqa", "m")
	tests := []struct {
		name string
		info judge.Info
		vs   []judge.Verdict
		swap bool
		want []string
	}{
		{"nothing done, one order", prefInfo, nil, false, []string{"p1", "p2", "plain"}},
		{"nothing done, both orders", prefInfo, nil, true, []string{"p1", "p1~", "p2", "p2~", "plain"}},
		{"original done: the second order is left", prefInfo, []judge.Verdict{ok("p1", false), ok("p2", false), ok("plain", false)}, true, []string{"p1~", "p2~"}},
		{"swapped done: the original is left", prefInfo, []judge.Verdict{ok("p1", true)}, true, []string{"p1", "p2", "p2~", "plain"}},
		{"swapped verdicts do not stand for the original", prefInfo, []judge.Verdict{ok("p1", true), ok("p2", true)}, false, []string{"p1", "p2", "plain"}},
		{"an api_error is to do again", prefInfo, []judge.Verdict{ok("p1", false), failed("p1", true), ok("p2", false), ok("p2", true), ok("plain", false)}, true, []string{"p1~"}},
		{"a judge without a preference has one order", binary, nil, true, []string{"p1", "p2", "plain"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := taskNames(TasksToDo(tc.info, pairItems(), tc.vs, tc.swap))
			if !slices.Equal(got, tc.want) {
				t.Errorf("tasks %v, want %v", got, tc.want)
			}
		})
	}
}

// preferA is a judge that always prefers the response shown first, as
// verdicts in the original terms say: A in the original order, B in the
// swapped one.
type preferA struct{}

func (preferA) Info() judge.Info { return prefInfo }

func (preferA) Judge(_ context.Context, t judge.Task) judge.Verdict {
	v := judge.Verdict{ItemID: t.Item.ID, Criterion: t.Criterion, Swapped: t.Swapped, Status: judge.StatusOK,
		Values: map[string]float64{"preference": judge.PreferA}, At: time.Now()}
	if t.Swapped {
		v.Values["preference"] = judge.PreferB
	}
	return v
}

func waitJudging(t *testing.T, jg *Judging) Batch {
	t.Helper()
	var last Batch
	timeout := time.After(10 * time.Second)
	for {
		select {
		case b, ok := <-jg.Batches():
			if !ok {
				return last
			}
			if b.Err != nil {
				t.Fatal(b.Err)
			}
			last = b
		case <-timeout:
			t.Fatal("judging did not finish")
		}
	}
}

// With Swap, a review judges each pair in both orders, keeps both, and a
// second open finds nothing left to do and reads both orders back.
func TestResumeRunSwap(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	if err := s.InitDataset(DatasetInfo{Path: "pairs.jsonl", SHA256: "x", Format: "jsonl"}, pairItems()); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		swap                     bool
		pending, verdicts, swaps int
	}{
		{false, 3, 3, 0}, // one order first
		{true, 2, 3, 2},  // then --swap adds the second order of the pairs
		{true, 0, 3, 2},  // and then nothing is left
	} {
		t.Run(fmt.Sprintf("swap=%v", step.swap), func(t *testing.T) {
			rv := &Review{Store: s, Items: pairItems(), Swap: step.swap}
			st, err := rv.StartRun(context.Background(), preferA{}, judge.PoolOptions{Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			if st.Pending != step.pending {
				t.Errorf("pending %d, want %d", st.Pending, step.pending)
			}
			if st.Judging != nil {
				if b := waitJudging(t, st.Judging); b.Done != step.pending {
					t.Errorf("judged %d of %d", b.Done, step.pending)
				}
			}
			vs, _ := s.Verdicts(st.Run.ID)
			sw, _ := s.SwappedVerdicts(st.Run.ID)
			if len(vs) != step.verdicts || len(sw) != step.swaps {
				t.Errorf("%d verdicts and %d swapped, want %d and %d", len(vs), len(sw), step.verdicts, step.swaps)
			}
			for _, v := range sw {
				if !v.Swapped || v.Values["preference"] != judge.PreferB {
					t.Errorf("swapped verdict %+v", v)
				}
			}
			for _, v := range vs {
				if v.Swapped {
					t.Errorf("an original-order verdict is swapped: %+v", v)
				}
			}
		})
	}
	// Reading back, without judging, gives both orders too.
	rv := &Review{Store: s, Items: pairItems()}
	run, _ := s.EnsureRun(prefInfo)
	st, err := rv.ResumeRun(context.Background(), run, nil, judge.PoolOptions{})
	if err != nil || len(st.Verdicts) != 3 || len(st.Swapped) != 2 {
		t.Errorf("read back: %d verdicts, %d swapped, %v", len(st.Verdicts), len(st.Swapped), err)
	}
}
