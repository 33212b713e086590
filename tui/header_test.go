package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
)

// The header gives up the segments, the id's length, the dataset's name
// and the annotator before it cuts the judge's name, and always fits.
func TestHeaderKeepsTheJudgeName(t *testing.T) {
	items := testItems(3)
	items[0].ID = "a-rather-long-item-identifier-from-a-real-dataset-0001"
	items[0].Segments = map[string]string{"category": "date_understanding", "task": "bbh"}
	long := judge.Info{Name: "docqa", Model: "meta-llama/Llama-3.1-70B-Instruct", Dimensions: matchInfo.Dimensions}
	for _, w := range []int{50, 80, 120, 200} {
		m := New(Options{Store: &fakeStore{}, Annotator: "ana", Dataset: "bbh__code-davinci-002-cot__date_understanding_few_shot_template_0-255000.json",
			Items: items, Runs: []Run{{Info: long}, {Info: matchInfo}}})
		m = update(t, m, windowSize(w, 24))
		header := strings.Split(plain(m), "\n")[0]
		if got := ansi.StringWidth(header); got != w {
			t.Errorf("at %d columns the header is %d wide: %q", w, got, header)
		}
		want := "docqa · meta-llama/Llama-3.1-70B-Instruct (1/2)"
		if w < 80 {
			want = "docqa · meta-llama/L"
		}
		if !strings.Contains(header, want) {
			t.Errorf("at %d columns the header cuts the judge's name: %q", w, header)
		}
		if strings.Contains(header, "……") || strings.Contains(header, "gavel  ") {
			t.Errorf("at %d columns: %q", w, header)
		}
	}
}

func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }
