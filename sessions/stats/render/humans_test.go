package render

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The pairs of annotators are named whole up to 40 cells: cut at 20,
// "annotator1 – annotator2" and "annotator1 – annotator3" read the same
// (PandaLM's three annotators did).
func TestAnnotatorPairsReadApart(t *testing.T) {
	h := stats.HumanAgreement{Dimension: "preference", Scale: judge.Binary,
		Annotators: []string{"annotator1", "annotator2", "annotator3"},
		Pairs: []stats.AnnotatorPair{
			{A: "annotator1", B: "annotator2", N: 999},
			{A: "annotator1", B: "annotator3", N: 999},
			{A: "a", B: strings.Repeat("b", 60), N: 5},
		}}
	var text []string
	for _, l := range humanLines([]stats.HumanAgreement{h}, false) {
		text = append(text, l.Plain())
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"annotator1 – annotator2", "annotator1 – annotator3"} {
		if !strings.Contains(all, want) {
			t.Errorf("%q is not named whole:\n%s", want, all)
		}
	}
	if strings.Contains(all, strings.Repeat("b", 60)) {
		t.Errorf("a pair longer than 40 cells is not cut:\n%s", all)
	}
}
