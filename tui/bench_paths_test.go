package tui

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/internal/perfdata"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// Whole-path benchmarks of the review screen at 1,000,000 items of the
// generated rows scripts/perf/run times (internal/perfdata, about 590
// bytes each), with a real session store behind the screen: the labels go
// to SQLite, not to a fake. Their names start with Store so that
// `-bench Store` picks them; building the session takes a minute or more,
// once per process, and they are skipped under -short.

// storeItems is the size of the Store benchmarks.
const storeItems = 1_000_000

var (
	storeOnce sync.Once
	storeDir  string
	storeRows []judge.Item
	storeErr  error
)

// TestMain removes the 1,000,000-item session the Store benchmarks built
// (about 1.5 GB) when the package's tests and benchmarks are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if storeDir != "" {
		os.RemoveAll(storeDir)
	}
	os.Exit(code)
}

// storeSession builds, once per process, a session of storeItems
// generated rows: written as JSONL, read with dataset.Load and saved with
// sessions.Open and InitDataset, as a new review does.
func storeSession(b *testing.B) (string, []judge.Item) {
	b.Helper()
	if testing.Short() {
		b.Skip("builds a 1,000,000-item session; skipped under -short")
	}
	storeOnce.Do(func() {
		if storeDir, storeErr = os.MkdirTemp("", "gavel-tui-bench-"); storeErr != nil {
			return
		}
		file := filepath.Join(storeDir, "rows.jsonl")
		f, err := os.Create(file)
		if err != nil {
			storeErr = err
			return
		}
		if err := perfdata.Write(f, perfdata.Options{Rows: storeItems, Seed: 1}); err != nil {
			storeErr = err
			return
		}
		if storeErr = f.Close(); storeErr != nil {
			return
		}
		ds, err := dataset.Load(file, dataset.Options{})
		if err != nil {
			storeErr = err
			return
		}
		os.Remove(file) // the items are in memory; the disk holds the session
		s, err := sessions.Open(filepath.Join(storeDir, "bench.gavel"), sessions.Options{Annotator: "setup"})
		if err != nil {
			storeErr = err
			return
		}
		if storeErr = s.InitDataset(sessions.DatasetInfo{Path: file, SHA256: ds.SHA256, Format: ds.Format, Mapping: ds.Mapping}, ds.Items); storeErr != nil {
			s.Close()
			return
		}
		storeErr = s.Close()
		storeRows = ds.Items
	})
	if storeErr != nil {
		b.Fatalf("building the %d-item session: %v", storeItems, storeErr)
	}
	return filepath.Join(storeDir, "bench.gavel"), storeRows
}

// storeModel opens the benchmark session as annotator (a new one for each
// benchmark, so labels from one do not change another) and returns the
// review screen over it at 80×24, with a match judge whose verdicts carry
// a confidence, so that least-confident order has something to sort.
func storeModel(b *testing.B, annotator string) (*Model, *sessions.Store) {
	return storeModelJudges(b, annotator, 1)
}

// storeModelJudges is storeModel with judges judges: the match judge and,
// after it, judges-1 others whose verdicts differ on some items.
func storeModelJudges(b *testing.B, annotator string, judges int) (*Model, *sessions.Store) {
	b.Helper()
	path, items := storeSession(b)
	s, err := sessions.Open(path, sessions.Options{Annotator: annotator})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	vs := make([]judge.Verdict, len(items))
	for i, it := range items {
		h := fnv.New32a()
		h.Write([]byte(it.ID))
		c := float64(h.Sum32()%1000) / 1000
		vs[i] = judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(h.Sum32() % 2)},
			Confidence: &c, Reason: "rule \"contains\": the gold answer is a phrase in the extracted answer"}
	}
	// A judge that re-judges nothing: R asks, and its tasks are made.
	rejudge := func([]judge.Task) (*sessions.Judging, error) { return nil, nil }
	runs := []Run{{Info: matchInfo, Verdicts: vs, Rejudge: rejudge}}
	for k := 1; k < judges; k++ {
		other := make([]judge.Verdict, len(vs))
		for i, v := range vs {
			if i%(k+2) == 0 {
				v.Values = map[string]float64{"correct": 1 - v.Values["correct"]}
			}
			other[i] = v
		}
		info := matchInfo
		info.Name = fmt.Sprintf("other %d", k)
		runs = append(runs, Run{Info: info, Verdicts: other, Rejudge: rejudge})
	}
	m := New(Options{Store: s, Annotator: annotator, Dataset: "rows.jsonl", Items: items, Runs: runs})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return next.(*Model), s
}

