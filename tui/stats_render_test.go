package tui

import (
	"testing"

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
