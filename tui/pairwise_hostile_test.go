package tui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/tui"
)

// hostileCategories are category names a judge file could declare: the
// scale refuses colons, tabs and line breaks, not escape sequences.
func hostileCategories(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.NewReplacer(":", "", "\t", "", "\n", "", "\r", "", ",", "").Replace(evil(fmt.Sprintf("CAT%d", i+1)))
	}
	return out
}

// TestHostilePairwise draws pairs whose question, responses and
// reference, judge reasons and category names are hostile, through the
// pairwise keys, the swap display and the picker, and checks every line
// of every frame as TestHostileScreens does.
func TestHostilePairwise(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	items := []judge.Item{
		{Index: 0, ID: evil("pair"), Question: evil("question"), ResponseA: evil("response a") + "\n" + hugeField[:1<<16],
			ResponseB: "<think>" + evil("trace") + "</think>" + evil("response b"), Gold: evil("reference")},
		{Index: 1, ID: "p2", Question: "Which?", ResponseA: hugeField, ResponseB: evil("b")},
	}
	pref := judge.Info{Name: evil("pairwise"), Dimensions: []judge.Dimension{{Name: evil("preference"), Scale: judge.Pairwise}}}
	verdict := func(id string, v float64, swapped bool) judge.Verdict {
		return judge.Verdict{ItemID: id, Swapped: swapped, Status: judge.StatusOK, At: at,
			Values: map[string]float64{pref.Dimensions[0].Name: v}, Reason: evil("reason"), Raw: evil("raw")}
	}
	cats := hostileCategories(3)
	long := hostileCategories(12)
	nominal := judge.Info{Name: "grader", Dimensions: []judge.Dimension{{Name: "grade", Scale: judge.Scale("nominal:" + strings.Join(cats, ","))}}}
	picker := judge.Info{Name: "kinds", Dimensions: []judge.Dimension{{Name: evil("kind"), Scale: judge.Scale("nominal:" + strings.Join(long, ","))}}}
	for _, sc := range []judge.Info{nominal, picker} {
		if !sc.Dimensions[0].Scale.Known() {
			t.Fatalf("hostile scale refused: %v", sc.Dimensions[0].Scale.Err())
		}
	}
	steps := []string{"", "tab", "tab", "G", "t", "1", "h", "0", "L", "esc", "J", "2", "h", "J", "enter", "c", "a", "j", "esc"}
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			var tm tea.Model = tui.New(tui.Options{
				Store: nopStore{}, Annotator: "ann", Dataset: "pairs.jsonl", Items: items, Swap: true,
				Runs: []tui.Run{
					{Info: pref, Verdicts: []judge.Verdict{verdict(items[0].ID, judge.PreferA, false), verdict("p2", judge.PreferTie, false)},
						Swapped: []judge.Verdict{verdict(items[0].ID, judge.PreferB, true)}},
					{Info: nominal}, {Info: picker},
				},
			})
			tm, _ = tm.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			for i, k := range steps {
				if k != "" {
					tm, _ = tm.Update(hostileKey(k))
				}
				v := tm.View()
				for _, p := range screenProblems(v.Content, size.w, size.h) {
					t.Errorf("step %d (%q): %s", i, k, p)
				}
			}
		})
	}
}

func hostileKey(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	return keyPress(k)
}
