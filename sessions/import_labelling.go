package sessions

import (
	"database/sql"
	"slices"
	"strings"
)

// What an import of an export brings back of SPEC "Labelling well"
// (export_labelling.go writes it): each annotator's re-test labels, their
// can't-judge with its reason and note, their failure tags, and whether
// the verdict was on screen for their labels and whose (label_shown_run,
// a run's name, given that run's id in this session). The guidelines version is
// a number that means something only in the session it came from, so it
// is left out.

// ViaRetest is how a re-test reached the item: the re-test schedule, not
// the order or filter in force.
const ViaRetest = "retest"

// exportedShown reads a label_shown cell.
func exportedShown(t string) Visibility {
	switch strings.TrimSpace(t) {
	case exportShown:
		return ShownVerdict
	case exportBlind:
		return ShownBlind
	}
	return ShownUnknown
}

// exportedDecisions returns an annotator's can't-judge and tags on one
// exported row, counting what cannot be read (a reason Gavel does not
// know, a tag name CheckTagName refuses) as unreadable.
func exportedDecisions(a *plannedAnnotator, row exportedRow, name, via string) []Action {
	var out []Action
	id := row.item.ID
	if reason := strings.TrimSpace(row.cells[exportColumn{kind: prefixCantJudge, owner: name}].at(0)); reason != "" {
		if slices.Contains(CantJudgeReasons, reason) {
			note := row.cells[exportColumn{kind: prefixCantJudgeNote, owner: name}].at(0)
			out = append(out, Action{Kind: KindCantJudge, ItemID: id, Reason: reason, Note: note, Via: via})
		} else {
			a.countUnreadable(reason)
		}
	}
	var tags []string
	for _, t := range strings.Split(row.cells[exportColumn{kind: prefixTags, owner: name}].at(0), ",") {
		t = strings.TrimSpace(t)
		switch {
		case t == "", slices.Contains(tags, t):
		case CheckTagName(t) != nil:
			a.countUnreadable(t)
		default:
			tags = append(tags, t)
			out = append(out, Action{Kind: KindTag, ItemID: id, Tag: t, Value: 1, Via: via})
		}
	}
	return out
}

// currentLabelling is what an annotator has now that an import of an
// export may bring again: can't-judges (reason and note), tags that are
// on, and the latest re-test label of each row.
type currentLabelling struct {
	cantJudge map[string][2]string
	tags      map[[2]string]bool
	retests   map[LabelKey]float64
}

func (s *Store) currentLabelling(annotator string) (currentLabelling, error) {
	cur := currentLabelling{cantJudge: map[string][2]string{}, tags: map[[2]string]bool{}, retests: map[LabelKey]float64{}}
	cjs, err := s.CantJudges(annotator)
	if err != nil {
		return cur, err
	}
	for _, c := range cjs {
		cur.cantJudge[c.ItemID] = [2]string{c.Reason, c.Note}
	}
	tags, err := s.ItemTags(annotator)
	if err != nil {
		return cur, err
	}
	for _, t := range tags {
		cur.tags[[2]string{t.ItemID, t.Tag}] = true
	}
	err = s.read("reading re-test labels", func(tx *sql.Tx) error {
		codec, err := loadCodec(tx)
		if err != nil {
			return err
		}
		rows, err := tx.Query(`SELECT item_id, criterion, dimension, value FROM live_actions
			WHERE annotator = ? AND retest = 1 AND kind IN ('label', 'accept') ORDER BY id`, annotator)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k LabelKey
			var value any
			if err := rows.Scan(&k.ItemID, &k.Criterion, &k.Dimension, &value); err != nil {
				return err
			}
			if x, ok := codec.decode(k.Dimension, value); ok {
				cur.retests[k] = x // the latest one stays
			}
		}
		return rows.Err()
	})
	return cur, err
}
