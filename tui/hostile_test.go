package tui_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// Hostile text: every sequence a dataset or a model could send to take
// over the terminal or to break the layout.
const (
	csiColour = "\x1b[31;1m"
	osc8      = "\x1b]8;;https://evil.example/\x1b\\"
	osc8End   = "\x1b]8;;\x07"
	osc52     = "\x1b]52;c;cm0gLXJmIH4K\x07" // sets the clipboard
	blink     = "\x1b[5m"
	conceal   = "\x1b[8m"
	c1CSI     = "\u009b2J"      // C1 CSI, as a character
	rawC1     = "\x9b31m"       // C1 CSI, as a byte (invalid UTF-8)
	bidi      = "\u202egpj.exe" // right-to-left override
	softHyph  = "\u00ad"
	zwjLetter = "a\u200db"
	emoji     = "👩\u200d💻 👨\u200d👩\u200d👧\u200d👦 👍🏽 🇫🇷 ❤\ufe0f 日本 e\u0301"
)

// evil wraps label in hostile text.
func evil(label string) string {
	return csiColour + label + osc8 + "link" + osc8End + osc52 + blink + "blink" + conceal + "hidden" +
		c1CSI + rawC1 + bidi + " soft" + softHyph + "hyphen " + zwjLetter + " " + emoji + "\ttab\rcr\x07\x1b[0m"
}

// hugeField is 10 MB of text, with escape sequences all through it.
var hugeField = strings.Repeat("a long prediction "+csiColour+"red"+"\x1b[0m 👩\u200d💻 soft"+softHyph+"hyphen\n", 10<<20/48)

type nopStore struct{}

func (nopStore) Record(acts []sessions.Action) ([]sessions.Action, error) { return acts, nil }
func (nopStore) Undo() ([]sessions.Action, error)                         { return nil, nil }

// hostileOptions opens a session whose every text comes from an attacker:
// item 0 has hostile text in every field, item 1 a 10 MB id, a 10 MB
// prediction and a 1 MB segment value. With names false the dataset, judge and annotator
// have plain names, so that the header has room for the item's segments.
func hostileOptions(names bool) tui.Options {
	dim := evil("correct")
	items := []judge.Item{
		{
			Index: 0, ID: evil("id"), Question: evil("question"), Gold: evil("gold"), Prediction: evil("prediction"),
			Rubric:   []string{evil("criterion one"), evil("criterion two")},
			Segments: map[string]string{"category": evil("category"), evil("field"): evil("value")},
		},
		{Index: 1, ID: "huge " + hugeField, Question: "Which is it?", Gold: "B", Prediction: hugeField,
			Segments: map[string]string{"category": hugeField[:1<<20]}},
		{Index: 2, ID: "i3" + softHyph + zwjLetter, Question: "日本語の質問 " + emoji, Gold: "A", Prediction: "A",
			Segments: map[string]string{"category": "soft" + softHyph + "hyphen " + zwjLetter + " " + c1CSI + csiColour + "red" + bidi + emoji}},
	}
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	verdict := func(id string) judge.Verdict {
		return judge.Verdict{
			ItemID: id, Values: map[string]float64{dim: 1}, Status: judge.StatusOK, At: at,
			Reason: evil("reason"), Raw: evil("raw output"), Model: evil("model"),
			Extra: map[string]any{evil("extra key"): evil("extra value"), "error_type": evil("kind")},
		}
	}
	failed := judge.Verdict{ItemID: items[2].ID, Status: judge.StatusParseError, At: at,
		Error: evil("error"), Raw: evil("unparsable")}
	info := judge.Info{Name: evil("judge"), Model: evil("model"), Description: evil("description"),
		Dimensions: []judge.Dimension{{Name: dim, Scale: judge.Binary, Description: evil("dimension")}}}
	dimA, dimB := evil("dimension a"), evil("dimension b")
	rubricInfo := judge.Info{Name: evil("rubric judge"), PerCriterion: true,
		Dimensions: []judge.Dimension{{Name: dimA, Scale: judge.Binary}, {Name: dimB, Scale: judge.Likert}}}
	criterion := func(k int) judge.Verdict {
		return judge.Verdict{ItemID: items[0].ID, Criterion: k, Values: map[string]float64{dimA: 1, dimB: 4},
			Status: judge.StatusOK, At: at, Reason: evil("criterion reason")}
	}
	o := tui.Options{
		Store:     nopStore{},
		Annotator: evil("annotator"),
		Dataset:   evil("dataset") + ".jsonl",
		About:     evil("about"),
		Notices:   []string{evil("notice")},
		Items:     items,
		Runs: []tui.Run{
			{Info: info, Key: evil("run key"), Verdicts: []judge.Verdict{verdict(items[0].ID), verdict(items[1].ID), failed}},
			{Info: rubricInfo, Key: evil("rubric run key"), Verdicts: []judge.Verdict{criterion(1), criterion(2)}},
		},
		History: []sessions.Action{
			{ID: 1, Group: 1, Kind: sessions.KindNote, ItemID: items[0].ID, Note: evil("note"), Annotator: evil("annotator"), At: at},
		},
		Others: []sessions.Label{{Annotator: evil("other annotator"), ItemID: items[0].ID, Dimension: dim, Value: 0,
			Via: evil("via"), At: at}},
	}
	if !names {
		o.Annotator, o.Dataset, o.Notices = "ann", "evals.jsonl", nil
		o.Runs[0].Info.Name, o.Runs[0].Info.Model = "match", ""
	}
	return o
}

