package sessions

import "database/sql"

// actions.shown names the run whose verdict was on screen (schema v8), so
// that the anchoring check compares a person with the judge they saw: a
// decision made with judge A's verdict on screen says nothing of how B's
// would have swayed them. The statistics name judges by RunNames; these
// give a decision's shown run that name (stats.Decision.ShownJudge).

// statsRunNames is every run's name as the statistics key the judges
// (RunNames of readStatsRuns, as readStatsJudged names in.Judges).
func statsRunNames(tx *sql.Tx) (map[int64]string, error) {
	runs, err := readStatsRuns(tx)
	if err != nil {
		return nil, err
	}
	return RunNames(runs), nil
}

// shownJudgeOf is the statistics' name of the run actions.shown holds:
// "" unless shown is a run's id (> 0) and names holds that run.
func shownJudgeOf(shown int64, names map[int64]string) string {
	if shown <= 0 {
		return ""
	}
	return names[shown]
}
