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
	// PlanID is the labelling plan Input.Plan holds: PlanNewest (0), a
	// plan's id, or PlanNone (see stats_input_plan.go).
	PlanID int64
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

// readLabellingBase reads the guidelines' versions (with the current
// labels made under each, and, under a filter, which labels it keeps) and
// the session's tag set.
func readLabellingBase(tx *sql.Tx, path string, o StatsOptions) (*labellingRead, error) {
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
	if len(versions) > 0 {
		if err := r.countByVersion(tx); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// historiesRead is what the annotators' histories give the labelling
// input.
type historiesRead struct {
	cantJudge map[[2]string]bool
	marks     []stats.CantJudgeMark
	tags      []stats.TagMark
	decisions []stats.Decision
}

// readHistories reads the annotators' histories in tx: both parts
// (historyPart), gathered.
//
// Only the actions that the partial index actions_labelling holds (a
// "can't judge", a tag, or an action recorded with a visibility, a time
// on screen or as a re-test) say anything of how people labelled, so a
// session with none of them — every action written before v8, imported
// or written by a script (gavel label records a sitting only) — costs one
// look at an empty index. Of each annotator in that index, the history
// is read by the index on annotator, from which their current "can't
// judge" marks and tags are derived as the views current_cant_judge and
// current_tags define them, without the views' scan of every action.
// Their decisions go into the input when some record how they were made
// (the verdict shown or hidden, the time on screen, a re-test): the
// review screen records that, while a script (gavel label) and an import
// do not, so their decisions alone add no reliability figures, and an
// annotator with none of it (recordsHow, one look at the index) has only
// the history of the items they marked or tagged read.
func readHistories(tx *sql.Tx, o StatsOptions) (*historiesRead, error) {
	p0, err := readHistoryPart(tx, o, 0)
	if err != nil {
		return nil, err
	}
	p1, err := readHistoryPart(tx, o, 1)
	if err != nil {
		return nil, err
	}
	r, _ := gatherHistories(p0, p1) // one transaction: the same annotators
	return r, nil
}

// with adds the histories to r; nil when the session records nothing of
// how people labelled.
func (r *labellingRead) with(h *historiesRead) *labellingRead {
	li := r.in
	li.CantJudge, li.Tags, li.Decisions, r.cantJudge = h.marks, h.tags, h.decisions, h.cantJudge
	if len(li.Guidelines.Versions) == 0 && len(li.TagSet) == 0 && len(li.CantJudge) == 0 && len(li.Tags) == 0 && len(li.Decisions) == 0 {
		return nil
	}
	return r
}

// labellingPredicate is the partial index actions_labelling's WHERE term
// (schema_v8.go), which a query repeats for SQLite to read the index.
const labellingPredicate = `kind IN ('cant_judge', 'tag') OR shown IS NOT NULL OR appeared_at IS NOT NULL OR retest = 1`

// labellingAnnotators lists the annotators in the actions_labelling index,
// one look at the index each (the WHERE term is the index's own, so that
// SQLite reads it; a DISTINCT would walk every entry).
func labellingAnnotators(tx *sql.Tx) ([]string, error) {
	var out []string
	var a string
	err := tx.QueryRow(`SELECT annotator FROM actions WHERE (` + labellingPredicate + `) ORDER BY annotator LIMIT 1`).Scan(&a)
	for err == nil {
		out = append(out, a)
		err = tx.QueryRow(`SELECT annotator FROM actions WHERE (`+labellingPredicate+`) AND annotator > ?1 ORDER BY annotator LIMIT 1`, a).Scan(&a)
	}
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return out, err
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

// countByVersion counts the current labels made under each guidelines
// version and under none, and, under a filter, notes which labels it
// keeps.
func (r *labellingRead) countByVersion(tx *sql.Tx) error {
	g := &r.in.Guidelines
	// One sum per version, in one pass: a GROUP BY would sort every label.
	var q strings.Builder
	q.WriteString(`SELECT sum(a.guidelines_id IS NULL)`)
	args := make([]any, len(g.Versions))
	for i, v := range g.Versions {
		fmt.Fprintf(&q, `, sum(a.guidelines_id = ?%d)`, i+1)
		args[i] = v.ID
	}
	q.WriteString(` FROM actions a WHERE ` + currentLabelAction)
	counts := make([]sql.NullInt64, len(g.Versions)+1)
	dest := make([]any, len(counts))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := tx.QueryRow(q.String(), args...).Scan(dest...); err != nil {
		return err
	}
	g.WithoutGuidelines = int(counts[0].Int64)
	for i := range g.Versions {
		g.Versions[i].Labels = int(counts[i+1].Int64)
	}
	if g.Filter.Filter == stats.FilterAll {
		return nil
	}
	kept, err := tx.Query(`SELECT a.annotator, a.item_id, a.criterion, a.dimension FROM actions a
		WHERE a.guidelines_id = ? AND `+currentLabelAction, g.Filter.Version)
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
// made under another version, counting each, overall and per item.
func (r *labellingRead) apply(labels *scannedLabels) {
	if r == nil || len(r.cantJudge) == 0 && r.keep == nil {
		return
	}
	kinds := labels.kinds.list
	kept := labels.list[:0]
	at := map[string]int{} // item → its entry in LeftOut
	leftOut := func(item string) *stats.ItemLeftOut {
		i, ok := at[item]
		if !ok {
			i = len(r.in.LeftOut)
			at[item] = i
			r.in.LeftOut = append(r.in.LeftOut, stats.ItemLeftOut{ItemID: item})
		}
		return &r.in.LeftOut[i]
	}
	for _, l := range labels.list {
		k := kinds[l.kind]
		switch {
		case r.cantJudge[[2]string{k.annotator, l.item}]:
			r.in.CantJudgeLabels++
			leftOut(l.item).CantJudge++
		case r.keep != nil && !r.keep[labelAt{k.annotator, l.item, int64(l.crit), k.dim}]:
			r.in.Guidelines.LeftOut++
			leftOut(l.item).Guidelines++
		default:
			kept = append(kept, l)
		}
	}
	labels.list = kept
}
