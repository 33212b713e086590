package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions"
)

func withTags(tags ...string) func(*Options) {
	return func(o *Options) { o.Tags = tags }
}

// tagActions are the tag actions the store holds, as "item tag=value".
func tagActions(st *fakeStore) []string {
	var out []string
	for _, a := range st.allActions() {
		if a.Kind == sessions.KindTag {
			v := "off"
			if a.Value == 1 {
				v = "on"
			}
			out = append(out, a.ItemID+" "+a.Tag+"="+v)
		}
	}
	return out
}

// T opens the tag dialog: a digit toggles that tag on the item, one tag
// action each, and the item stays on screen; the verdict pane lists the
// item's tags; u takes back the last toggle.
func TestTagToggleOnOffUndo(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := decisionModel(t, st, items, 80, 24, withTags("too strict", "format", "too strict"))
	m = press(t, m, "T")
	screenHas(t, m, 80, 24, "Tags · q1", "Tags on this item (yours):", "1 [ ] too strict", "2 [ ] format")
	if strings.Count(plain(m), "too strict") != 1 {
		t.Errorf("a tag given twice is listed twice:\n%s", plain(m))
	}
	if h := hintLineOf(m); !strings.Contains(h, "1–9 toggle that tag") || !strings.Contains(h, "n new tag") {
		t.Errorf("hint line of the tag dialog: %q", h)
	}
	m = press(t, m, "1")
	screenHas(t, m, 80, 24, "1 [x] too strict", "2 [ ] format")
	m = press(t, m, "1", "2")
	if got := strings.Join(tagActions(st), ", "); got != "q1 too strict=on, q1 too strict=off, q1 format=on" {
		t.Fatalf("tag actions: %q", got)
	}
	for _, a := range st.allActions() {
		if a.Via != "order" || a.Criterion != 0 || a.Dimension != "" {
			t.Errorf("tag action %+v", a)
		}
	}
	if m.cur != 0 || m.nReviewed != 0 {
		t.Errorf("toggles moved on (item %d) or reviewed %d", m.cur, m.nReviewed)
	}
	// q is not quit in a dialog; esc closes it.
	m = press(t, m, "q")
	if m.top() == nil {
		t.Fatal("q closed the tag dialog")
	}
	m = press(t, m, "esc")
	if m.top() != nil {
		t.Fatalf("esc left %T open", m.top())
	}
	screenHas(t, m, 80, 24, "tags    format")
	m = press(t, m, "u")
	if got := strings.Join(tagActions(st), ", "); got != "q1 too strict=on, q1 too strict=off" {
		t.Errorf("after u: %q", got)
	}
	if s := plain(m); strings.Contains(s, "tags    format") || m.cur != 0 {
		t.Errorf("after u the tag still shows, or item %d:\n%s", m.cur, s)
	}
	if m.labels.HasTag("q1", "format") || m.labels.HasTag("q1", "too strict") {
		t.Errorf("label state after u: %v", m.labels.Tags("q1"))
	}
	// The arrows and space toggle too.
	m = press(t, m, "T", "down", "space", "esc")
	if !m.labels.HasTag("q1", "format") {
		t.Errorf("↓ space did not put format on: %v", m.labels.Tags("q1"))
	}
}

