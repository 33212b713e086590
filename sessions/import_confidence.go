package sessions

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

// An imported judge's confidence (--map confidence=COLUMN) is the
// probability the judge gave its own verdict, 0 to 1, as a logprob
// confidence is: it is stored in verdicts.confidence, where the
// statistics' reliability curve and an active labelling plan read it. A
// value that is no such probability would skew both without a sign, so
// the import refuses it, naming the row, rather than guess (85 may mean
// 0.85 or nothing).

// readConfidence reads one confidence cell: ok is false for a blank cell
// (no confidence), err says why a value is not a probability.
func readConfidence(text string) (c float64, ok bool, err error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return 0, false, nil
	}
	x, perr := strconv.ParseFloat(t, 64)
	switch {
	case perr != nil || math.IsNaN(x) || math.IsInf(x, 0):
		return 0, false, fmt.Errorf("%s is not a number", strconv.Quote(clipCell(t)))
	case x < 0 || x > 1:
		return 0, false, fmt.Errorf("%s is outside 0 to 1", strconv.Quote(clipCell(t)))
	}
	return x, true, nil
}

// clipCell keeps a message's copy of a cell short.
func clipCell(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// checkConfidences refuses an import whose confidence column holds a
// value that is not a probability, on a row the session holds, naming
// the first such row.
func checkConfidences(ds *dataset.Dataset, rows []bool, file string) error {
	for _, col := range ds.Imported {
		if col.Role != dataset.RoleConfidence || len(col.Values) != len(ds.Items) {
			continue
		}
		for i, text := range col.Values {
			if !rows[i] {
				continue
			}
			if _, _, err := readConfidence(text); err != nil {
				return fmt.Errorf("%s row %d (id %s): the confidence of %s in column %s: %v. It is the probability the judge gave its own verdict, from 0 to 1 (write 0.85, not 85 or 85%%); fix the row or leave the cell blank",
					file, i+1, strconv.Quote(clipCell(ds.Items[i].ID)), strconv.Quote(col.Of), strconv.Quote(col.Field), err)
			}
		}
	}
	return nil
}
