package sessions

import (
	"database/sql"
	"errors"
	"maps"
	"math"
	"slices"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Adjudication (SPEC "Teams"): where people's labels on an item differ,
// an adjudicator looks at them and gives the label that settles it. It is
// an ordinary label action whose via is "adjudication" (no schema change):
// the adjudicator's current label on the key, as for everyone. What makes
// it an adjudication is only read here and in the statistics:
//
//   - the item's reference for the judge's statistics is its latest
//     adjudication (an undone one does not count: the views drop it), else
//     the people's majority;
//   - an adjudication is no rater's label: it enters no figure between
//     people and leaves the item's selection class as the people's labels
//     made it;
//   - an item waits for adjudication while two people's current labels on
//     one of its (criterion, dimension) keys differ (can't-judge decisions
//     left out) and no adjudication on the key is later than every one of
//     them.
//
// An annotator has one current label per key: an adjudicator who had
// labelled the item as a rater replaces that label with the adjudication.

// ViaAdjudication is the via of a label made adjudicating (gavel review
// --adjudicate, gavel label --via adjudication).
const ViaAdjudication = stats.ProvenanceAdjudication

// KeyAdjudication is what one (item, criterion, dimension) key's current
// labels say of adjudication (Adjudicate).
type KeyAdjudication struct {
	// Disagree: two people's labels differ (adjudications apart).
	Disagree bool
	// Adjudicated: the key has an adjudication; Value is the latest's,
	// By its adjudicator, ActionID its action.
	Adjudicated bool
	Value       float64
	By          string
	ActionID    int64
	// Waiting: Disagree, and no adjudication is later than every
	// person's label (none was made, or a label changed since).
	Waiting bool
}

// Adjudicate reads the current labels of one key (every annotator's, with
// their Via and ActionID, as Labels gives them; the labels of whoever
// marked the item "can't judge" already left out) as the adjudication
// queue and the statistics do. An ActionID of 0 is unknown: it is taken as
// no later than anything.
func Adjudicate(labels []Label) KeyAdjudication {
	var k KeyAdjudication
	first, has := 0.0, false
	var latest int64 // the latest person's label
	for _, l := range labels {
		if l.Via == ViaAdjudication {
			if !k.Adjudicated || l.ActionID >= k.ActionID {
				k.Adjudicated, k.Value, k.By, k.ActionID = true, l.Value, l.Annotator, l.ActionID
			}
			continue
		}
		latest = max(latest, l.ActionID)
		if !has {
			first, has = l.Value, true
		} else if l.Value != first {
			k.Disagree = true
		}
	}
	k.Waiting = k.Disagree && (!k.Adjudicated || k.ActionID > 0 && latest > k.ActionID)
	return k
}

// ItemLabels returns every annotator's current labels on one item, in the
// order of Labels (criterion, dimension, annotator), leaving out those of
// an annotator who marked the item "can't judge" (as every agreement
// figure does). The item's actions are found by actions_by_item, so a
// million labels cost nothing here.
func (s *Store) ItemLabels(itemID string) ([]Label, error) {
	return s.readLabels("reading the item's labels", `SELECT l.item_id, l.criterion, l.dimension, l.value, l.annotator, l.via, l.at, l.action_id, l.accepted
			FROM current_labels l
			WHERE l.item_id = ?1 AND NOT EXISTS (SELECT 1 FROM current_cant_judge c WHERE c.item_id = ?1 AND c.annotator = l.annotator)
			ORDER BY l.criterion, l.dimension, l.annotator`, itemID)
}

// orderAdjudications finishes the statistics' labels of the units that
// hold an adjudication (scanned: the current labels read, can't-judge
// ones left out; units: the units they were given to by addStatsLabels):
// every label there gets its Seq (the action's id), so that the latest
// adjudication wins and a label changed after it is seen; and an
// annotator's label there that mixes ratings and adjudications (several
// dimensions) is split in two, the adjudications apart, each with its own
// provenance. Nothing is read when no current label was made in
// adjudication.
func orderAdjudications(tx *sql.Tx, scanned *scannedLabels, units *statsUnits) error {
	kinds := scanned.kinds.list
	if !slices.ContainsFunc(kinds, func(k labelKind) bool { return k.via == ViaAdjudication }) {
		return nil
	}
	var touched []int
	seen := map[int]bool{}
	for _, l := range scanned.list {
		if kinds[l.kind].via != ViaAdjudication {
			continue
		}
		if u, ok := units.find(l.item, int(l.crit)); ok && !seen[u] {
			seen[u] = true
			touched = append(touched, u)
		}
	}
	slices.Sort(touched)
	stmt, err := tx.Prepare(`SELECT via, action_id FROM current_labels
		WHERE +annotator = ?1 AND item_id = ?2 AND criterion = ?3 AND dimension = ?4`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, u := range touched {
		unit := &units.units[u]
		var out []stats.Label
		for _, l := range unit.Labels {
			rating, adjudged := map[string]float64{}, map[string]float64{}
			var ratingSeq, adjSeq int64
			ratingVia := ""
			for _, dim := range slices.Sorted(maps.Keys(l.Values)) {
				var via string
				var id int64
				err := stmt.QueryRow(l.Annotator, unit.ItemID, unit.Criterion, dim).Scan(&via, &id)
				if errors.Is(err, sql.ErrNoRows) {
					via, id = l.Provenance, 0 // changed since the scan: as scanned
				} else if err != nil {
					return err
				}
				if via == ViaAdjudication {
					adjudged[dim] = l.Values[dim]
					adjSeq = max(adjSeq, id)
					continue
				}
				rating[dim] = l.Values[dim]
				ratingSeq = max(ratingSeq, id)
				if ratingVia == "" {
					ratingVia = via
				}
			}
			if len(rating) > 0 {
				p := l.Provenance
				if p == ViaAdjudication {
					p = ratingVia
				}
				out = append(out, stats.Label{Annotator: l.Annotator, Values: rating, Provenance: p, Seq: ratingSeq})
			}
			if len(adjudged) > 0 {
				out = append(out, stats.Label{Annotator: l.Annotator, Values: adjudged, Provenance: ViaAdjudication, Seq: adjSeq})
			}
		}
		unit.Labels = out
	}
	return nil
}

// wholeAdjudication is a current adjudication on a whole item.
type wholeAdjudication struct {
	item, annotator, dim string
	value                float64
	id                   int64
}

// readWholeAdjudications reads every current adjudication on a whole item
// (criterion 0) whose value its scale can read.
func readWholeAdjudications(tx *sql.Tx, codec *valueCodec) ([]wholeAdjudication, error) {
	rows, err := tx.Query(`SELECT item_id, annotator, dimension, value, action_id FROM current_labels
		WHERE via = ?1 AND criterion = 0`, ViaAdjudication)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []wholeAdjudication
	for rows.Next() {
		var a wholeAdjudication
		var raw any
		if err := rows.Scan(&a.item, &a.annotator, &a.dim, &raw, &a.id); err != nil {
			return nil, err
		}
		if v, ok := codec.decode(a.dim, raw); ok && !math.IsNaN(v) {
			a.value = v
			out = append(out, a)
		}
	}
	return out, rows.Err()
}

// fewShotKey is an item and a wanted dimension's index.
type fewShotKey struct {
	item string
	dim  int
}

// adjudicatedTally takes the current adjudications on whole items of dims
// out of the few-shot tally t, where they were counted as people's labels
// (those of an adjudicator who marked the item "can't judge", marks, were
// taken out already), and returns the latest one per item and dimension:
// the item's label there.
func adjudicatedTally(tx *sql.Tx, codec *valueCodec, t *fewShotTally, dims []judge.Dimension, marks [][2]string) (map[fewShotKey]wholeAdjudication, error) {
	all, err := readWholeAdjudications(tx, codec)
	if err != nil || len(all) == 0 {
		return nil, err
	}
	cannot := make(map[[2]string]bool, len(marks))
	for _, m := range marks {
		cannot[m] = true
	}
	out := map[fewShotKey]wholeAdjudication{}
	for _, a := range all {
		i := slices.IndexFunc(dims, func(d judge.Dimension) bool { return d.Name == a.dim })
		if i < 0 || cannot[[2]string{a.annotator, a.item}] {
			continue
		}
		t.remove(a.item, i, a.value)
		if _, counted := t.index[a.item]; !counted {
			continue // not a calibration item
		}
		k := fewShotKey{a.item, i}
		if old, ok := out[k]; !ok || a.id > old.id {
			out[k] = a
		}
	}
	return out, nil
}
