package tui

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// The blind share hides exactly the seeded items, with blind mode off:
// their verdict shows "hidden" and the header says "blind" until the item
// is labelled; every other item shows its verdict. A label on a hidden
// item is recorded as blind, on another as made with the verdict shown.
func TestBlindShareHidesTheSeededItems(t *testing.T) {
	const n, share, seed = 40, 0.3, 11
	items := testItems(n)
	st := &fakeStore{}
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, ID: 1, Verdicts: verdictsFor(items)}},
		BlindShare: share, Seed: seed}, 120, 40)
	hiddenN := 0
	for i, it := range items {
		want := sessions.InShare(seed, "blind", it.ID, share)
		if m.cur != i {
			t.Fatalf("on item %d, want %d", m.cur+1, i+1)
		}
		s := plain(m)
		header := strings.Split(s, "\n")[0]
		row := screenLine(m, "   you ")
		if got := strings.Contains(row, "judge hidden"); got != want {
			t.Errorf("%s: verdict hidden %v, in the share %v: %q", it.ID, got, want, row)
		}
		if got := strings.Contains(header, "blind"); got != want {
			t.Errorf("%s: header says blind %v, in the share %v: %q", it.ID, got, want, header)
		}
		if want {
			hiddenN++
			if strings.Contains(s, "rule \"normalized-exact\"") {
				t.Errorf("%s: the judge's reason shows on a blind item", it.ID)
			}
			// Accept would copy the hidden verdict.
			before := len(st.groups)
			if m = press(t, m, "a"); len(st.groups) != before || m.cur != i {
				t.Fatalf("%s: a accepted a hidden verdict", it.ID)
			}
		}
		// Label it NO and look back: the verdict now shows.
		m = press(t, m, "n")
		g := st.lastGroup(t)
		wantShown := sessions.ShownVerdict
		if want {
			wantShown = sessions.ShownBlind
		}
		if g[0].ItemID != it.ID || g[0].Shown != wantShown {
			t.Errorf("%s: label recorded %+v, want Shown %d", it.ID, g[0], wantShown)
		}
		if i < n-1 {
			m = press(t, m, "left")
			if row := screenLine(m, "   you "); strings.Contains(row, "hidden") {
				t.Errorf("%s: the verdict is still hidden once labelled: %q", it.ID, row)
			}
			m = press(t, m, "right")
		}
	}
	// The seed gives 30 % of 40 give or take: a share, not none or all.
	if hiddenN < 4 || hiddenN > 20 {
		t.Errorf("%d of %d items hidden at a share of %v", hiddenN, n, share)
	}
}

// Blind mode off leaves the blind share hidden; its message does not offer
// b to see the verdict.
func TestBlindShareOutlastsBlindMode(t *testing.T) {
	items := testItems(3)
	m := openWith(t, Options{Store: &fakeStore{}, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		Blind: true, BlindShare: 1, Seed: 1}, 120, 40)
	m = press(t, m, "b")
	s := plain(m)
	if !strings.Contains(screenLine(m, "   you "), "judge hidden") || !strings.Contains(strings.Split(s, "\n")[0], "blind") {
		t.Errorf("blind mode off showed a blind-share verdict:\n%s", s)
	}
	if !strings.Contains(s, "--blind-share") || strings.Contains(s, "b turns blind mode off") {
		t.Errorf("the verdict pane does not say why the verdict is hidden:\n%s", s)
	}
}