// drain runs cmd as the program would — each command on its own
// goroutine, a batch's commands each, every answer given to Update and
// the command Update returns run in turn — until done holds for the model.
// It fails when done does not hold within two minutes. Answers that come
// after done holds are dropped.
func drain(b *testing.B, m *Model, cmd tea.Cmd, done func(*Model) bool) *Model {
	b.Helper()
	msgs := make(chan tea.Msg, 256)
	run := func(c tea.Cmd) {
		if c != nil {
			go func() { msgs <- c() }()
		}
	}
	run(cmd)
	deadline := time.After(2 * time.Minute)
	for !done(m) {
		select {
		case msg := <-msgs:
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			default:
				next, more := m.Update(msg)
				m = next.(*Model)
				run(more)
			}
		case <-deadline:
			b.Fatal("the screen did not settle within two minutes")
		}
	}
	return m
}

// saved reports whether every label made on the screen is committed (none
// queued, no write in flight), and stops the benchmark when a save failed.
func saved(b *testing.B) func(*Model) bool {
	return func(m *Model) bool {
		if m.save.err != nil {
			b.Fatalf("saving a label: %v", m.save.err)
		}
		return !m.save.inflight && len(m.save.queue) == 0
	}
}

// BenchmarkStoreKeyPress labels the item on screen (y or n, alternating)
// and moves to the next one, drawing the frame after each key, at
// 1,000,000 items with the session store behind the screen. ns/op is the
// event loop's work for the two keys; the SQLite commit each label starts
// runs off the loop, is waited for before the next iteration, and is
// reported as save-ms/op.
func BenchmarkStoreKeyPress(b *testing.B) {
	m, _ := storeModel(b, "bench-keypress")
	keys := []tea.KeyPressMsg{keyMsg("y"), keyMsg("n")}
	right := keyMsg("right")
	var saving time.Duration
	n := 0
	for b.Loop() {
		next, cmd := m.Update(keys[n%2])
		m = next.(*Model)
		_ = m.View()
		next, more := m.Update(right)
		m = next.(*Model)
		_ = m.View()
		b.StopTimer()
		start := time.Now()
		m = drain(b, m, tea.Batch(cmd, more), saved(b))
		saving += time.Since(start)
		b.StartTimer()
		n++
	}
	b.ReportMetric(float64(saving.Microseconds())/1000/float64(n), "save-ms/op")
}

// searchQueries are a query every row matches (ASCII, the fast path) and
// one few rows hold (not ASCII, matched through lower-casing).
var searchQueries = []struct{ name, query string }{{"ascii", "step by step"}, {"accented", "déjà-vu paris"}}

// typeSearch opens the search dialog and types query, without Enter.
func typeSearch(m *Model, query string) *Model {
	next, _ := m.Update(keyMsg("/"))
	m = next.(*Model)
	for _, r := range query {
		k := string(r)
		if k == " " {
			k = "space"
		}
		next, _ = m.Update(keyMsg(k))
		m = next.(*Model)
	}
	return m
}

// BenchmarkStoreSearchKey is the Enter of the search dialog at 1,000,000
// items: the key, its command (which only carries the query) and the
// query's message, with the frame drawn after it. The matching runs in
// later commands (BenchmarkStoreSearchStream).
func BenchmarkStoreSearchKey(b *testing.B) {
	m, _ := storeModel(b, "bench-searchkey")
	for _, q := range searchQueries {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				m = typeSearch(m, q.query)
				b.StartTimer()
				next, cmd := m.Update(keyMsg("enter"))
				m = next.(*Model)
				if cmd == nil {
					b.Fatal("enter in the search dialog gave no command")
				}
				msg, ok := cmd().(searchQueryMsg)
				if !ok {
					b.Fatal("enter in the search dialog did not send the query")
				}
				next, _ = m.Update(msg)
				m = next.(*Model)
				_ = m.View()
			}
		})
	}
}

// searched reports whether a search's matches have all streamed in and
// the selection holds them.
func searched(m *Model) bool { return !m.search.running && !m.sel.searching }

// BenchmarkStoreSearchStream is a search from its Enter until every
// chunk's matches have streamed in and the selection is complete, at
// 1,000,000 items, with a frame drawn then. Not a key press: the screen
// stays live meanwhile (BenchmarkStoreSearchKey is the key).
func BenchmarkStoreSearchStream(b *testing.B) {
	m, _ := storeModel(b, "bench-searchstream")
	for _, q := range searchQueries {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				m = typeSearch(m, q.query)
				b.StartTimer()
				next, cmd := m.Update(keyMsg("enter"))
				m = next.(*Model)
				m = drain(b, m, cmd, func(m *Model) bool { return m.search.query == q.query && searched(m) })
				_ = m.View()
			}
			b.ReportMetric(float64(len(m.sel.items)), "matches")
		})
	}
}

