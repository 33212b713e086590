package sessions

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// statsSession builds a session with two runs (one per item, one per
// rubric criterion), re-judges, sampled verdicts and two annotators.
func statsSession(t *testing.T) (*Store, string) {
	t.Helper()
	s, path := newSession(t)
	docqa, err := s.EnsureRun(binaryInfo("docqa", "gpt-4o"))
	if err != nil {
		t.Fatal(err)
	}
	rubric, err := s.EnsureRun(judge.Info{Name: "rubric", PerCriterion: true,
		Dimensions: []judge.Dimension{{Name: "met", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	ok := func(item string, crit int, val float64) judge.Verdict {
		return judge.Verdict{ItemID: item, Criterion: crit, Status: judge.StatusOK, Values: map[string]float64{"correct": val, "met": val}, At: t0}
	}
	sampled := ok("q2", 0, 0)
	sampled.Extra = map[string]any{
		ExtraSamples: []any{
			map[string]any{"status": "ok", "values": map[string]any{"correct": 0.0}, "reason": "no"},
			map[string]any{"status": "ok", "values": map[string]any{"correct": 1.0}},
			map[string]any{"status": "parse_error", "raw": "?"},
			map[string]any{"status": "ok", "values": map[string]any{"correct": 0.0}},
		},
		"agreement": 2.0 / 3,
	}
	for _, batch := range [][]judge.Verdict{
		{ok("q1", 0, 1), sampled, {ItemID: "q3", Status: judge.StatusAPIError, Error: "503", At: t0}},
		{ok("q1", 0, 0)}, // a re-judge that flips
	} {
		if err := s.SaveVerdicts(docqa.ID, batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveVerdicts(rubric.ID, []judge.Verdict{ok("r1", 1, 1), ok("r1", 3, 0),
		{ItemID: "r1", Criterion: 2, Status: judge.StatusParseError, Raw: "maybe", At: t0}}); err != nil {
		t.Fatal(err)
	}
	label := func(st *Store, item string, crit int, dim string, v float64, via string) {
		t.Helper()
		if _, err := st.Record([]Action{{Kind: KindLabel, ItemID: item, Criterion: crit, Dimension: dim, Value: v, Via: via}}); err != nil {
			t.Fatal(err)
		}
	}
	label(s, "q1", 0, "correct", 1, "order")
	label(s, "q1", 0, "correct", 0, "order") // the later label wins
	label(s, "q2", 0, "correct", 0, "filter:disagreements")
	label(s, "r1", 2, "met", 1, "order")
	bob := openStore(t, path, "bob")
	label(bob, "q1", 0, "correct", 1, "random")
	return s, path
}

func TestStatsInput(t *testing.T) {
	s, _ := statsSession(t)
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	wantJudges := []stats.JudgeSpec{
		{Key: "docqa · gpt-4o", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}},
		{Key: "rubric", Dimensions: []judge.Dimension{{Name: "met", Scale: judge.Binary}}, PerCriterion: true},
	}
	if !reflect.DeepEqual(in.Judges, wantJudges) {
		t.Errorf("judges = %+v, want %+v", in.Judges, wantJudges)
	}
	var order []string
	for _, u := range in.Units {
		order = append(order, u.ItemID+"/"+string(rune('0'+u.Criterion)))
	}
	if want := []string{"q1/0", "q2/0", "r1/0", "r1/1", "r1/2", "r1/3", "q3/0"}; !reflect.DeepEqual(order, want) {
		t.Errorf("units %v, want %v", order, want)
	}
	unit := func(id string, crit int) stats.Unit {
		for _, u := range in.Units {
			if u.ItemID == id && u.Criterion == crit {
				return u
			}
		}
		t.Fatalf("no unit %s/%d", id, crit)
		return stats.Unit{}
	}
	q1 := unit("q1", 0)
	if want := map[string]string{"category": "math", "task": "arith"}; !reflect.DeepEqual(q1.Segments, want) {
		t.Errorf("q1 segments %v", q1.Segments)
	}
	if unit("r1", 2).Segments != nil {
		t.Errorf("r1 has segments %v", unit("r1", 2).Segments)
	}
	wantQ1 := []stats.Verdict{
		{Judge: "docqa · gpt-4o", Status: judge.StatusOK, Values: map[string]float64{"correct": 1, "met": 1}},
		{Judge: "docqa · gpt-4o", Status: judge.StatusOK, Values: map[string]float64{"correct": 0, "met": 0}},
	}
	if !reflect.DeepEqual(q1.Verdicts, wantQ1) {
		t.Errorf("q1 verdicts (oldest first) = %+v, want %+v", q1.Verdicts, wantQ1)
	}
	wantLabels := []stats.Label{
		{Annotator: "ann", Values: map[string]float64{"correct": 0}, Provenance: "order"},
		{Annotator: "bob", Values: map[string]float64{"correct": 1}, Provenance: "random"},
	}
	if !reflect.DeepEqual(q1.Labels, wantLabels) {
		t.Errorf("q1 labels = %+v, want %+v", q1.Labels, wantLabels)
	}
	q2 := unit("q2", 0)
	wantSamples := []map[string]float64{{"correct": 0}, {"correct": 1}, {"correct": 0}}
	if len(q2.Verdicts) != 1 || !reflect.DeepEqual(q2.Verdicts[0].Samples, wantSamples) {
		t.Errorf("q2 verdicts %+v, want samples %v (the parse error left out)", q2.Verdicts, wantSamples)
	}
	if q2.Labels[0].Provenance != "filter:disagreements" {
		t.Errorf("q2 label provenance %q", q2.Labels[0].Provenance)
	}
	if v := unit("q3", 0).Verdicts; len(v) != 1 || v[0].Status != judge.StatusAPIError || v[0].Values != nil {
		t.Errorf("q3 verdicts %+v", v)
	}
	if v := unit("r1", 2).Verdicts; len(v) != 1 || v[0].Judge != "rubric" || v[0].Status != judge.StatusParseError {
		t.Errorf("r1/2 verdicts %+v", v)
	}

	// The figures that depend on history and samples come out.
	rep := stats.Compute(in, stats.Options{Seed: 1, Resamples: -1})
	d := rep.Judges[0].Dimensions[0]
	if d.Rejudges.Units != 1 || d.Rejudges.Flipped != 1 {
		t.Errorf("re-judge flips %+v, want 1 of 1", d.Rejudges)
	}
	if d.Samples.Units != 1 || d.Samples.Flipped != 1 {
		t.Errorf("sample flips %+v, want 1 of 1", d.Samples)
	}
}

// StatsInput reads the same session as the store's one-query-at-a-time
// readers: an independent rebuild from Items, Runs, VerdictHistory and
// Labels must give the same input.
func TestStatsInputMatchesThePublicReaders(t *testing.T) {
	s, _ := statsSession(t)
	got, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	items, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	names := RunNames(runs)
	var want stats.Input
	for _, r := range runs {
		want.Judges = append(want.Judges, stats.JudgeSpec{Key: names[r.ID], Dimensions: r.Info.Dimensions, PerCriterion: r.Info.PerCriterion})
	}
	for _, it := range items {
		want.Units = append(want.Units, stats.Unit{ItemID: it.ID, Segments: it.Segments})
		for k := range it.Rubric {
			want.Units = append(want.Units, stats.Unit{ItemID: it.ID, Criterion: k + 1, Segments: it.Segments})
		}
	}
	at := func(id string, crit int) *stats.Unit {
		for i := range want.Units {
			if want.Units[i].ItemID == id && want.Units[i].Criterion == crit {
				return &want.Units[i]
			}
		}
		return nil
	}
	// Verdicts of both runs, oldest first across runs: collect with their
	// ids' order, which SaveVerdicts order gives: docqa's batches, then
	// rubric's.
	for _, r := range runs {
		for _, it := range items {
			vs, err := s.VerdictHistory(r.ID, it.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				sv := stats.Verdict{Judge: names[r.ID], Status: v.Status, Values: v.Values}
				if raw, ok := v.Extra[ExtraSamples]; ok {
					b, _ := json.Marshal(raw)
					sv.Samples = parseSamples(string(b))
				}
				u := at(v.ItemID, v.Criterion)
				u.Verdicts = append(u.Verdicts, sv)
			}
		}
	}
	labels, err := s.Labels("")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range labels {
		u := at(l.ItemID, l.Criterion)
		found := false
		for i := range u.Labels {
			if u.Labels[i].Annotator == l.Annotator {
				u.Labels[i].Values[l.Dimension] = l.Value
				found = true
			}
		}
		if !found {
			u.Labels = append(u.Labels, stats.Label{Annotator: l.Annotator, Values: map[string]float64{l.Dimension: l.Value}, Provenance: l.Via})
		}
	}
	// How people labelled (Record stamps a sitting) is read by
	// the labelling reads alone: stats_input_labelling_test.go checks it.
	got.Labelling = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("StatsInput =\n%+v\nwant\n%+v", got, want)
	}
}

// A session opened read-only, while another store labels it, reads.
func TestStatsInputReadOnlyWhileReviewing(t *testing.T) {
	s, path := statsSession(t)
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "q3", Dimension: "correct", Value: 1, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	in, err := ro.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, u := range in.Units {
		n += len(u.Labels)
	}
	if n != 5 {
		t.Errorf("%d labels read, want 5 (the one just recorded included)", n)
	}
}

func TestStatsInputEmptySession(t *testing.T) {
	s, _ := newSession(t)
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Judges) != 0 || len(in.Units) != 4 {
		t.Errorf("empty session gives %d judges, %d units; want 0, 4", len(in.Judges), len(in.Units))
	}
}

func TestParseSamples(t *testing.T) {
	tests := []struct {
		in   string
		want []map[string]float64
	}{
		{`[]`, nil},
		{`not json`, nil},
		{`{"status":"ok"}`, nil},
		{`[{"status":"ok","values":{"correct":1}},{"values":{"correct":0}}]`, []map[string]float64{{"correct": 1}, {"correct": 0}}},
		{`[{"status":"api_error"},{"status":"ok"},7,"x",null,{"status":"ok","values":{"q":"high","s":3}}]`, []map[string]float64{{"s": 3}}},
	}
	for _, tc := range tests {
		if got := parseSamples(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseSamples(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func FuzzParseSamples(f *testing.F) {
	f.Add(`[{"status":"ok","values":{"correct":1}}]`)
	f.Add(`[{"status":1,"values":[]}]`)
	f.Add(`[[],{},null,true]`)
	f.Add(`[{"values":{"a":1e400}}]`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range parseSamples(s) {
			if len(m) == 0 {
				t.Errorf("an empty sample from %q", s)
			}
		}
	})
}
