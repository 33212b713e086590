package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/sessions"
)

// guideText is guidelines of n numbered lines under a heading.
func guideText(n int) string {
	var b strings.Builder
	b.WriteString("# How to label\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- rule %d: a YES needs the gold answer in the prediction\n", i)
	}
	return b.String()
}

// Guidelines a session sees for the first time are shown once at open,
// over the whole screen, scrollable; esc closes; i shows them again (no
// longer said to be new) and closes them; a version seen before is not
// shown at open.
func TestGuidelinesShownAtFirstOpenAndOnKey(t *testing.T) {
	items := testItems(3)
	g := &Guidelines{ID: 3, Path: "guide.md", Text: guideText(60), First: true}
	m := decisionModel(t, &fakeStore{}, items, 80, 24, func(o *Options) { o.Guidelines = g })
	screenHas(t, m, 80, 24, "Guidelines · guide.md · esc closes, j/k scroll", "New guidelines for this session: please read them",
		"# How to label", "- rule 1: a YES")
	if s := plain(m); strings.Contains(s, "rule 60:") || strings.Contains(s, "Question number 1?") {
		t.Errorf("the guidelines at open show their end, or the item:\n%s", s)
	}
	// Scrolling: j a line, G the end.
	m = press(t, m, "j")
	if s := plain(m); strings.Contains(s, "New guidelines for this session") {
		t.Errorf("j did not scroll:\n%s", s)
	}
	m = press(t, m, "G")
	screenHas(t, m, 80, 24, "- rule 60: a YES")
	m = press(t, m, "esc")
	screenHas(t, m, 80, 24, "Question number 1?")
	m = press(t, m, "i")
	screenHas(t, m, 80, 24, "Guidelines · guide.md", "- rule 1: a YES")
	if s := plain(m); strings.Contains(s, "New guidelines") {
		t.Errorf("guidelines on i are said to be new:\n%s", s)
	}
	m = press(t, m, "i")
	if m.top() != nil {
		t.Errorf("i left %T open", m.top())
	}
	// A label records the version on screen.
	st := m.store.(*fakeStore)
	m = press(t, m, "y")
	if acts := st.allActions(); len(acts) != 1 || acts[0].Guidelines != 3 {
		t.Errorf("label recorded %+v, want guidelines version 3", acts)
	}

	seen := *g
	seen.First = false
	m = decisionModel(t, &fakeStore{}, items, 80, 24, func(o *Options) { o.Guidelines = &seen })
	if m.top() != nil {
		t.Errorf("guidelines seen before opened at start: %T", m.top())
	}
}

// Without guidelines, i says how to give some and opens nothing.
func TestNoGuidelines(t *testing.T) {
	m := decisionModel(t, &fakeStore{}, testItems(2), 80, 24, nil)
	m = press(t, m, "i")
	if m.top() != nil {
		t.Fatalf("i opened %T with no guidelines", m.top())
	}
	if h := hintLineOf(m); !strings.Contains(h, "no guidelines") {
		t.Errorf("hint line: %q", h)
	}
	for _, f := range m.filters() {
		if f.id == "older-guidelines" {
			t.Error(`"re-review: older guidelines" offered without guidelines`)
		}
	}
}

// "re-review: older guidelines" lists the items with a current label made
// under another version than the one on screen (not those made with none);
// relabelled there, the label takes the version on screen and the filter
// as its provenance, and the item leaves the filter.
func TestOlderGuidelinesFilter(t *testing.T) {
	items := testItems(4)
	label := func(id, item string, g int64) sessions.Action {
		var n int64
		fmt.Sscan(id, &n)
		return sessions.Action{ID: n, Group: n, Kind: sessions.KindLabel, ItemID: item, Dimension: "correct", Value: 1, Guidelines: g}
	}
	history := []sessions.Action{
		label("1", "q1", 1), // older
		label("2", "q2", 2), // current
		label("3", "q3", 0), // made with no guidelines
		label("4", "q4", 1), // older, then relabelled under the current one
		label("5", "q4", 2),
	}
	st := &fakeStore{}
	m := decisionModel(t, st, items, 80, 24, func(o *Options) {
		o.Guidelines = &Guidelines{ID: 2, Text: "# Rules", Older: 1}
		o.History = history
	})
	m = selectFilter(t, m, "older-guidelines")
	if len(m.sel.items) != 1 || m.sel.items[0] != 0 {
		t.Fatalf("older-guidelines filter holds %v, want q1 only", m.sel.items)
	}
	screenHas(t, m, 80, 24, "1/1 re-review", "item 1/4 · q1")
	m = press(t, m, "n")
	acts := st.allActions()
	if len(acts) != 1 || acts[0].Via != "filter:older-guidelines" || acts[0].Guidelines != 2 || acts[0].Value != 0 {
		t.Fatalf("relabel recorded %+v", acts)
	}
	if m.olderGuidelines(0) {
		t.Error("q1, relabelled under the current guidelines, is still older")
	}
	// Not offered when no label is older.
	m = decisionModel(t, &fakeStore{}, items, 80, 24, func(o *Options) {
		o.Guidelines = &Guidelines{ID: 2, Text: "# Rules"}
	})
	for _, f := range m.filters() {
		if f.id == "older-guidelines" {
			t.Error(`"re-review: older guidelines" offered with no older label`)
		}
	}
}

// A long guidelines file scrolls without measuring it again: the lines and
// the widest one's width are kept with the wrapping, and a frame draws only
// the lines in view. At 1 MB a scroll key's frame took ~35 ms (every
// line's width measured), now well under a tenth of the first frame,
// which wraps the text. Relative, so that a slow machine does not fail it.
func TestLongGuidelinesScrollCheaply(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Rules\n")
	for b.Len() < guidelinesBytes-200 {
		b.WriteString("- a rule of the guidelines that is long enough to wrap at eighty columns on the screen, and then some\n")
	}
	g := &Guidelines{ID: 1, Path: "g.md", Text: b.String(), First: true}
	m := decisionModel(t, &fakeStore{}, testItems(2), 80, 24, func(o *Options) { o.Guidelines = g })
	start := time.Now()
	first := plain(m)
	firstTook := time.Since(start)
	if !strings.Contains(first, "New guidelines for this session") || !strings.Contains(first, "# Rules") {
		t.Fatalf("the guidelines at open:\n%s", first)
	}
	const keys = 20
	start = time.Now()
	for range keys {
		m = press(t, m, "j")
		_ = m.View()
	}
	if each := time.Since(start) / keys; each > firstTook/10 {
		t.Errorf("a scroll key's frame took %v, the first frame %v: the text is measured again on each", each, firstTook)
	}
	m = press(t, m, "G")
	screenHas(t, m, 80, 24, "and then some")
	if s := plain(m); strings.Contains(s, "# Rules") {
		t.Errorf("G did not scroll to the end:\n%s", s)
	}
}
