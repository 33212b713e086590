package tui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// Hostile failure tags (in the session's set and on an item), a hostile
// can't-judge note, hostile guidelines (text and file name) and hostile
// text pasted into the dialogs' fields are drawn inert: every frame of the
// guidelines, the tag and can't-judge dialogs, the verdict pane and the
// filters holds no escape sequence but the screen's styles and no control
// character, and is exactly the terminal's size.
func TestHostileDecisions(t *testing.T) {
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	paste := tea.PasteMsg{Content: evil("pasted")}
	steps := []struct {
		name string
		msg  tea.Msg
		want string // on the frame, once sanitised (empty: nothing)
	}{
		{"guidelines at open", nil, "guidelines"},
		{"guidelines scrolled", keyPress("j"), ""},
		{"guidelines end", keyPress("G"), "a long prediction"},
		{"guidelines closed", keyPress("esc"), ""},
		{"tag dialog", keyPress("T"), "emoji 👩\u200d💻"},
		{"tag toggled", keyPress("1"), "1 [x] emoji 👩\u200d💻"},
		{"new tag", keyPress("n"), "new tag"},
		{"tag pasted", paste, ""},
		{"tag refused", enter, "longer than 40"},
		{"tag list", keyPress("esc"), ""},
		{"tag dialog closed", keyPress("esc"), "tags"},
		{"can't judge", keyPress("x"), "Can't judge"},
		{"other", keyPress("4"), "why"},
		{"note pasted", paste, ""},
		{"note saved", enter, ""},
		{"back to the item", keyPress("h"), "can't judge: other"},
		{"guidelines on i", keyPress("i"), "guidelines"},
		{"guidelines closed again", keyPress("i"), ""},
	}
	for i := range 12 {
		steps = append(steps, struct {
			name string
			msg  tea.Msg
			want string
		}{fmt.Sprintf("filter %d", i+1), keyPress("f"), ""})
	}
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			o := hostileOptions(false)
			id := o.Items[0].ID
			o.Guidelines = &tui.Guidelines{ID: 2, Path: evil("guidelines") + ".md", Older: 1, First: true,
				Text: "# " + evil("heading") + "\n\n- " + evil("rule") + "\n" + strings.Repeat(evil("guidelines line")+"\n", 40) + hugeField[:1<<16]}
			// A name no store holds (escape sequences, invisible format
			// characters) is left out; the others pass
			// sessions.CheckTagName but are hard to draw.
			o.Tags = []string{evil("tag one"), "soft" + softHyph + "hyphen " + zwjLetter, "emoji 👩\u200d💻 👨\u200d👩\u200d👧\u200d👦 👍🏽 e\u0301",
				strings.Repeat("日本", 20), "␛[31m not an escape \x1b"}
			o.History = append(o.History,
				sessions.Action{ID: 2, Group: 2, Kind: sessions.KindTag, ItemID: id, Tag: evil("tag on item"), Value: 1, Annotator: "ann", At: at},
				// A label under older guidelines: the re-review filter is offered.
				sessions.Action{ID: 3, Group: 3, Kind: sessions.KindLabel, ItemID: o.Items[2].ID, Dimension: o.Runs[0].Info.Dimensions[0].Name, Value: 1, Guidelines: 1, Annotator: "ann", At: at},
			)
			var tm tea.Model = tui.New(o)
			tm, _ = tm.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			for i, step := range steps {
				if step.msg != nil {
					var cmd tea.Cmd
					tm, cmd = tm.Update(step.msg)
					tm = runAnswer(tm, cmd)
				}
				v := tm.View()
				if p := textProblem(v.WindowTitle); p != "" {
					t.Errorf("%d %s: window title: %s: %q", i, step.name, p, v.WindowTitle)
				}
				for _, p := range screenProblems(v.Content, size.w, size.h) {
					t.Errorf("%d %s: %s", i, step.name, p)
				}
				if plain := ansi.Strip(v.Content); step.want != "" && !strings.Contains(plain, step.want) {
					t.Errorf("%d %s: the frame lacks %q:\n%s", i, step.name, step.want, visible(plain))
				}
			}
		})
	}
}

// runAnswer feeds back the message a dialog answered with (a toggle, a
// decision), and what that answer's command gives, as the runtime would;
// commands that wait are dropped.
func runAnswer(tm tea.Model, cmd tea.Cmd) tea.Model {
	for depth := 0; cmd != nil && depth < 8; depth++ {
		ch := make(chan tea.Msg, 1)
		go func() { ch <- cmd() }()
		var msg tea.Msg
		select {
		case msg = <-ch:
		case <-time.After(300 * time.Millisecond):
			return tm
		}
		switch m := msg.(type) {
		case nil:
			return tm
		case tea.BatchMsg:
			for _, c := range m {
				tm = runAnswer(tm, c)
			}
			return tm
		}
		tm, cmd = tm.Update(msg)
	}
	return tm
}
