package queuetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// graderInfo is NewSession's judge.
var graderInfo = judge.Info{Name: "grader", Model: "m", Dimensions: []judge.Dimension{
	{Name: Binary, Scale: judge.Binary}, {Name: Nominal, Scale: judge.Scale("nominal:A,B,C")}}}

// verdictStore is q as a sessions.VerdictStore, the test failed when it
// is not one: every backend a judge run writes through must be.
func verdictStore(t *testing.T, q sessions.QueueStore) sessions.VerdictStore {
	t.Helper()
	vs, ok := q.(sessions.VerdictStore)
	if !ok {
		t.Fatalf("%T does not implement sessions.VerdictStore", q)
	}
	return vs
}

// testRunsOnce: EnsureRun gives the session's run of a judge it has, and
// one new run of a judge it has not, however many writers ask at once.
func testRunsOnce(t *testing.T, q sessions.QueueStore) {
	vs := verdictStore(t, q)
	grader := must(vs.EnsureRun(graderInfo))(t)
	other := graderInfo
	other.Name = "other"
	ids := make([]int64, 6)
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for k := range ids {
		wg.Go(func() {
			info := graderInfo
			if k%2 == 1 {
				info = other
			}
			r, err := vs.EnsureRun(info)
			if err != nil {
				errs <- err
				return
			}
			ids[k] = r.ID
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for k, id := range ids {
		if k%2 == 0 && id != grader.ID {
			t.Errorf("writer %d got run %d for the session's judge, want %d", k, id, grader.ID)
		}
		if k%2 == 1 && (id != ids[1] || id == grader.ID) {
			t.Errorf("writer %d got run %d for a new judge (others: %v; the session's judge is %d)", k, id, ids, grader.ID)
		}
	}
}

// testVerdictsRoundTrip: verdicts read back as they were saved — values,
// a parse error, texts with a NUL, invalid UTF-8 and a bidi override,
// tokens, latency, confidence, the time to the millisecond — and a later
// verdict on an item (a re-judge) is its current one.
func testVerdictsRoundTrip(t *testing.T, q sessions.QueueStore) {
	vs := verdictStore(t, q)
	run := must(vs.EnsureRun(graderInfo))(t)
	at := time.Date(2026, 11, 27, 5, 0, 0, 123_000_000, time.UTC)
	conf := 0.875
	ids := ItemIDs()
	saved := []judge.Verdict{
		{ItemID: ids[0], Status: judge.StatusOK, Values: map[string]float64{Binary: 1, Nominal: 2}, Reason: "fine\x00but odd",
			Raw: "YES \xff", Model: "m", PromptTokens: 120, CompletionTokens: 7, Latency: 1500 * time.Millisecond, At: at, Confidence: &conf},
		{ItemID: ids[9], Status: judge.StatusOK, Values: map[string]float64{Binary: 0, Nominal: 0}, Reason: "nine \u202e reversed",
			Raw: "NO", Model: "m", At: at},
		{ItemID: ids[1], Status: judge.StatusParseError, Error: "no verdict in the answer", Raw: "hmm", Model: "m", At: at},
	}
	if err := vs.SaveVerdicts(run.ID, saved); err != nil {
		t.Fatal(err)
	}
	rejudged := saved[0]
	rejudged.Values = map[string]float64{Binary: 0, Nominal: 1}
	rejudged.Reason, rejudged.Raw, rejudged.Confidence = "changed its mind", "NO", nil
	rejudged.At = at.Add(time.Minute)
	if err := vs.SaveVerdicts(run.ID, []judge.Verdict{rejudged}); err != nil {
		t.Fatal(err)
	}
	got := must(vs.Verdicts(run.ID))(t)
	want := map[string]judge.Verdict{ids[0]: rejudged, ids[1]: saved[2], ids[9]: saved[1]}
	if len(got) != len(want) {
		t.Fatalf("%d current verdicts, want %d: %v", len(got), len(want), got)
	}
	for _, g := range got {
		w, ok := want[g.ItemID]
		if !ok {
			t.Errorf("a verdict on %q, which was not judged", g.ItemID)
			continue
		}
		if d := verdictDiff(g, w); d != "" {
			t.Errorf("verdict on %q read back differs: %s", g.ItemID, d)
		}
	}
}

// verdictDiff says how a verdict read back differs from the one saved, in
// what a session keeps of it.
func verdictDiff(got, want judge.Verdict) string {
	type kept struct {
		ItemID, Reason, Raw, Error, Model string
		Criterion, Prompt, Completion     int
		Status                            judge.Status
		Values                            map[string]float64
		Latency                           time.Duration
		At                                time.Time
		Confidence                        *float64
	}
	k := func(v judge.Verdict) kept {
		values := v.Values
		if len(values) == 0 {
			values = nil
		}
		return kept{v.ItemID, v.Reason, v.Raw, v.Error, v.Model, v.Criterion, v.PromptTokens, v.CompletionTokens,
			v.Status, values, v.Latency, v.At.UTC(), v.Confidence}
	}
	g, w := k(got), k(want)
	if (g.Confidence == nil) != (w.Confidence == nil) || (g.Confidence != nil && *g.Confidence != *w.Confidence) {
		return fmt.Sprintf("confidence %v, want %v", g.Confidence, w.Confidence)
	}
	g.Confidence, w.Confidence = nil, nil
	if !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("\n got %+v\nwant %+v", g, w)
	}
	return ""
}
