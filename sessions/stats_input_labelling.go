package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// StatsOptions chooses which labels the statistics count.
type StatsOptions struct {
	// Guidelines keeps only the labels made under one guidelines version:
	// GuidelinesAll (0) keeps every label, GuidelinesCurrent the newest
	// version's, a version's id (from 1) that version's. A label made with
	// no guidelines on screen is made under none of them.
	Guidelines int64
}

// Values of StatsOptions.Guidelines besides a version's id.
const (
	GuidelinesAll     int64 = 0
	GuidelinesCurrent int64 = -1
)

// ErrGuidelinesVersion classifies StatsInputWith's error when the
// guidelines version asked for is not in the session; its message lists
// the versions there are.
var ErrGuidelinesVersion = errors.New("no such guidelines version")

// StatsInputWith is StatsInput with the labels chosen by o.
func (s *Store) StatsInputWith(o StatsOptions) (stats.Input, error) {
	var in stats.Input
	err := s.read("reading the session for statistics", func(tx *sql.Tx) error {
		var err error
		in, err = s.readStatsInputWith(tx, o)
		return err
	})
	if err != nil {
		return stats.Input{}, err
	}
	return in, nil
}

// labellingRead is the labelling input and what it takes out of the
// current labels.
type labellingRead struct {
	in *stats.LabellingInput
	// cantJudge holds the (annotator, item) pairs marked "can't judge".
	cantJudge map[[2]string]bool
	// keep, under a guidelines filter, holds the current labels made under
	// the version kept; nil when every label counts.
	keep map[labelAt]bool
}

// labelAt names a current label.
type labelAt struct {
	annotator, item string
	criterion       int64
	dimension       string
}

