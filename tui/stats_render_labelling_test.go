package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// The statistics screen shows the labelling section as `gavel stats`
// prints it, its warnings styled as warnings, and a hostile tag or
// annotator name inert.
func TestStatsScreenLabelling(t *testing.T) {
	in := statsFixture()
	tag, who := "to\x1b[31mo strict\x07", "an\x1b]0;pwned\x07a"
	li := &stats.LabellingInput{
		CantJudge: []stats.CantJudgeMark{{ItemID: "q3", Annotator: who, Reason: stats.ReasonUnreadable}},
		TagSet:    []string{tag},
		Tags:      []stats.TagMark{{ItemID: "q2", Annotator: who, Tag: tag}},
	}
	for i := range 12 {
		shown, shownJudge := stats.ShownBlind, ""
		if i >= 6 {
			shown, shownJudge = stats.ShownVerdict, "match"
		}
		li.Decisions = append(li.Decisions, stats.Decision{Group: int64(i + 1), Annotator: who, ItemID: in.Units[i].ItemID, Kind: stats.KindLabel,
			Dimension: "correct", Value: float64(i % 2), HasValue: true, Shown: shown, ShownJudge: shownJudge, Seconds: 4, Timed: true, Sitting: "s"})
	}
	li.Decisions = append(li.Decisions, stats.Decision{Group: 13, Annotator: who, ItemID: "q1", Kind: stats.KindLabel,
		Dimension: "correct", Value: 0, HasValue: true, Shown: stats.ShownBlind, Retest: true, Sitting: "s"})
	in.Labelling = li
	r := render.Select(stats.Compute(in, stats.Options{Seed: 1, Resamples: -1}), []string{"match"})
	st := NewStyles(true)
	styled := styledStatsLines(st, r, 76)
	lines := render.Lines(r, 76)
	var all strings.Builder
	for i, l := range styled {
		if got := ansi.Strip(l); got != lines[i].Plain() {
			t.Errorf("line %d: styled %q, text %q", i, got, lines[i].Plain())
		}
		if strings.Contains(l, "\x07") || strings.Contains(l, "\x1b]") || strings.Contains(l, "\x1b[31m") {
			t.Errorf("a name's escape sequence reaches the screen: %q", l)
		}
		all.WriteString(ansi.Strip(l) + "\n")
	}
	for _, want := range []string{"Labelling", "can't judge", "prediction unreadable 1", "anchoring · match", "⚠ not yet stable"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the screen lacks %q:\n%s", want, all.String())
		}
	}
	if strings.Contains(all.String(), "anchoring · docqa") {
		t.Error("the screen of match shows another judge's anchoring")
	}
	found := false
	for _, l := range lines {
		for _, sp := range l {
			found = found || strings.HasPrefix(sp.Text, "⚠ not yet stable") && sp.Role == render.RoleWarning
		}
	}
	if !found {
		t.Error("the re-test warning is not a warning")
	}
}
