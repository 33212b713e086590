package main

import (
	"errors"
	"fmt"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// readFiguresInput opens the session at path read-only, says its notice,
// and reads its statistics input with the labels the figure flags choose
// (--guidelines), kept to the part of the split named by which
// (selectSplit): what `gavel stats` and `gavel report` start from. A
// guidelines version the session does not have is a usage error. The
// caller closes the store.
func readFiguresInput(e env, path, which string, f figureFlags) (*sessions.Store, stats.Input, stats.SplitUsed, error) {
	ro, err := f.readOptions()
	if err != nil {
		return nil, stats.Input{}, stats.SplitUsed{}, err
	}
	s, err := openRead(path)
	if err != nil {
		return nil, stats.Input{}, stats.SplitUsed{}, err
	}
	if n := s.Notice(); n != "" {
		fmt.Fprintln(e.stderr, n)
	}
	in, err := s.StatsInputWith(ro)
	if errors.Is(err, sessions.ErrGuidelinesVersion) || errors.Is(err, sessions.ErrPlan) {
		err = namingTeam(usageError{err}, s.Path(), path)
	}
	if err == nil {
		var used stats.SplitUsed
		planID := planOf(in)
		if in, used, err = selectSplit(s, in, which); err == nil {
			for _, n := range planNotes(path, planID, used, in) {
				fmt.Fprintln(e.stderr, n)
			}
			f.planInput(&in) // --target-width
			return s, in, used, nil
		}
	}
	s.Close()
	return nil, stats.Input{}, stats.SplitUsed{}, namingTeam(err, s.Path(), path)
}
