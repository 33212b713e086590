package sessions

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func benchItems(n int) []judge.Item {
	items := make([]judge.Item, n)
	for i := range items {
		items[i] = judge.Item{Index: i, ID: fmt.Sprintf("item-%06d", i),
			Question: "What is the capital of France? Answer briefly.", Gold: "Paris",
			Prediction: "The capital of France is Paris, of course.",
			Segments:   map[string]string{"category": fmt.Sprint("c", i%7)},
			Fields:     json.RawMessage(`{"question":"What is the capital of France?","answer":"Paris"}`)}
	}
	return items
}

// BenchmarkInitDataset measures saving a 100,000-item dataset, which a
// new review does before its first screen.
func BenchmarkInitDataset(b *testing.B) {
	items := benchItems(100_000)
	for b.Loop() {
		s, err := Open(filepath.Join(b.TempDir(), "b.gavel"), Options{Annotator: "ann"})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.InitDataset(DatasetInfo{}, items); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkItems measures reading 100,000 items back, which a reopened
// review does before its first screen.
func BenchmarkItems(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "b.gavel"), Options{Annotator: "ann"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.InitDataset(DatasetInfo{}, benchItems(100_000)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Items(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecord measures one confirmed key press (a commit with fsync).
func BenchmarkRecord(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "b.gavel"), Options{Annotator: "ann"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.InitDataset(DatasetInfo{}, benchItems(1000)); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		id := fmt.Sprintf("item-%06d", i%1000)
		if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: id, Dimension: "correct", Value: 1, Via: "order"}}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSaveVerdicts measures one full batch of 64 verdicts.
func BenchmarkSaveVerdicts(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "b.gavel"), Options{Annotator: "ann"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.InitDataset(DatasetInfo{}, benchItems(1000)); err != nil {
		b.Fatal(err)
	}
	run, err := s.EnsureRun(binaryInfo("docqa", "m"))
	if err != nil {
		b.Fatal(err)
	}
	vs := make([]judge.Verdict, batchSize)
	for i := range vs {
		vs[i] = judge.Verdict{ItemID: fmt.Sprintf("item-%06d", i), Status: judge.StatusOK, Reason: "matches the gold answer",
			Values: map[string]float64{"correct": 1}, Raw: "reason: ok\nresult: YES", PromptTokens: 300, CompletionTokens: 20}
	}
	for b.Loop() {
		if err := s.SaveVerdicts(run.ID, vs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLabels measures deriving current labels from 20,000 actions.
func BenchmarkLabels(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "b.gavel"), Options{Annotator: "ann"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.InitDataset(DatasetInfo{}, benchItems(10_000)); err != nil {
		b.Fatal(err)
	}
	acts := make([]Action, 20_000)
	for i := range acts {
		acts[i] = Action{Kind: KindLabel, ItemID: fmt.Sprintf("item-%06d", i%10_000), Dimension: "correct", Value: float64(i % 2)}
	}
	if _, err := s.Record(acts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if ls, err := s.Labels(""); err != nil || len(ls) != 10_000 {
			b.Fatal(len(ls), err)
		}
	}
}
