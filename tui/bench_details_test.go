package tui

import (
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// detailsOnce saves the bench session's first verdicts once.
var (
	detailsOnce sync.Once
	detailsErr  error
)

// BenchmarkStoreKeyPressDetails is BenchmarkStoreKeyPress with the
// verdicts held as a reopened session holds them, without their reason
// and extra fields: each item moved to reads its verdicts back from the
// session (workspace.detailed) to draw them.
func BenchmarkStoreKeyPressDetails(b *testing.B) {
	m, s := storeModel(b, "bench-details")
	r := m.runs[0]
	detailsOnce.Do(func() {
		run, err := s.EnsureRun(r.info)
		if err != nil {
			detailsErr = err
			return
		}
		var whole []judge.Verdict
		for i := range 5000 {
			v, _ := r.verdict(i, 0)
			v.Extra = map[string]any{"extracted_answer": "an answer", "rule": "contains"}
			whole = append(whole, v)
		}
		detailsErr = s.SaveVerdicts(run.ID, whole)
	})
	if detailsErr != nil {
		b.Fatal(detailsErr)
	}
	for k, mo := range r.tab.more {
		mo.reason, mo.extra = "", nil
		r.tab.more[k] = mo
	}
	r.detail = detailCache{item: -1}
	keys := []tea.KeyPressMsg{keyMsg("y"), keyMsg("n")}
	right := keyMsg("right")
	n := 0
	for b.Loop() {
		next, cmd := m.Update(keys[n%2])
		m = next.(*Model)
		_ = m.View()
		next, more := m.Update(right)
		m = next.(*Model)
		_ = m.View()
		b.StopTimer()
		m = drain(b, m, tea.Batch(cmd, more), saved(b))
		b.StartTimer()
		n++
	}
	if v, _ := r.verdict(m.cur, 0); m.detailed(r, m.cur, v).Reason == "" {
		b.Error("the verdict's reason was not read back")
	}
}
