package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// buildingModel opens on 4 items whose session is still being written:
// the store arrives when the test sends on ready.
func buildingModel(t *testing.T) (*Model, chan storeMsg) {
	t.Helper()
	ready := make(chan storeMsg, 1)
	m := New(Options{Annotator: "tester", Dataset: "new.jsonl", Items: testItems(4),
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(testItems(4))}},
		StoreReady: func() (Recorder, error) {
			msg := <-ready
			return msg.store, msg.err
		}})
	return update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40}), ready
}

// Labels made while the session is written wait in the queue and are not
// shown as saved; once the store is there they are written, in order, and
// confirmed.
func TestLabelsQueuedWhileTheSessionIsWritten(t *testing.T) {
	m, ready := buildingModel(t)
	m = press(t, m, "y", "n")
	status := lines(m)[38]
	if !strings.Contains(status, "writing the session…") || strings.Contains(status, "✓ saved") {
		t.Errorf("status with labels queued: %q", status)
	}
	if n, _ := m.Unsaved(); n != 2 {
		t.Errorf("%d actions unsaved while the session is written, want 2", n)
	}
	store := &fakeStore{}
	ready <- storeMsg{store: store}
	m = runCmd(t, m, awaitStore(m.waitStore), 0)
	if got, want := store.labels(), []string{"q1=1", "q2=0"}; !slices.Equal(got, want) {
		t.Errorf("labels saved once the session is written: %v, want %v", got, want)
	}
	if status := lines(m)[38]; !strings.Contains(status, "✓ saved") || strings.Contains(status, "writing") {
		t.Errorf("status after saving: %q", status)
	}
	if n, _ := m.Unsaved(); n != 0 {
		t.Errorf("%d actions unsaved after the store arrived", n)
	}
}

// Quitting with labels queued waits for the session, saves them, then
// quits; a session that cannot be written ends the program with the
// labels reported as unsaved.
func TestQuitWhileTheSessionIsWritten(t *testing.T) {
	m, ready := buildingModel(t)
	m = press(t, m, "y")
	_, cmd := m.Update(keyMsg("q"))
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Fatal("quit at once with a label queued and no session yet")
		}
	}
	ready <- storeMsg{err: errors.New("disk full")}
	_, cmd = m.Update(awaitStore(m.waitStore)())
	if cmd == nil {
		t.Fatal("no quit after the session failed")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("the program does not end after the session failed while quitting")
	}
	if n, err := m.Unsaved(); n != 1 || err == nil {
		t.Errorf("Unsaved() = %d, %v; want the queued label and the error", n, err)
	}
}

// A session that cannot be written (a dataset found bad further on) with
// no label queued ends the program at once: nothing is lost, and main
// says why, as if the screen had not opened.
func TestSessionFailureWithNothingQueuedQuits(t *testing.T) {
	m, ready := buildingModel(t)
	ready <- storeMsg{err: errors.New("new.jsonl:900000: invalid JSON")}
	_, cmd := m.Update(awaitStore(m.waitStore)())
	if cmd == nil {
		t.Fatal("the screen stays open on a session that cannot be written, with nothing to save")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("the program does not end")
	}
}

// With a label queued, the failure is told on the screen and the program
// waits for the person to quit.
func TestSessionFailureWithLabelsQueuedStays(t *testing.T) {
	m, ready := buildingModel(t)
	m = press(t, m, "y")
	ready <- storeMsg{err: errors.New("new.jsonl:900000: invalid JSON")}
	_, cmd := m.Update(awaitStore(m.waitStore)())
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Fatal("the program ended with a label queued, without the person seeing why")
		}
	}
	if screen := strings.Join(lines(m), "\n"); !strings.Contains(screen, "900000") {
		t.Errorf("the screen does not tell the failure:\n%s", screen)
	}
	// Nothing retries a session that was never written: the hint line
	// says so once the failure's message has gone.
	m = press(t, m, "right", "y")
	if h := hintLineOf(m); strings.Contains(h, "retrying") || !strings.Contains(h, "no session was written") {
		t.Errorf("hint after the failure: %q", h)
	}
}

