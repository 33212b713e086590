package tui

import (
	"errors"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// The runs' verdicts are read one run after another, the active run
// first; a run whose reading fails does not stop the next one's.
func TestRunsAreReadOneAtATime(t *testing.T) {
	items := testItems(3)
	docqa := judge.Info{Name: "docqa", Model: "m", Dimensions: matchInfo.Dimensions}
	bbh := judge.Info{Name: "bbh", Model: "m", Dimensions: matchInfo.Dimensions}
	var calls []string
	load := func(name string, err error) func() (Loaded, error) {
		return func() (Loaded, error) {
			calls = append(calls, name) // the loads run one at a time: no race
			if err != nil {
				return Loaded{}, err
			}
			return Loaded{Verdicts: verdictsFor(items)}, nil
		}
	}
	m := newTestModel(t, &fakeStore{}, items, []Run{
		{Info: matchInfo, Load: load("match", nil)},
		{Info: docqa, Load: load("docqa", errors.New("unreadable"))},
		{Info: bbh, Load: load("bbh", nil)},
	}, nil, 120, 40)
	m.act = 1 // docqa active: read first
	first := m.nextLoad()
	if first == nil {
		t.Fatal("no run's verdicts are read")
	}
	if m.nextLoad() != nil {
		t.Fatal("a second run's verdicts are read while the first's are")
	}
	m = update(t, m, first())
	if want := []string{"docqa", "bbh", "match"}; !slices.Equal(calls, want) {
		t.Errorf("read %v, want %v", calls, want)
	}
	for k, r := range m.runs {
		if r.loading {
			t.Errorf("run %d still reading", k)
		}
	}
	if !m.runs[0].hasVerdict(0) || !m.runs[2].hasVerdict(2) || m.runs[1].hasVerdict(0) || m.reading {
		t.Errorf("verdicts placed: match %v, bbh %v, docqa %v; reading %v",
			m.runs[0].hasVerdict(0), m.runs[2].hasVerdict(2), m.runs[1].hasVerdict(0), m.reading)
	}
}
