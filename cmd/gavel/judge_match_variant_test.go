package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// variantSession is a session whose two runs share the label "docqa ·
// gpt-4o" (a changed temperature: its second variant), on 6 items ann
// labelled YES: docqa@1 says YES on q1–q2, docqa@2 on q1–q5; docqa@3
// ("docqa · llama3", a label of its own) on all six.
func variantSession(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "v.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var items []judge.Item
	var labels []sessions.Action
	for i := range 6 {
		id := fmt.Sprintf("q%d", i+1)
		items = append(items, judge.Item{Index: i, ID: id, Question: "x", Gold: "x", Prediction: "x"})
		labels = append(labels, sessions.Action{Kind: sessions.KindLabel, ItemID: id, Dimension: "correct", Value: 1, Via: "order"})
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "d.jsonl", SHA256: "abc", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	for k, yes := range []int{2, 5, 6} {
		model := "gpt-4o"
		if k == 2 {
			model = "llama3"
		}
		info := judge.Info{Name: "docqa", Model: model, Params: map[string]any{"temperature": float64(k)},
			Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}
		r, err := s.EnsureRun(info)
		if err != nil {
			t.Fatal(err)
		}
		var vs []judge.Verdict
		for i, it := range items {
			v := 0.0
			if i < yes {
				v = 1
			}
			vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": v}})
		}
		if err := s.SaveVerdicts(r.ID, vs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Record(labels); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestJudgeVariantOnTheCommandLine: gavel compare and gavel stats name two
// runs that share a label by their variants, and --judge finds each by
// it, ignoring case; completion offers them after an "@".
func TestJudgeVariantOnTheCommandLine(t *testing.T) {
	session := variantSession(t)
	c := compareJSON(t, "compare", session, "--judge", "docqa@1", "--judge", "DocQA@2", "--resamples", "0")
	if c.A != "docqa@1 · gpt-4o" || c.B != "docqa@2 · gpt-4o" {
		t.Fatalf("compared %q with %q", c.A, c.B)
	}
	if p := c.Dimensions[0].Paired; p.N != 6 || p.OnlyB != 3 || p.BothRight != 2 || p.OnlyA != 0 {
		t.Errorf("table: %+v", p)
	}
	// The full label works too.
	c = compareJSON(t, "compare", session, "--judge", "docqa@2 · gpt-4o", "--judge", "docqa@1", "--resamples", "0")
	if c.A != "docqa@2 · gpt-4o" || c.B != "docqa@1 · gpt-4o" {
		t.Errorf("by label: compared %q with %q", c.A, c.B)
	}
	// A run whose label is its own is found by its variant too.
	c = compareJSON(t, "compare", session, "--judge", "docqa@1", "--judge", "docqa@3", "--resamples", "0")
	if c.A != "docqa@1 · gpt-4o" || c.B != "docqa · llama3" {
		t.Errorf("docqa@3: compared %q with %q", c.A, c.B)
	}
	code, _, errs := run(t, "compare", session, "--judge", "docqa", "--judge", "docqa@2")
	if code != exitUsage || !strings.Contains(errs, `"docqa@1 · gpt-4o", "docqa@2 · gpt-4o", "docqa · llama3"`) {
		t.Errorf("an ambiguous --judge docqa: exit %d, %s", code, errs)
	}
	code, _, errs = run(t, "compare", session, "--judge", "docqa@4", "--judge", "docqa@2")
	if code != exitUsage || !strings.Contains(errs, `no judge "docqa@4"`) {
		t.Errorf("--judge docqa@4: exit %d, %s", code, errs)
	}

	code, out, errs := gavel(t, "stats", session, "--judge", "docqa@2", "--format", "json", "--resamples", "0")
	if code != 0 {
		t.Fatalf("stats --judge docqa@2: exit %d: %s", code, errs)
	}
	var rep struct {
		Judges []struct {
			Judge string `json:"judge"`
		} `json:"judges"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Judges) != 1 || rep.Judges[0].Judge != "docqa@2 · gpt-4o" {
		t.Errorf("stats --judge docqa@2 reports %+v", rep.Judges)
	}

	if code, comp, _ := run(t, "__complete", "compare", session, "--judge", "docqa@"); code != 0 ||
		!strings.Contains(comp, "docqa@1 · gpt-4o\n") || !strings.Contains(comp, "docqa@2 · gpt-4o\n") {
		t.Errorf("completion of --judge docqa@ (exit %d): %q", code, comp)
	}
	if code, comp, _ := run(t, "__complete", "stats", session, "--judge", "DOCQA@2"); code != 0 || !strings.Contains(comp, "docqa@2 · gpt-4o\n") {
		t.Errorf("completion of --judge DOCQA@2 (exit %d): %q", code, comp)
	}
	// No label starts with docqa@3: its variant is offered.
	if code, comp, _ := run(t, "__complete", "stats", session, "--judge", "docqa@3"); code != 0 || !strings.HasPrefix(comp, "docqa@3\n") {
		t.Errorf("completion of --judge docqa@3 (exit %d): %q", code, comp)
	}
}