// ordered reports whether the order o is in force over every item, no
// ordering job still running.
func ordered(o order) func(*Model) bool {
	return func(m *Model) bool {
		return m.sel.order == o && !m.sel.job.running && len(m.sel.items) == storeItems
	}
}

// BenchmarkStoreSortKey is the order key (o), from dataset order to least
// confident first, at 1,000,000 items: what the event loop spends on the
// key and the frame after it. The ordering itself may run off the loop
// (BenchmarkStoreSortDone); it is waited for, untimed, as are the two
// presses back to dataset order.
func BenchmarkStoreSortKey(b *testing.B) {
	m, _ := storeModel(b, "bench-sortkey")
	o := keyMsg("o")
	for b.Loop() {
		next, cmd := m.Update(o)
		m = next.(*Model)
		_ = m.View()
		b.StopTimer()
		m = drain(b, m, cmd, ordered(orderLeastConfident))
		m = backToDatasetOrder(b, m)
		b.StartTimer()
	}
}

// BenchmarkStoreSortDone is the order key (o) from dataset order until
// the items are on screen least confident first, at 1,000,000 items.
func BenchmarkStoreSortDone(b *testing.B) {
	m, _ := storeModel(b, "bench-sortdone")
	o := keyMsg("o")
	for b.Loop() {
		next, cmd := m.Update(o)
		m = next.(*Model)
		m = drain(b, m, cmd, ordered(orderLeastConfident))
		_ = m.View()
		b.StopTimer()
		m = backToDatasetOrder(b, m)
		b.StartTimer()
	}
}

// backToDatasetOrder presses o until dataset order is in force again.
func backToDatasetOrder(b *testing.B, m *Model) *Model {
	b.Helper()
	for range numOrders {
		if ordered(orderDataset)(m) {
			return m
		}
		next, cmd := m.Update(keyMsg("o"))
		m = next.(*Model)
		_, want := m.wanted() // the order the key asked for, maybe still being made
		m = drain(b, m, cmd, func(m *Model) bool { return !m.sel.job.running && m.sel.order == want })
	}
	if !ordered(orderDataset)(m) {
		b.Fatalf("o did not come back to dataset order (order %v)", m.sel.order)
	}
	return m
}

// compile-time check that the session store is what the screen records to.
var _ Recorder = (*sessions.Store)(nil)

// BenchmarkStoreSwitchJudge is the judge key (J) at 1,000,000 items with
// three judges and a label on every tenth item, with the frame drawn
// after it: the status line's counts and the filters follow the judge
// switched to.
func BenchmarkStoreSwitchJudge(b *testing.B) {
	m, _ := storeModelJudges(b, "bench-switchjudge", 3)
	b.StopTimer()
	for i := 0; i < 200; i++ {
		next, cmd := m.Update(keyMsg([]string{"y", "n"}[i%2]))
		m = next.(*Model)
		m = drain(b, m, cmd, saved(b))
		for range 10 {
			next, _ = m.Update(keyMsg("right"))
			m = next.(*Model)
		}
	}
	// The other judges' tallies are derived in steps after the screen
	// opens; the switches timed are those after. drain dropped the
	// answers that came after the saves it waited for, steps among them.
	m.tallying = false
	m = drain(b, m, m.wantTally(), func(m *Model) bool {
		for k, t := range m.kept {
			if t != nil && k != m.act && t.upTo < len(t.agreement) {
				return false
			}
		}
		return true
	})
	b.StartTimer()
	j := keyMsg("J")
	for b.Loop() {
		next, _ := m.Update(j)
		m = next.(*Model)
		_ = m.View()
	}
}

// BenchmarkStoreRejudgeAllKey is the re-judge-all key (R) at 1,000,000
// items, with the frame drawn after it: the question opens at once, its
// tasks made off the loop. They are waited for and the question answered
// no, untimed.
func BenchmarkStoreRejudgeAllKey(b *testing.B) {
	m, _ := storeModel(b, "bench-rejudgeall")
	r, esc := keyMsg("R"), keyMsg("esc")
	counted := func(m *Model) bool {
		d, ok := m.top().(*confirmDialog)
		return ok && d.yes != nil
	}
	for b.Loop() {
		next, cmd := m.Update(r)
		m = next.(*Model)
		_ = m.View()
		b.StopTimer()
		if m.top() == nil {
			b.Fatal("R opened no question")
		}
		m = drain(b, m, cmd, counted)
		next, _ = m.Update(esc)
		m = next.(*Model)
		b.StartTimer()
	}
}
