package tui

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// A person's share on the statistics screen counts what was taken from it
// as gone, and what they took from others not as theirs: ana decided 28
// of her 30 and bo took the other 2 (done or held), so her share is 100%
// gone, 2 of it taken by others, not "93%"; bo decided 20 of his own and
// those 2 of hers, 10 of his left: 67% of his share, not 73%.
func TestTeamShareCountsItemsTakenByOthers(t *testing.T) {
	st := func() (stats.Report, error) { return stats.Report{}, nil }
	m := teamModel(t, &fakeStore{}, testItems(4), &Team{Where: "postgres://gavel@db/gavel?session=demo"}, st)
	m = press(t, m, "s")
	m = update(t, m, TeamUpdate{Progress: []TeamProgress{
		{Annotator: "ana", Assigned: 30, Done: 28, Taken: 2, Left: 0},
		{Annotator: "bo", Assigned: 30, Claimed: 4, Done: 22, Left: 10},
	}})
	s := plain(m)
	for _, want := range []string{"100% of their share (2 taken by others)", "67% of their share"} {
		if !strings.Contains(s, want) {
			t.Errorf("the statistics lack %q:\n%s", want, s)
		}
	}
	for _, wrong := range []string{"93%", "73%"} {
		if strings.Contains(s, wrong) {
			t.Errorf("the statistics say %s:\n%s", wrong, s)
		}
	}
}
