package main

import (
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// statsOf computes a session's agreement report the way `gavel stats`
// does.
func statsOf(s *sessions.Store) func() (stats.Report, error) {
	return func() (stats.Report, error) {
		in, err := s.StatsInput()
		if err != nil {
			return stats.Report{}, err
		}
		return stats.Compute(in, stats.Options{Seed: statsSeed}), nil
	}
}

// statsSeed seeds every bootstrap, so that the same session always gives
// the same intervals.
const statsSeed = 1
