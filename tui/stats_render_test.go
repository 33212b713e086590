package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// Every role the renderers tag a piece of the statistics with has a
// style on the screen: a role added to render (a per-class table, the
// swap audit) must not fall through to plain text unnoticed. Role's
// String names every known role and says "plain" past the last.
func TestEveryStatsRoleIsStyled(t *testing.T) {
	st := NewStyles(true)
	n := 0
	for r := render.RolePlain + 1; r.String() != "plain"; r++ {
		n++
		if got := statsStyle(st, render.Span{Text: "x", Role: r, Share: 0.5}).Render("x"); got == "x" {
			t.Errorf("role %s has no style on the screen", r)
		}
	}
	if n < 8 {
		t.Errorf("only %d roles found", n)
	}
}

// A pairwise judge judged in both orders: the statistics screen shows the
// renderers' per-category table and swap audit, at 80×24, every frame
// fitting, values by name.
func TestStatsScreenSwapAudit(t *testing.T) {
	in := stats.Input{Judges: []stats.JudgeSpec{{Key: "pairwise", Dimensions: pairInfo.Dimensions}}}
	prefs := []float64{judge.PreferA, judge.PreferB, judge.PreferTie}
	for i := range 30 {
		v := prefs[i%3]
		sw := v
		if i%4 == 0 {
			sw = prefs[(i+1)%3] // a position bias on a quarter of the pairs
		}
		in.Units = append(in.Units, stats.Unit{ItemID: fmt.Sprintf("q%d", i+1),
			Verdicts: []stats.Verdict{
				{Judge: "pairwise", Status: judge.StatusOK, Values: map[string]float64{"preference": v}},
				{Judge: "pairwise", Status: judge.StatusOK, Swapped: true, Values: map[string]float64{"preference": sw}},
			},
			Labels: []stats.Label{{Annotator: "tester", Provenance: "order", Values: map[string]float64{"preference": prefs[(i/2)%3]}}}})
	}
	m := statsModel(t, in, []Run{{Info: pairInfo, Key: "pairwise"}}, 80, 24)
	all := strings.Join(scrollAll(t, m, 80, 24), "\n")
	for _, want := range []string{"Swap audit", "By category"} {
		if !strings.Contains(all, want) {
			t.Errorf("the statistics screen lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "0.5 ") {
		t.Errorf("a raw tie code on the statistics screen:\n%s", all)
	}
}