// readLabelling reads what the session records of the human side of
// labelling (SPEC "Labelling well", schema v8) for the statistics. A
// session with none of it — every action written before v8 or imported —
// costs one scan of the actions and gives nil. Decisions are read for the
// annotators whose decisions record how they were made (the verdict shown
// or hidden, the time on screen, a re-test), all of theirs, by the index
// on annotator: the review screen records that, while a script (gavel
// label) and an import do not, so their decisions alone add no
// reliability figures to a report. The sitting alone does not count:
// every recorded action has one.
func readLabelling(tx *sql.Tx, path string, codec *valueCodec, o StatsOptions) (*labellingRead, error) {
	r := &labellingRead{in: &stats.LabellingInput{}}
	li := r.in
	versions, err := readGuidelinesVersions(tx)
	if err != nil {
		return nil, err
	}
	li.Guidelines.Versions = versions
	if err := r.setFilter(path, o.Guidelines); err != nil {
		return nil, err
	}
	if li.TagSet, err = readStrings(tx, `SELECT name FROM session_tags ORDER BY added_at, name`); err != nil {
		return nil, err
	}
	// One scan tells who decided with the v8 columns set, and whether any
	// "can't judge" or tag was ever recorded.
	rows, err := tx.Query(`SELECT annotator, max(kind = 'cant_judge'), max(kind = 'tag'),
			max(kind IN ('label', 'accept', 'cant_judge') AND (shown IS NOT NULL OR appeared_at IS NOT NULL OR retest = 1))
		FROM actions
		WHERE kind IN ('cant_judge', 'tag') OR sitting IS NOT NULL OR shown IS NOT NULL OR appeared_at IS NOT NULL OR retest = 1
		GROUP BY annotator ORDER BY annotator`)
	if err != nil {
		return nil, err
	}
	var deciders []string
	var anyCantJudge, anyTag bool
	for rows.Next() {
		var who string
		var cj, tag, decided bool
		if err := rows.Scan(&who, &cj, &tag, &decided); err != nil {
			rows.Close()
			return nil, err
		}
		anyCantJudge, anyTag = anyCantJudge || cj, anyTag || tag
		if decided {
			deciders = append(deciders, who)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if anyCantJudge {
		if err := r.readCantJudge(tx); err != nil {
			return nil, err
		}
	}
	if anyTag {
		if err := r.readTags(tx); err != nil {
			return nil, err
		}
	}
	for _, who := range deciders {
		if err := r.readDecisions(tx, codec, who); err != nil {
			return nil, err
		}
	}
	if len(versions) > 0 {
		if err := r.countByVersion(tx); err != nil {
			return nil, err
		}
	}
	if len(versions) == 0 && len(li.TagSet) == 0 && len(li.CantJudge) == 0 && len(li.Tags) == 0 && len(li.Decisions) == 0 {
		return nil, nil
	}
	return r, nil
}

// readGuidelinesVersions lists the versions, oldest first.
func readGuidelinesVersions(tx *sql.Tx) ([]stats.GuidelinesVersion, error) {
	rows, err := tx.Query(`SELECT id, sha256, first_seen FROM guidelines ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []stats.GuidelinesVersion
	for rows.Next() {
		var v stats.GuidelinesVersion
		var seen string
		if err := rows.Scan(&v.ID, &v.SHA256, &seen); err != nil {
			return nil, err
		}
		if v.FirstSeen, err = parseStamp(seen); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// setFilter resolves the guidelines version asked for (StatsOptions).
func (r *labellingRead) setFilter(path string, want int64) error {
	g := &r.in.Guidelines
	g.Filter = stats.GuidelinesFilter{Filter: stats.FilterAll}
	if want == GuidelinesAll {
		return nil
	}
	var ids []string
	for _, v := range g.Versions {
		ids = append(ids, fmt.Sprint(v.ID))
	}
	if len(ids) == 0 {
		return newError(ErrGuidelinesVersion, nil, "session %s records no guidelines, so no label was made under a version of them: count every label (all), or label with guidelines first (gavel review --guidelines FILE)", path)
	}
	newest := g.Versions[len(g.Versions)-1].ID
	switch {
	case want == GuidelinesCurrent:
		g.Filter = stats.GuidelinesFilter{Filter: stats.FilterCurrent, Version: newest}
	case slices.ContainsFunc(g.Versions, func(v stats.GuidelinesVersion) bool { return v.ID == want }):
		g.Filter = stats.GuidelinesFilter{Filter: stats.FilterVersion, Version: want}
	default:
		return newError(ErrGuidelinesVersion, nil, "session %s has no guidelines version %d: its versions are %s (%d, the newest, is current)", path, want, strings.Join(ids, ", "), newest)
	}
	return nil
}

// readStrings reads a one-column query.
func readStrings(tx *sql.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// readCantJudge reads the current "can't judge" marks (view
// current_cant_judge), in item order.
func (r *labellingRead) readCantJudge(tx *sql.Tx) error {
	rows, err := tx.Query(`SELECT c.item_id, c.annotator, c.reason FROM current_cant_judge c
		JOIN items i ON i.item_id = c.item_id ORDER BY i.idx, c.annotator`)
	if err != nil {
		return err
	}
	defer rows.Close()
	r.cantJudge = map[[2]string]bool{}
	for rows.Next() {
		var m stats.CantJudgeMark
		if err := rows.Scan(&m.ItemID, &m.Annotator, &m.Reason); err != nil {
			return err
		}
		r.in.CantJudge = append(r.in.CantJudge, m)
		r.cantJudge[[2]string{m.Annotator, m.ItemID}] = true
	}
	return rows.Err()
}

// readTags reads the tags currently on items (view current_tags), in item
// order.
func (r *labellingRead) readTags(tx *sql.Tx) error {
	rows, err := tx.Query(`SELECT t.item_id, t.annotator, t.tag FROM current_tags t
		JOIN items i ON i.item_id = t.item_id ORDER BY i.idx, t.annotator, t.tag`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var m stats.TagMark
		if err := rows.Scan(&m.ItemID, &m.Annotator, &m.Tag); err != nil {
			return err
		}
		r.in.Tags = append(r.in.Tags, m)
	}
	return rows.Err()
}

// readDecisions adds an annotator's live labels, accepts and "can't
// judge" decisions, oldest first.
func (r *labellingRead) readDecisions(tx *sql.Tx, codec *valueCodec, annotator string) error {
	rows, err := tx.Query(`SELECT group_id, kind, item_id, criterion, dimension, value, at, appeared_at, shown, retest, sitting, guidelines_id
		FROM live_actions WHERE annotator = ? AND kind IN ('label', 'accept', 'cant_judge') ORDER BY id`, annotator)
	if err != nil {
		return err
	}
	defer rows.Close()
	intern := stringInterner{}
	for rows.Next() {
		d := stats.Decision{Annotator: annotator}
		var (
			value             any
			at                string
			appeared, sitting sql.NullString
			shown, guidelines sql.NullInt64
		)
		if err := rows.Scan(&d.Group, &d.Kind, &d.ItemID, &d.Criterion, &d.Dimension, &value, &at, &appeared, &shown, &d.Retest, &sitting, &guidelines); err != nil {
			return err
		}
		d.Kind, d.Dimension = intern.of(d.Kind), intern.of(d.Dimension)
		if d.Kind != string(KindCantJudge) {
			d.Value, d.HasValue = codec.decode(d.Dimension, value)
		}
		switch shownFromColumn(shown) {
		case ShownBlind:
			d.Shown = stats.ShownBlind
		case ShownVerdict:
			d.Shown = stats.ShownVerdict
		}
		d.Sitting, d.Guidelines = intern.of(sitting.String), guidelines.Int64
		if appeared.Valid {
			t0, err1 := parseStamp(appeared.String)
			t1, err2 := parseStamp(at)
			if err1 == nil && err2 == nil {
				d.Seconds, d.Timed = t1.Sub(t0).Seconds(), true
			}
		}
		r.in.Decisions = append(r.in.Decisions, d)
	}
	return rows.Err()
}

// countByVersion counts the current labels made under each guidelines
// version and under none, and, under a filter, notes which labels it
// keeps.
func (r *labellingRead) countByVersion(tx *sql.Tx) error {
	g := &r.in.Guidelines
	rows, err := tx.Query(`SELECT a.guidelines_id, count(*) FROM current_label_rows c JOIN actions a ON a.id = c.action_id GROUP BY a.guidelines_id`)
	if err != nil {
		return err
	}
	byID := map[int64]int{}
	for rows.Next() {
		var id sql.NullInt64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return err
		}
		if !id.Valid {
			g.WithoutGuidelines += n
			continue
		}
		byID[id.Int64] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range g.Versions {
		g.Versions[i].Labels = byID[g.Versions[i].ID]
	}
	if g.Filter.Filter == stats.FilterAll {
		return nil
	}
	kept, err := tx.Query(`SELECT c.annotator, c.item_id, c.criterion, c.dimension FROM current_label_rows c
		JOIN actions a ON a.id = c.action_id WHERE a.guidelines_id = ?`, g.Filter.Version)
	if err != nil {
		return err
	}
	defer kept.Close()
	r.keep = map[labelAt]bool{}
	for kept.Next() {
		var k labelAt
		if err := kept.Scan(&k.annotator, &k.item, &k.criterion, &k.dimension); err != nil {
			return err
		}
		r.keep[k] = true
	}
	return kept.Err()
}

// apply leaves out of the scanned current labels those of an annotator on
// an item they marked "can't judge", and, under a guidelines filter, those
// made under another version, counting each.
func (r *labellingRead) apply(labels *scannedLabels) {
	if r == nil || len(r.cantJudge) == 0 && r.keep == nil {
		return
	}
	kinds := labels.kinds.list
	kept := labels.list[:0]
	for _, l := range labels.list {
		k := kinds[l.kind]
		switch {
		case r.cantJudge[[2]string{k.annotator, l.item}]:
			r.in.CantJudgeLabels++
		case r.keep != nil && !r.keep[labelAt{k.annotator, l.item, int64(l.crit), k.dim}]:
			r.in.Guidelines.LeftOut++
		default:
			kept = append(kept, l)
		}
	}
	labels.list = kept
}