// noticeStore is a store that brings notices, as a session built from a
// dataset read to its end does.
type noticeStore struct {
	*fakeStore
	notices []string
}

func (s noticeStore) Notices() []string { return s.notices }

// What only the whole dataset could tell is logged when its session's
// store arrives.
func TestLateNoticesToldWithTheStore(t *testing.T) {
	m, ready := buildingModel(t)
	ready <- storeMsg{store: noticeStore{&fakeStore{}, []string{"new.jsonl: gold (mapped \"answer\") is empty on 3 of 900,000 items"}}}
	m = runCmd(t, m, awaitStore(m.waitStore), 0)
	found := false
	for _, e := range m.log.entries {
		found = found || strings.Contains(e.text, "empty on 3 of 900,000 items")
	}
	if !found {
		t.Error("the late notice is not in the messages")
	}
}

// Quitting while labels wait for the session keeps saying so: a selection
// that ends meanwhile (the filter chosen before, applied once every item
// is read) does not put its count in the place of "Quitting once the
// session is written…", which says what the wait is for.
func TestQuittingKeepsItsMessage(t *testing.T) {
	m, _ := buildingModel(t)
	m = press(t, m, "y")
	next, _ := m.Update(keyMsg("q")) // the store never comes: the quit waits
	m = next.(*Model)
	want := "Quitting once the session is written and your 1 decision saved…"
	if h := hintLineOf(m); !strings.Contains(h, want) {
		t.Fatalf("after q: %q", h)
	}
	m.applyNow() // a selection made while quitting
	if h := hintLineOf(m); !strings.Contains(h, want) {
		t.Errorf("the selection's message replaced the quitting one: %q", h)
	}
}

// arrivingStore is the store of a session built from a dataset's own
// verdict and label columns: it brings what was imported.
type arrivingStore struct {
	*fakeStore
	arrivals Arrivals
}

func (s arrivingStore) Arrivals() Arrivals { return s.arrivals }

// The runs and labels a new dataset carries are imported as its session
// is written: they reach the screen with the store, after the screen's
// own judges, whether every item is read by then or not; the imported
// run's verdicts are read then (or once every item is), and the
// imported annotator's labels show beside the verdict.
func TestImportedRunsAndLabelsArriveWithTheStore(t *testing.T) {
	for _, loading := range []bool{false, true} {
		name := map[bool]string{false: "items read", true: "items still read"}[loading]
		t.Run(name, func(t *testing.T) {
			items := testItems(4)
			ready := make(chan storeMsg, 1)
			pages := make(chan bool)
			o := Options{Annotator: "tester", Dataset: "graded.jsonl", Items: items,
				Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
				StoreReady: func() (Recorder, error) {
					msg := <-ready
					return msg.store, msg.err
				}}
			if loading {
				o.Items, o.ItemCount = items[:2], 4
				o.MoreItems = func() ([]judge.Item, bool, error) { <-pages; return items, true, nil }
			}
			m := update(t, New(o), tea.WindowSizeMsg{Width: 120, Height: 40})
			// J before the store: the file's judge is still to come.
			m = press(t, m, "J")
			if h := hintLineOf(m); !strings.Contains(h, "One judge so far: a judge the file carries joins once the session is written.") {
				t.Errorf("J while the session is written: %q", h)
			}
			imported := judge.Info{Name: "imported · judge_verdict", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}
			var verdicts []judge.Verdict
			for _, it := range items {
				verdicts = append(verdicts, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 0}})
			}
			loads := 0
			ready <- storeMsg{store: arrivingStore{&fakeStore{}, Arrivals{
				Runs: []Run{{Info: imported, Key: "imported · judge_verdict", ID: 1, Load: func() (Loaded, error) {
					loads++
					return Loaded{Verdicts: verdicts}, nil
				}}},
				Others: OtherLabelsOf([]sessions.Label{{ItemID: "q1", Dimension: "correct", Value: 1, Annotator: "human_label", Via: sessions.ViaImported}}),
			}}}
			m = runCmd(t, m, awaitStore(m.waitStore), 0)
			if len(m.runs) != 2 {
				t.Fatalf("%d runs once the store arrived, want the screen's judge and the imported one", len(m.runs))
			}
			if loading {
				if loads != 0 {
					t.Error("the imported run's verdicts were read before every item was")
				}
				go func() { pages <- true }()
				m = runCmd(t, m, readItems(m.load.more), 0)
			}
			if loads != 1 {
				t.Errorf("the imported run's verdicts were read %d times, want once", loads)
			}
			m = press(t, m, "J")
			screen := strings.Join(lines(m), "\n")
			for _, want := range []string{"imported · judge_verdict (2/2)", "human_label", "judge NO"} {
				if !strings.Contains(screen, want) {
					t.Errorf("the screen lacks %q once the imported run is on:\n%s", want, screen)
				}
			}
		})
	}
}

