package sessions

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

func TestResponseCacheSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gavel")
	s, err := Open(path, Options{Annotator: "a"})
	if err != nil {
		t.Fatal(err)
	}
	c := s.ResponseCache()
	if _, ok := c.Get("k1"); ok {
		t.Fatal("empty cache answered")
	}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() { c.Put(fmt.Sprintf("k%d", i), fmt.Sprintf("response %d", i)) })
	}
	wg.Wait()
	if v, ok := c.Get("k7"); !ok || v != "response 7" {
		t.Errorf("Get(k7) before the flush = %q, %v", v, ok)
	}
	c.Put("k7", "replaced")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}

	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rc := r.ResponseCache()
	for i := range 200 {
		want := fmt.Sprintf("response %d", i)
		if i == 7 {
			want = "replaced"
		}
		if v, ok := rc.Get(fmt.Sprintf("k%d", i)); !ok || v != want {
			t.Fatalf("after reopening, Get(k%d) = %q, %v; want %q", i, v, ok, want)
		}
	}
	rc.Put("new", "ignored") // read-only: dropped, no panic
}
