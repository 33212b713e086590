package sessions

import (
	"database/sql"
	"math"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// verdictConfidence is a verdict's stored confidence.
type verdictConfidence struct {
	id int64
	c  float64
}

// scanConfidences reads, in verdict id order, the confidences stored with
// verdicts: the probability the judge gave its answer, from logprobs or
// imported. A confidence the judge withheld as meaningless
// (ExtraConfidenceWithheld) is left unknown even if one was stored. It is
// a scan of every verdict (often to find none: a judge without logprobs
// stores none), which the statistics run beside the other reads
// (readStatsInputWith); addConfidences gives them to the verdicts.
func scanConfidences(tx *sql.Tx) ([]verdictConfidence, error) {
	rows, err := tx.Query(`SELECT id, confidence FROM verdicts
		WHERE confidence IS NOT NULL AND (extra IS NULL OR instr(extra, '"` + ExtraConfidenceWithheld + `"') = 0)
		ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []verdictConfidence
	for rows.Next() {
		var v verdictConfidence
		if err := rows.Scan(&v.id, &v.c); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// addConfidences gives each placed verdict (in verdict id order) its
// confidence among cs (scanConfidences).
func addConfidences(in []stats.Unit, placed []verdictPlace, cs []verdictConfidence) {
	j := 0
	for _, v := range cs {
		for j < len(placed) && placed[j].id < v.id {
			j++
		}
		if j == len(placed) {
			break
		}
		if placed[j].id == v.id && !math.IsNaN(v.c) {
			c := v.c
			in[placed[j].unit].Verdicts[placed[j].at].Confidence = &c
		}
	}
}
