package sessions

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// randomStatsSession fills a session from seed with a bit of everything
// the statistics read: ids holding commas and non-ASCII letters, rubric
// criteria, segments, several runs (per item, per criterion, pairwise
// with swapped orders, nominal), re-judges, failed verdicts, extra fields
// and samples, fractional and whole values, and labels by several
// annotators on several dimensions and ways, with undos.
func randomStatsSession(t *testing.T, seed uint64) *Store {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	s := openStore(t, sessionPath(t), "ann")
	var items []judge.Item
	for i := range 40 + r.IntN(40) {
		it := judge.Item{Index: i, ID: fmt.Sprintf("%s%d", []string{"q", "é,", "x y", "Z", "a\"b"}[r.IntN(5)], i)}
		if r.IntN(3) == 0 {
			it.Rubric = []string{"one", "two", "three"}[:1+r.IntN(3)]
		}
		if r.IntN(4) > 0 {
			it.Segments = map[string]string{"topic": []string{"a", "b", "c"}[r.IntN(3)]}
			if r.IntN(2) == 0 {
				it.Segments["level"] = []string{"easy", "hard"}[r.IntN(2)]
			}
		}
		items = append(items, it)
	}
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	infos := []judge.Info{
		{Name: "docqa", Model: "m", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}, {Name: "partial", Scale: judge.Ternary}}},
		{Name: "rubric", PerCriterion: true, Dimensions: []judge.Dimension{{Name: "met", Scale: judge.Binary}}},
		{Name: "pair", Dimensions: []judge.Dimension{{Name: "better", Scale: judge.Pairwise}}},
		{Name: "grader", Dimensions: []judge.Dimension{{Name: "grade", Scale: "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED"}}},
		{Name: "stars", Dimensions: []judge.Dimension{{Name: "stars", Scale: judge.Likert}}},
	}
	value := func(d judge.Dimension) float64 {
		vals := d.Scale.Values()
		if len(vals) == 0 {
			return float64(1 + r.IntN(5))
		}
		return vals[r.IntN(len(vals))]
	}
	for _, info := range infos {
		run, err := s.EnsureRun(info)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			var vs []judge.Verdict
			for _, it := range items {
				if r.IntN(3) == 0 && round > 0 {
					continue
				}
				crits := []int{0}
				if info.PerCriterion {
					crits = crits[:0]
					for k := range it.Rubric {
						crits = append(crits, k+1)
					}
				}
				for _, c := range crits {
					v := judge.Verdict{ItemID: it.ID, Criterion: c, Status: judge.StatusOK, At: t0, Values: map[string]float64{}}
					for _, d := range info.Dimensions {
						v.Values[d.Name] = value(d)
					}
					switch r.IntN(8) {
					case 0:
						v.Status, v.Values, v.Error = judge.StatusParseError, nil, "?"
					case 1:
						v.Status, v.Values, v.Error = judge.StatusAPIError, nil, "503"
					case 2:
						v.Extra = map[string]any{"error_type": []string{"none", "logic"}[r.IntN(2)], "score": r.IntN(3)}
					case 3:
						v.Extra = map[string]any{ExtraSamples: []any{
							map[string]any{"status": "ok", "values": map[string]any{info.Dimensions[0].Name: value(info.Dimensions[0])}},
							map[string]any{"status": "ok", "values": map[string]any{info.Dimensions[0].Name: value(info.Dimensions[0])}},
						}}
					}
					vs = append(vs, v)
					if info.Dimensions[0].Scale.Kind() == judge.KindPairwise && r.IntN(2) == 0 {
						sw := v
						sw.Swapped, sw.Extra = true, nil
						vs = append(vs, sw)
					}
				}
			}
			if err := s.SaveVerdicts(run.ID, vs); err != nil {
				t.Fatal(err)
			}
		}
	}
	dims := []judge.Dimension{infos[0].Dimensions[0], infos[0].Dimensions[1], infos[3].Dimensions[0], infos[4].Dimensions[0],
		{Name: "tone", Scale: judge.Likert}}
	for _, who := range []string{"ann", "bob", "cy"} {
		for _, it := range items {
			if r.IntN(3) == 0 {
				continue
			}
			crit := 0
			if len(it.Rubric) > 0 && r.IntN(2) == 0 {
				crit = 1 + r.IntN(len(it.Rubric))
			}
			var acts []Action
			for _, d := range dims {
				if r.IntN(2) == 0 {
					continue
				}
				dim := d
				if crit > 0 {
					dim = infos[1].Dimensions[0]
				}
				acts = append(acts, Action{Kind: KindLabel, ItemID: it.ID, Criterion: crit, Dimension: dim.Name, Value: value(dim),
					Via: []string{"order", "random", "filter:disagreements"}[r.IntN(3)]})
				if crit > 0 {
					break
				}
			}
			if len(acts) == 0 {
				continue
			}
			if _, err := s.RecordAs(who, acts); err != nil {
				t.Fatal(err)
			}
			if who == "ann" && r.IntN(6) == 0 {
				if _, err := s.Undo(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return s
}

// On random sessions the packed reads give exactly the row readers'
// input.
func TestPackedStatsInputRandomSessions(t *testing.T) {
	for seed := range uint64(6) {
		s := randomStatsSession(t, seed)
		got, err := s.StatsInput()
		if err != nil {
			t.Fatal(err)
		}
		want := rowsInput(t, s)
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("seed %d: packed input\n%s\nrow readers' input\n%s", seed, g, w)
		}
		n := 0
		for _, u := range got.Units {
			n += len(u.Verdicts) + len(u.Labels)
		}
		if n < 100 {
			t.Errorf("seed %d: only %d verdicts and labels read", seed, n)
		}
	}
}
