package queuetest_test

import (
	"sync"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/queuetest"
)

// The contract suite on SQLite: the session's own store.
func TestSQLite(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) sessions.Queue {
		s, err := sessions.Open(queuetest.NewSession(t), sessions.Options{Annotator: "lead"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// Five people, each with their own store on one session file (as five
// gavel processes would be), claim and label at once: SQLite's IMMEDIATE
// transactions keep their claims apart.
func TestSQLiteStoresClaimAtOnce(t *testing.T) {
	path := queuetest.NewSession(t)
	team := []string{"ana", "bo", "cy", "di", "ed"}
	lead, err := sessions.Open(path, sessions.Options{Annotator: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	defer lead.Close()
	if _, err := lead.Assign(sessions.AssignOptions{Annotators: team, Overlap: 0.5, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	handed := map[string][]string{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, a := range team {
		s, err := sessions.Open(path, sessions.Options{Annotator: a})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for {
				ids, err := s.Claim(a, 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(ids) == 0 {
					return
				}
				var acts []sessions.Action
				for _, id := range ids {
					acts = append(acts, sessions.Action{Kind: sessions.KindLabel, ItemID: id, Dimension: queuetest.Binary, Value: 1, Via: "queue"})
				}
				if _, err := s.Record(acts); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, id := range ids {
					handed[id] = append(handed[id], a)
				}
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	slots, err := lead.QueueSlots()
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, s := range slots {
		n[s.ItemID]++
	}
	total := 0
	for id, k := range n {
		who := handed[id]
		total += len(who)
		if len(who) != k || (k == 2 && who[0] == who[1]) {
			t.Errorf("item %q went to %v; it has %d slots", id, who, k)
		}
	}
	if total != 90 {
		t.Errorf("%d handed out, want 90", total)
	}
}
