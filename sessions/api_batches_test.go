package sessions

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAPIBatches(t *testing.T) {
	s, path := newSession(t)
	r1, err := s.EnsureRun(binaryInfo("docqa", "gpt-4o-mini"))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.EnsureRun(binaryInfo("bbh", "gpt-4o-mini"))
	if err != nil {
		t.Fatal(err)
	}
	b1, b2 := s.APIBatches(r1.ID), s.APIBatches(r2.ID)
	planned := time.Date(2026, 11, 27, 1, 2, 3, 4e6, time.UTC)
	chunks := []APIBatch{{Chunk: "c1", Requests: 2, Bytes: 300, PlannedAt: planned}, {Chunk: "c2", Requests: 1, Bytes: 100, PlannedAt: planned}}
	if err := b1.Plan(chunks, [][]string{{"k2", "k1"}, {"k3"}}); err != nil {
		t.Fatal(err)
	}
	// A request goes in one chunk at most, whichever run's.
	if err := b2.Plan([]APIBatch{{Chunk: "c3", Requests: 1, PlannedAt: planned}}, [][]string{{"k1"}}); err == nil {
		t.Error("a key planned twice was accepted")
	}
	got, err := b1.Chunks()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Chunk != "c1" || got[0].Status != "planned" || !got[0].PlannedAt.Equal(planned) || got[0].Bytes != 300 || got[0].Finished {
		t.Fatalf("chunks %+v", got)
	}
	if other, _ := b2.Chunks(); len(other) != 0 {
		t.Errorf("run 2 has chunks %+v", other)
	}
	keys, err := b1.ChunkKeys("c1")
	if err != nil || !slices.Equal(keys, []string{"k1", "k2"}) {
		t.Fatalf("keys %v %v", keys, err)
	}
	// ChunkOf across many keys (more than one IN list).
	many := []string{"k3", "nope"}
	for i := range 1200 {
		many = append(many, strings.Repeat("x", i%7)+string(rune('a'+i%26)))
	}
	many = append(many, "k1")
	in, err := b2.ChunkOf(many)
	if err != nil || len(in) != 2 || in["k1"] != "c1" || in["k3"] != "c2" {
		t.Fatalf("ChunkOf %v %v", in, err)
	}
	if n, err := b1.Running(); n != 2 || err != nil {
		t.Errorf("running %d %v, want 2", n, err)
	}
	c := got[0]
	c.InputFile, c.BatchID, c.Status = "file-1", "batch_1", "in_progress"
	if err := b1.Update(c); err != nil {
		t.Fatal(err)
	}
	if err := b2.Update(c); err == nil {
		t.Error("run 2 updated run 1's chunk")
	}
	c.Status, c.Answered, c.Failed, c.Finished = "expired", 1, 1, true
	if err := b1.Update(c); err != nil {
		t.Fatal(err)
	}
	if err := b1.SaveAnswers(map[string]string{"k1": `{"content":"result: YES"}`, "k2": ""}); err != nil {
		t.Fatal(err)
	}
	if err := b1.Release("c2"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Reopened, as a new process sees it.
	s = openStore(t, path, "ann")
	b1 = s.APIBatches(r1.ID)
	got, err = b1.Chunks()
	if err != nil {
		t.Fatal(err)
	}
	want := APIBatch{Chunk: "c1", Requests: 2, Bytes: 300, PlannedAt: planned, InputFile: "file-1", BatchID: "batch_1", Status: "expired", Answered: 1, Failed: 1, Finished: true}
	if got[0] != want {
		t.Errorf("chunk\n got %+v\nwant %+v", got[0], want)
	}
	if v, ok := s.ResponseCache().Get("k1"); !ok || v != `{"content":"result: YES"}` {
		t.Errorf("answer %q %v", v, ok)
	}
	if _, ok := s.ResponseCache().Get("k2"); ok {
		t.Error("an empty answer was kept")
	}
	if have, err := b1.Answered(append(many, "k2")); err != nil || len(have) != 1 || !have["k1"] {
		t.Errorf("answered %v %v, want k1 only", have, err)
	}
	if n, err := b1.Running(); n != 1 || err != nil {
		t.Errorf("running %d %v, want 1 (c2)", n, err)
	}
	if in, _ := b1.ChunkOf([]string{"k3"}); len(in) != 0 {
		t.Errorf("released key still in %v", in)
	}
	m1, err := b1.SessionMarker()
	if err != nil || len(m1) != 16 {
		t.Fatalf("marker %q %v", m1, err)
	}
	other, _ := newSession(t)
	if m2, _ := other.APIBatches(1).SessionMarker(); m2 == m1 {
		t.Errorf("two sessions share the marker %s", m1)
	}
}
