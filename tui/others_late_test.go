package tui

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// The others' labels read after the first frame (Options.OthersLater)
// end as if read before it: the same labels beside the verdict, the same
// adjudication queue and the same knowledge of this person's labels,
// though labels were recorded and undone before they arrived — including
// the undo of one made in an adjudication before the screen opened.
func TestOthersReadLate(t *testing.T) {
	keys := []string{"y", "u", "n", "right", "y", "g"}
	for _, tc := range []struct {
		name string
		cut  int // the others arrive after keys[:cut]
	}{{"before any key", 0}, {"after a label and its undo", 2}, {"after every key", len(keys)}} {
		t.Run(tc.name, func(t *testing.T) {
			now := update(t, New(adjudicationOptions(&fakeStore{}, false)), tea.WindowSizeMsg{Width: 100, Height: 30})
			now = press(t, now, keys...)

			opts := adjudicationOptions(&fakeStore{}, false)
			others, cantJudge := opts.Others, opts.OthersCantJudge
			opts.Others, opts.OthersCantJudge = nil, nil
			opts.OthersLater = func() (*OtherLabels, []sessions.CantJudge, error) { return OtherLabelsOf(others), cantJudge, nil }
			late := New(opts)
			read := late.readOthers
			late.readOthers = nil // Init's part, done by hand to choose when
			late = update(t, late, tea.WindowSizeMsg{Width: 100, Height: 30})
			if late.canAdjudicate() {
				t.Fatal("the queue is offered before the others' labels are read")
			}
			late = press(t, late, keys[:tc.cut]...)
			late = update(t, late, read())
			late = press(t, late, keys[tc.cut:]...)

			if !reflect.DeepEqual(late.adj.mine, now.adj.mine) {
				t.Errorf("this person's labels as the queue knows them:\n late %v\n read first %v", late.adj.mine, now.adj.mine)
			}
			if late.adj.late != nil {
				t.Error("still keeping what to do again after the others arrived")
			}
			if l, n := late.adjudicationLeft(), now.adjudicationLeft(); l != n {
				t.Errorf("%d items to adjudicate, %d when read first", l, n)
			}
			var names []string
			for _, f := range late.filters() {
				names = append(names, f.name)
			}
			if !slices.Contains(names, "to adjudicate") {
				t.Errorf("filters %v lack the adjudication queue once the others are read", names)
			}
			if l, n := plain(late), plain(now); l != n {
				t.Errorf("the screens differ:\nlate:\n%s\nread first:\n%s", l, n)
			}
		})
	}
}

// A failed late read says so and leaves the screen as it was.
func TestOthersReadLateFails(t *testing.T) {
	opts := adjudicationOptions(&fakeStore{}, false)
	opts.Others, opts.OthersCantJudge = nil, nil
	opts.OthersLater = func() (*OtherLabels, []sessions.CantJudge, error) {
		return nil, nil, errors.New("disk I/O error")
	}
	m := update(t, New(opts), tea.WindowSizeMsg{Width: 100, Height: 30})
	m = runCmd(t, m, m.Init(), 0)
	last := m.log.entries[len(m.log.entries)-1].text
	if !strings.Contains(last, "The other annotators' labels could not be read: disk I/O error") {
		t.Errorf("log ends with %q", last)
	}
	if m.canAdjudicate() || m.adj.late != nil {
		t.Error("a failed read left the queue offered or ops kept")
	}
	m = press(t, m, "y")
	if len(m.adj.mine) != 1 {
		t.Errorf("the label after the failure is not known to the queue: %v", m.adj.mine)
	}
}