// A decision made while the session is written is stamped with the time
// of its key press, not the time the store commits it seconds later: the
// time a decision took (At - Appeared) stays what it was.
func TestQueuedDecisionsKeepTheirTime(t *testing.T) {
	m, ready := buildingModel(t)
	c := &testClock{t: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	useClock(m, c)
	c.advance(1200 * time.Millisecond)
	m = press(t, m, "y")
	c.advance(time.Minute) // the session takes a minute to be written
	store := &fakeStore{}
	ready <- storeMsg{store: store}
	m = runCmd(t, m, awaitStore(m.waitStore), 0)
	if len(store.groups) != 1 {
		t.Fatalf("%d groups saved, want 1", len(store.groups))
	}
	a := store.groups[0][0]
	if got := a.At.Sub(a.Appeared); got != 1200*time.Millisecond {
		t.Errorf("the decision took %v by its stamps (At %v, appeared %v), want 1.2s", got, a.At, a.Appeared)
	}
}

// The screen closed by a signal before the session was written (a quit
// waits for it): what was queued is written afterwards by SaveLeft, in
// the order made, undo included, and is no longer unsaved.
func TestSaveLeftWritesWhatWasQueued(t *testing.T) {
	m, _ := buildingModel(t)
	m = press(t, m, "y", "n", "u", "right", "y")
	if n, _ := m.UnsavedItems(); n != 4 {
		t.Fatalf("%d decisions queued, want 4 (y, n, undo, y)", n)
	}
	store := &fakeStore{}
	ready := func() (Recorder, error) { return store, nil }
	n, err := m.SaveLeft(ready)
	if err != nil || n != 4 {
		t.Fatalf("SaveLeft wrote %d (%v), want 4", n, err)
	}
	if got, want := store.labels(), []string{"q1=1", "q3=1"}; !slices.Equal(got, want) {
		t.Errorf("saved %v, want %v (q2's label undone)", got, want)
	}
	if n, ids := m.UnsavedItems(); n != 0 {
		t.Errorf("%d decisions still unsaved after SaveLeft: %v", n, ids)
	}
	// Nothing is left: the store is not even asked for.
	if n, _ := m.SaveLeft(func() (Recorder, error) { t.Error("asked for the store with nothing to write"); return store, nil }); n != 0 {
		t.Errorf("SaveLeft again wrote %d", n)
	}
}

// A narrow status line drops the bar, then writes the counts short,
// rather than cut a count's last digits ("reading items 2/10000…" for
// 2 of 1,000,000).
func TestStatusLineKeepsCountsWhole(t *testing.T) {
	items := testItems(2)
	for _, width := range []int{200, 80, 64} {
		m := New(Options{Annotator: "tester", Dataset: "big.jsonl", Items: items, ItemCount: 1_000_000,
			MoreItems:  func() ([]judge.Item, bool, error) { select {} },
			Runs:       []Run{{Info: matchInfo, Load: func() (Loaded, error) { select {} }}, {Info: matchInfo, Key: "imported", Load: func() (Loaded, error) { select {} }}},
			StoreReady: func() (Recorder, error) { select {} }})
		m = update(t, m, tea.WindowSizeMsg{Width: width, Height: 30})
		status := m.statusLine()
		if !strings.Contains(status, "reading items 2/1000000") && !strings.Contains(status, "reading items 2/1.0M") {
			t.Errorf("width %d: the status line cuts the count: %q", width, status)
		}
	}
}