// appSGR matches the only escape sequences the screen may write itself:
// SGR styles. Any other sequence, OSC or C1 control in a frame came from
// the data.
var appSGR = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// clock matches the times of the message log, masked in golden files.
var clock = regexp.MustCompile(`\b[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\b`)

// knownCells are the widths, in a terminal drawing grapheme clusters
// (mode 2027), of the clusters the hostile screens hold beyond printable
// ASCII, written by hand so that the app's own measure is not the only
// judge of a line's width.
var knownCells = map[string]int{
	"👩\u200d💻": 2, "👨\u200d👩\u200d👧\u200d👦": 2, "👍🏽": 2, "🇫🇷": 2, "❤\ufe0f": 2,
	"日": 2, "本": 2, "語": 2, "の": 2, "質": 2, "問": 2,
	"e\u0301": 1, "\u00a0\u0301": 1, "␛": 1, "␇": 1, "⏎": 1, "…": 1, "·": 1, "—": 1, "–": 1, "→": 1, "←": 1,
	"─": 1, "│": 1, "╭": 1, "╮": 1, "╰": 1, "╯": 1, "┌": 1, "┐": 1, "└": 1, "┘": 1, "━": 1, "┃": 1,
	"█": 1, "░": 1, "▌": 1, "▸": 1, "▾": 1, "▶": 1, "●": 1, "○": 1, "✓": 1, "✗": 1, "≠": 1, "±": 1, "×": 1,
	"↑": 1, "↓": 1, "⚠": 1, "\ufffd": 1,
}

// screenProblems checks one frame line by line and returns what is wrong.
func screenProblems(content string, width, height int) []string {
	var out []string
	lines := strings.Split(content, "\n")
	if len(lines) != height {
		out = append(out, fmt.Sprintf("%d lines, want %d", len(lines), height))
	}
	for i, line := range lines {
		plain := appSGR.ReplaceAllString(line, "")
		if p := textProblem(plain); p != "" {
			out = append(out, fmt.Sprintf("line %d: %s: %q", i, p, plain))
			continue
		}
		if w := cellWidth(plain); w != width {
			out = append(out, fmt.Sprintf("line %d is %d cells wide, want %d: %q", i, w, width, plain))
		}
		if w := ansi.StringWidth(plain); w != cellWidth(plain) {
			out = append(out, fmt.Sprintf("line %d: the app measures %d cells, the table of known widths %d: %q",
				i, w, cellWidth(plain), plain))
		}
	}
	return out
}

// visible shows what a frame should not hold (controls, bidi controls,
// invalid bytes) as Go escapes, so that a golden file of a faulty frame is
// safe to print.
func visible(frame string) string {
	var b strings.Builder
	for i := 0; i < len(frame); {
		r, n := utf8.DecodeRuneInString(frame[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, frame[i])
		case r == '\n':
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || textProblem(string(r)) != "":
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(frame[i : i+n])
		}
		i += n
	}
	return b.String()
}

