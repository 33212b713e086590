package sessions

import "github.com/gavel-dev/gavel/judge"

// VerdictStore is the part of a session backend a judge run writes
// through: a session file (*Store) and a team session in PostgreSQL
// (sessions/pg's Queue) implement it, and sessions/queuetest holds both to
// one contract, beside the queue's (QueueStore).
type VerdictStore interface {
	// EnsureRun returns the session's run of the judge info describes,
	// made when the session has none: the same run for the same judge,
	// however many writers ask at once.
	EnsureRun(info judge.Info) (Run, error)
	// SaveVerdicts adds verdicts to a run; a later verdict on the same
	// item and criterion is its current one (a re-judge).
	SaveVerdicts(runID int64, vs []judge.Verdict) error
	// Verdicts returns the run's current verdicts in item order.
	Verdicts(runID int64) ([]judge.Verdict, error)
}

var _ VerdictStore = (*Store)(nil)
