package tui

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// fakeStore records actions in memory the way the session store does:
// groups in order, undo pops the latest group.
type fakeStore struct {
	mu     sync.Mutex
	groups [][]sessions.Action
	undone int
	fail   error
}

func (f *fakeStore) Record(acts []sessions.Action) ([]sessions.Action, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	f.groups = append(f.groups, acts)
	return acts, nil
}

func (f *fakeStore) Undo() ([]sessions.Action, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	if len(f.groups) == 0 {
		return nil, nil
	}
	g := f.groups[len(f.groups)-1]
	f.groups = f.groups[:len(f.groups)-1]
	f.undone++
	return g, nil
}

// labels returns the fake store's current labels, derived by
// sessions.LabelState as the store derives them, as "item=value" strings
// in the order they were first set ("item/k=value" for rubric criterion
// k, with ".dimension" after the item for dimensions other than
// "correct"). A group the store would refuse shows as "refused: …".
func (f *fakeStore) labels() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var st sessions.LabelState
	var out []string
	for _, g := range f.groups {
		if err := st.Apply(g); err != nil {
			out = append(out, fmt.Sprintf("refused: %v", err))
		}
	}
	for k, v := range st.All() {
		name := k.ItemID
		if k.Dimension != "correct" {
			name += "." + k.Dimension
		}
		if k.Criterion != 0 {
			name += fmt.Sprintf("/%d", k.Criterion)
		}
		out = append(out, fmt.Sprintf("%s=%v", name, v))
	}
	return out
}

var errDiskFull = errors.New("disk I/O error: no space left on device")

// testItems returns n simple items, "q1".."qn", with gold "gold i" and
// prediction "pred i".
func testItems(n int) []judge.Item {
	items := make([]judge.Item, n)
	for i := range items {
		items[i] = judge.Item{
			Index:      i,
			ID:         fmt.Sprintf("q%d", i+1),
			Question:   fmt.Sprintf("Question number %d?", i+1),
			Gold:       fmt.Sprintf("gold %d", i+1),
			Prediction: fmt.Sprintf("pred %d", i+1),
			Segments:   map[string]string{"category": "demo"},
		}
	}
	return items
}

var matchInfo = judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}

// verdictsFor gives every item a verdict: YES for odd item numbers.
func verdictsFor(items []judge.Item) []judge.Verdict {
	vs := make([]judge.Verdict, len(items))
	for i, it := range items {
		v := 0.0
		if i%2 == 0 {
			v = 1
		}
		vs[i] = judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": v},
			Reason: "rule \"normalized-exact\": test", Extra: map[string]any{"extracted_answer": it.Prediction}, At: time.Unix(0, 0)}
	}
	return vs
}

func newTestModel(t *testing.T, store Recorder, items []judge.Item, runs []Run, history []sessions.Action, w, h int) *Model {
	t.Helper()
	m := New(Options{Store: store, Annotator: "tester", Dataset: "test.jsonl", Items: items, Runs: runs, History: history})
	return update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

// update sends one message and runs the commands it returns to
// completion, feeding their messages back, as the Bubble Tea runtime
// would. Commands that wait on a channel are not run.
func update(t *testing.T, m *Model, msg tea.Msg) *Model {
	t.Helper()
	next, cmd := m.Update(msg)
	m = next.(*Model)
	return runCmd(t, m, cmd, 0)
}

func runCmd(t *testing.T, m *Model, cmd tea.Cmd, depth int) *Model {
	t.Helper()
	if cmd == nil || depth > 20 {
		return m
	}
	// Timers (cursor blinks, save retries) would make tests wait: a
	// command that has not answered in a moment is dropped.
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(300 * time.Millisecond):
		return m
	}
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
		return m
	case tea.BatchMsg:
		for _, c := range msg {
			m = runCmd(t, m, c, depth+1)
		}
		return m
	}
	next, c := m.Update(msg)
	return runCmd(t, next.(*Model), c, depth+1)
}

// press sends key presses: single characters, or names like "right",
// "space", "enter", "esc", "tab", "ctrl+c".
func press(t *testing.T, m *Model, keys ...string) *Model {
	t.Helper()
	for _, k := range keys {
		m = update(t, m, keyMsg(k))
	}
	return m
}

func keyMsg(k string) tea.KeyPressMsg {
	named := map[string]rune{
		"right": tea.KeyRight, "left": tea.KeyLeft, "up": tea.KeyUp, "down": tea.KeyDown,
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "space": tea.KeySpace,
		"home": tea.KeyHome, "end": tea.KeyEnd, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp,
		"backspace": tea.KeyBackspace,
	}
	if strings.HasPrefix(k, "ctrl+") {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	if k == "shift+tab" {
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	}
	if r, ok := named[k]; ok {
		msg := tea.KeyPressMsg{Code: r}
		if k == "space" {
			msg.Text = " "
		}
		return msg
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// plain renders the model as plain text.
func plain(m *Model) string {
	return ansi.Strip(m.View().Content)
}

// checkFits fails when the screen is not exactly w×h cells.
func checkFits(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got > w {
			t.Errorf("line %d is %d cells wide, terminal is %d: %q", i, got, w, l)
		}
	}
}
