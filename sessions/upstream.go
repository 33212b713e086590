package sessions

import (
	"fmt"

	"github.com/gavel-dev/gavel/judge"
)

// Upstream is where a replica's judge runs are written first: the team
// session it copies (sessions/pg), so that `gavel run` on a team session
// judges on the local replica while every run and verdict is numbered by
// the team session and reaches the other reviewers as it is made.
//
// With an upstream set (SetUpstream), EnsureRun and SaveVerdicts write
// nothing the team session does not hold: EnsureRun asks the upstream,
// which makes or finds the run there and brings it into the replica,
// then brings the replica's row up to date as it does for a run it
// holds (the same description, definition and dimensions the upstream
// wrote); SaveVerdicts hands the verdicts to the upstream alone, which
// writes them there and brings them into the replica under the same ids.
// The response cache stays the replica's own.
type Upstream interface {
	// EnsureRun makes or finds info's run in the team session, as
	// EnsureRun does in a file, and brings it into the replica.
	EnsureRun(info judge.Info) (Run, error)
	// SaveVerdicts writes verdicts to the team session's run, as
	// SaveVerdicts does in a file (all or none), and brings them into
	// the replica. A call repeated after an error with the same verdicts
	// first (a judging's last try at what it could not save) must not
	// write them twice.
	SaveVerdicts(runID int64, vs []judge.Verdict) error
}

// SetUpstream has the store's judge runs and verdicts written to u first
// (see Upstream); nil writes them here again. Set it before judging.
func (s *Store) SetUpstream(u Upstream) { s.upstream = u }

// upstreamRun is EnsureRun's first step on a store with an upstream: the
// run as the team session holds it, already in the replica.
func (s *Store) upstreamRun(info judge.Info) (Run, error) {
	run, err := s.upstream.EnsureRun(info)
	if err != nil {
		return Run{}, err
	}
	if run.ID == 0 {
		return Run{}, fmt.Errorf("session %s: the team session gave the judge run no id", s.path)
	}
	return run, nil
}
