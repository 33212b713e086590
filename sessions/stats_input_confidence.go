package sessions

import (
	"database/sql"
	"math"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// readConfidences gives each placed verdict (in verdict id order) its
// confidence: the probability the judge gave its answer, from logprobs or
// imported. A confidence the judge withheld as meaningless
// (ExtraConfidenceWithheld) is left unknown even if one was stored.
func readConfidences(tx *sql.Tx, in []stats.Unit, placed []verdictPlace) error {
	rows, err := tx.Query(`SELECT id, confidence FROM verdicts
		WHERE confidence IS NOT NULL AND (extra IS NULL OR instr(extra, '"` + ExtraConfidenceWithheld + `"') = 0)
		ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	j := 0
	for rows.Next() {
		var (
			id int64
			c  float64
		)
		if err := rows.Scan(&id, &c); err != nil {
			return err
		}
		for j < len(placed) && placed[j].id < id {
			j++
		}
		if j == len(placed) {
			break
		}
		if placed[j].id == id && !math.IsNaN(c) {
			c := c
			in[placed[j].unit].Verdicts[placed[j].at].Confidence = &c
		}
	}
	return rows.Err()
}
