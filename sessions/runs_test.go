package sessions

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestRunKey(t *testing.T) {
	base := judge.Info{Name: "docqa", Model: "gpt-4o", Params: map[string]any{"temperature": 0, "max_tokens": 512}}
	with := func(f func(*judge.Info)) judge.Info {
		i := base
		i.Params = map[string]any{"temperature": 0, "max_tokens": 512}
		f(&i)
		return i
	}
	for _, tc := range []struct {
		name string
		info judge.Info
		same bool
	}{
		{"identical", with(func(*judge.Info) {}), true},
		{"float instead of int", with(func(i *judge.Info) { i.Params["temperature"] = 0.0; i.Params["max_tokens"] = 512.0 }), true},
		{"json number", with(func(i *judge.Info) { i.Params["max_tokens"] = json.Number("512") }), true},
		{"other description and dimensions", with(func(i *judge.Info) {
			i.Description = "x"
			i.Dimensions = []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
		}), true},
		{"other model", with(func(i *judge.Info) { i.Model = "gpt-4o-mini" }), false},
		{"other name", with(func(i *judge.Info) { i.Name = "match" }), false},
		{"other temperature", with(func(i *judge.Info) { i.Params["temperature"] = 0.7 }), false},
		{"extra param", with(func(i *judge.Info) { i.Params["samples"] = 3 }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k1, err1 := RunKey(base)
			k2, err2 := RunKey(tc.info)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if (k1 == k2) != tc.same {
				t.Errorf("keys %s and %s: same = %v, want %v", k1, k2, k1 == k2, tc.same)
			}
		})
	}
	k, _ := RunKey(base)
	if want := `{"model":"gpt-4o","name":"docqa","params":{"max_tokens":512,"temperature":0}}`; k != want {
		t.Errorf("key = %s, want %s", k, want)
	}
	empty1, _ := RunKey(judge.Info{Name: "match"})
	empty2, _ := RunKey(judge.Info{Name: "match", Params: map[string]any{}})
	if empty1 != empty2 {
		t.Errorf("nil and empty params differ: %s, %s", empty1, empty2)
	}
}

func TestEnsureRun(t *testing.T) {
	s, path := newSession(t)
	a := binaryInfo("docqa", "gpt-4o")
	a.Description = "doc QA"
	r1, err := s.EnsureRun(a)
	if err != nil {
		t.Fatal(err)
	}
	again := binaryInfo("docqa", "gpt-4o")
	again.Params = map[string]any{"temperature": 0.0}
	r2, err := s.EnsureRun(again)
	if err != nil {
		t.Fatal(err)
	}
	if r1.ID != r2.ID || r1.Key != r2.Key || !r1.CreatedAt.Equal(r2.CreatedAt) {
		t.Errorf("same config gave runs %+v and %+v", r1, r2)
	}
	r3, err := s.EnsureRun(binaryInfo("docqa", "gpt-4o-mini"))
	if err != nil || r3.ID == r1.ID {
		t.Fatalf("another model: %+v, %v", r3, err)
	}
	quality := judge.Info{Name: "quality", Model: "m", PerCriterion: false, Dimensions: []judge.Dimension{
		{Name: "completeness", Scale: judge.Likert, Description: "how complete"},
		{Name: "correctness", Scale: judge.Likert}}, Params: map[string]any{"temperature": 0.5, "nested": map[string]any{"b": 1, "a": "x"}}}
	r4, err := s.EnsureRun(quality)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	runs, err := openStore(t, path, "ann").Runs()
	if err != nil || len(runs) != 3 {
		t.Fatalf("Runs() = %v, %v", runs, err)
	}
	if runs[0].ID != r1.ID || runs[1].ID != r3.ID || runs[2].ID != r4.ID {
		t.Errorf("run order: %v", runs)
	}
	// The stored info is the last one given (description cleared by "again").
	wantA := binaryInfo("docqa", "gpt-4o")
	wantA.Params = map[string]any{"temperature": 0.0}
	if !reflect.DeepEqual(runs[0].Info, wantA) {
		t.Errorf("run 1 info = %+v\nwant %+v", runs[0].Info, wantA)
	}
	wantQ := quality
	wantQ.Params = map[string]any{"temperature": 0.5, "nested": map[string]any{"a": "x", "b": 1.0}}
	if !reflect.DeepEqual(runs[2].Info, wantQ) || runs[2].Key != r4.Key {
		t.Errorf("run 3 = %+v\nwant info %+v", runs[2], wantQ)
	}
}

func TestEnsureRunErrors(t *testing.T) {
	s, _ := newSession(t)
	if _, err := s.EnsureRun(judge.Info{}); err == nil {
		t.Error("a run without a judge name was accepted")
	}
	if _, err := s.EnsureRun(judge.Info{Name: "x", Params: map[string]any{"f": func() {}}}); err == nil {
		t.Error("params that cannot be saved were accepted")
	}
	if runs, _ := s.Runs(); len(runs) != 0 {
		t.Errorf("refused runs were saved: %v", runs)
	}
}