// textProblem says what in text, stripped of the screen's own styles,
// could still act on the terminal, or "".
func textProblem(text string) string {
	if !utf8.ValidString(text) {
		return "invalid UTF-8 (a raw C1 byte?)"
	}
	for _, r := range text {
		switch {
		case r == 0x1b:
			return "an escape sequence"
		case r < 0x20 || r == 0x7f:
			return fmt.Sprintf("control character %U", r)
		case r >= 0x80 && r < 0xa0:
			return fmt.Sprintf("C1 control %U", r)
		case r == 0x202a || r == 0x202b || r == 0x202c || r == 0x202d || r == 0x202e ||
			r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
			return fmt.Sprintf("bidi control %U", r)
		case r == 0x00ad || r == 0x200b || r == 0x2060 || r == 0xfeff:
			return fmt.Sprintf("invisible format character %U", r)
		}
	}
	return ""
}

// cellWidth is the width of a line as the table of known widths has it,
// ansi.StringWidth for clusters the table does not hold.
func cellWidth(line string) int {
	w := 0
	for rest := line; rest != ""; {
		cl, cw := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		rest = rest[len(cl):]
		switch known, ok := knownCells[cl]; {
		case len(cl) == 1 && cl[0] >= 0x20 && cl[0] < 0x7f:
			w++
		case ok:
			w += known
		default:
			w += cw
		}
	}
	return w
}

func keyPress(k string) tea.KeyPressMsg {
	if k == "esc" {
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	r, _ := utf8.DecodeRuneInString(k)
	return tea.KeyPressMsg{Code: r, Text: k}
}

// TestHostileScreens draws sessions full of hostile text at two sizes, on
// each screen, and checks every line of every frame: no escape sequence
// but the screen's own styles, no control character, exactly the
// terminal's width, exactly its height. The frames, stripped of their
// styles, are golden files (go test -update rewrites them).
func TestHostileScreens(t *testing.T) {
	steps := []struct{ name, key string }{
		{"open", ""},
		{"note", "c"},
		{"note closed", "esc"},
		{"rubric judge", "J"},
		{"next criterion", "]"},
		{"next item", "l"},
		{"first judge", "J"},
		{"next item again", "l"},
		{"help", "?"},
		{"help closed", "esc"},
		{"list", "L"},
		{"list closed", "esc"},
		{"stats", "s"},
		{"stats closed", "esc"},
		{"messages", "m"},
		{"messages closed", "esc"},
	}
	for _, sc := range []struct {
		name  string
		names bool
	}{{"all hostile", true}, {"hostile items", false}} {
		for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
			t.Run(fmt.Sprintf("%s/%dx%d", sc.name, size.w, size.h), func(t *testing.T) {
				var tm tea.Model = tui.New(hostileOptions(sc.names))
				tm, _ = tm.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
				for i, step := range steps {
					t.Run(fmt.Sprintf("%d %s", i, step.name), func(t *testing.T) {
						if step.key != "" {
							tm, _ = tm.Update(keyPress(step.key))
						}
						v := tm.View()
						if p := textProblem(v.WindowTitle); p != "" {
							t.Errorf("window title: %s: %q", p, v.WindowTitle)
						}
						for _, p := range screenProblems(v.Content, size.w, size.h) {
							t.Error(p)
						}
						frame := appSGR.ReplaceAllString(v.Content, "")
						golden.RequireEqual(t, []byte(visible(clock.ReplaceAllString(frame, "hh:mm:ss"))))
					})
				}
			})
		}
	}
}

// BenchmarkHugeFieldKeyPress presses keys on the item with a 10 MB id and
// a 10 MB prediction and draws the frame, as the program does after every
// key: scrolling its panes, arriving on it from the item before, labelling
// it and undoing the label. A screen that sanitises, wraps or measures a
// whole field for a key press takes seconds here.
func BenchmarkHugeFieldKeyPress(b *testing.B) {
	for _, bc := range []struct {
		name string
		keys []string
	}{{"scroll", []string{"j", "k"}}, {"arrive", []string{"h", "l"}}, {"label and undo", []string{"y", "u"}}} {
		b.Run(bc.name, func(b *testing.B) {
			var tm tea.Model = tui.New(hostileOptions(false))
			tm, _ = tm.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			tm, _ = tm.Update(keyPress("l")) // the huge item
			_ = tm.View()
			for i := 0; b.Loop(); i++ {
				tm, _ = tm.Update(keyPress(bc.keys[i%2]))
				_ = tm.View()
			}
		})
	}
}