// n adds a tag: checked as the session checks it (a comma, an empty or a
// too long name refused, said in the dialog), then put on the item and
// offered as the next number; the session's set keeps it.
func TestTagDialogAddsATag(t *testing.T) {
	items := testItems(2)
	st := &fakeStore{}
	m := decisionModel(t, st, items, 80, 24, nil)
	m = press(t, m, "T")
	screenHas(t, m, 80, 24, "This session has no tags yet: n adds one")
	m = press(t, m, "n")
	m = typeText(t, m, "a,b")
	m = press(t, m, "enter")
	screenHas(t, m, 80, 24, "new tag a,b", "comma")
	m = press(t, m, "backspace", "backspace", "backspace", "enter")
	screenHas(t, m, 80, 24, "cannot be empty")
	m = typeText(t, m, strings.Repeat("x", 41))
	m = press(t, m, "enter")
	screenHas(t, m, 80, 24, "longer than 40")
	if len(st.allActions()) != 0 {
		t.Fatalf("refused names recorded %+v", st.allActions())
	}
	m = press(t, m, "esc")
	if d, ok := m.top().(*tagDialog); !ok || d.typing {
		t.Fatalf("esc in the field: top %T, want the tag list", m.top())
	}
	m = press(t, m, "n")
	m = typeText(t, m, "  quit quickly  ")
	m = press(t, m, "enter")
	screenHas(t, m, 80, 24, "1 [x] quit quickly")
	if got := strings.Join(tagActions(st), ", "); got != "q1 quit quickly=on" {
		t.Fatalf("tag actions: %q", got)
	}
	if len(m.tags) != 1 || m.tags[0] != "quit quickly" {
		t.Errorf("session tags %q", m.tags)
	}
	// Adding a tag the item has changes nothing.
	m = press(t, m, "n")
	m = typeText(t, m, "quit quickly")
	m = press(t, m, "enter", "esc")
	if len(tagActions(st)) != 1 || len(m.tags) != 1 {
		t.Errorf("adding an existing tag: actions %q, set %q", tagActions(st), m.tags)
	}
	// The next item offers it by number.
	m = press(t, m, "l", "T")
	screenHas(t, m, 80, 24, "Tags · q2", "1 [ ] quit quickly")
}

// "tag: NAME" filters list the items with that tag; a decision made there
// records the filter; with no tagged item, T does nothing.
func TestTagFilter(t *testing.T) {
	items := testItems(4)
	st := &fakeStore{}
	m := decisionModel(t, st, items, 80, 24, withTags("format", "too strict"))
	m = selectFilter(t, m, "tag:too strict")
	screenHas(t, m, 80, 24, "No item: no item matches the filter tag: too strict")
	m = press(t, m, "T")
	if m.top() != nil {
		t.Fatalf("T with no item on screen opened %T", m.top())
	}
	m = selectFilter(t, m, "all")
	m = press(t, m, "<", "l", "T", "2", "esc", "l", "l", "T", "2", "1", "esc")
	m = selectFilter(t, m, "tag:too strict")
	m = press(t, m, "<")
	var ids []string
	for _, i := range m.sel.items {
		ids = append(ids, items[i].ID)
	}
	if got := strings.Join(ids, " "); got != "q2 q4" {
		t.Fatalf("tag filter holds %q, want q2 q4", got)
	}
	m = press(t, m, "T", "1", "esc")
	acts := st.allActions()
	if last := acts[len(acts)-1]; last.Via != "filter:tag:too strict" || last.Tag != "format" || last.ItemID != "q2" {
		t.Errorf("toggle in the filter recorded %+v", last)
	}
	screenHas(t, m, 80, 24, "tags    format · too strict")
}

// A dialog floating over text keeps every line the terminal's width when a
// wide character (an emoji, a ZWJ sequence, CJK) lies across either edge
// of the box: the cut character is dropped whole and a space takes its
// place.
func TestFloatOverWideCharacters(t *testing.T) {
	tail := "👩\u200d💻 👨\u200d👩\u200d👧\u200d👦 👍🏽 🇫🇷 ❤\ufe0f 日本 e\u0301"
	for pre := 0; pre < 80; pre++ {
		bg := padTo(ansi.Truncate(strings.Repeat("a", pre)+tail+strings.Repeat("z", 80), 80, ""), 80)
		out := placeOver(bg, strings.Repeat("b", 64), 80, 1)
		if w := ansi.StringWidth(out); w != 80 {
			t.Errorf("emoji at column %d: the line is %d cells: %q", pre, w, out)
		}
	}
}
