package sessions

import (
	"database/sql"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// What an export says of SPEC "Labelling well", per annotator, in columns
// written only when the session has something for them (so that an
// export of a session without any stays as it was):
//
//	label_guidelines:ANNOTATOR  the guidelines version the item's latest current label
//	                            was made under (the session's version number)
//	label_shown:ANNOTATOR       whether the judge's verdict was on screen then:
//	                            shown or blind (empty: not recorded)
//	label_shown_run:ANNOTATOR   which run's verdict was on screen (its name, as the
//	                            verdict columns name it), beside shown
//	retest:ANNOTATOR:DIMENSION  the re-test label (the item shown again, blind), like labels
//	cant_judge:ANNOTATOR        the reason the item cannot be judged: gold-wrong,
//	                            ambiguous, unreadable or other
//	cant_judge_note:ANNOTATOR   what "other" (or the person) said about it
//	tags:ANNOTATOR              the item's failure tags, joined by commas (names hold none)

// Values of label_shown.
const (
	exportShown = "shown"
	exportBlind = "blind"
)

// labelMeta is the guidelines version and visibility of a label's action,
// and the run shown.
type labelMeta struct {
	guidelines int64
	shown      Visibility
	shownRun   int64
}

// exportLabelling is an annotator's labelling columns, by item.
type exportLabelling struct {
	// guidelines and shown: some current label of the annotator records
	// one (the columns are written); shownRun: some records a run shown.
	guidelines, shown, shownRun bool
	retestDims                  []string
	retests                     map[string][]Label
	cantJudge                   map[string]CantJudge
	cantNote                    bool // some can't-judge has a note
	tags                        map[string][]string
}

// readLabelling reads the labelling columns of every annotator, and the
// guidelines and visibility of every current label's action.
func (s *Store) readLabelling() (map[string]*exportLabelling, map[int64]labelMeta, error) {
	out := map[string]*exportLabelling{}
	of := func(annotator string) *exportLabelling {
		l := out[annotator]
		if l == nil {
			l = &exportLabelling{retests: map[string][]Label{}, cantJudge: map[string]CantJudge{}, tags: map[string][]string{}}
			out[annotator] = l
		}
		return l
	}
	meta := map[int64]labelMeta{}
	err := s.read("reading the labelling record", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT a.annotator, a.id, a.guidelines_id, a.shown
			FROM actions a
			WHERE (a.guidelines_id IS NOT NULL OR a.shown IS NOT NULL) AND ` + currentLabelAction)
		if err != nil {
			return err
		}
		for rows.Next() {
			var annotator string
			var id int64
			var g, shown sql.NullInt64
			if err := rows.Scan(&annotator, &id, &g, &shown); err != nil {
				rows.Close()
				return err
			}
			meta[id] = labelMeta{guidelines: g.Int64, shown: shownFromColumn(shown), shownRun: shownRunFromColumn(shown)}
			l := of(annotator)
			l.guidelines = l.guidelines || g.Valid
			l.shown = l.shown || shown.Valid
			l.shownRun = l.shownRun || shownRunFromColumn(shown) > 0
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		return readRetests(tx, of)
	})
	if err != nil {
		return nil, nil, err
	}
	cjs, err := s.CantJudges("")
	if err != nil {
		return nil, nil, err
	}
	for _, c := range cjs {
		l := of(c.Annotator)
		l.cantJudge[c.ItemID] = c
		l.cantNote = l.cantNote || c.Note != ""
	}
	tags, err := s.ItemTags("")
	if err != nil {
		return nil, nil, err
	}
	for _, t := range tags {
		l := of(t.Annotator)
		l.tags[t.ItemID] = append(l.tags[t.ItemID], t.Tag)
	}
	return out, meta, nil
}

// readRetests reads each annotator's re-test labels: per (item,
// criterion, dimension) the latest live re-test label or accept.
func readRetests(tx *sql.Tx, of func(string) *exportLabelling) error {
	codec, err := loadCodec(tx)
	if err != nil {
		return err
	}
	rows, err := tx.Query(`SELECT annotator, item_id, criterion, dimension, value, id
		FROM live_actions WHERE retest = 1 AND kind IN ('label', 'accept') ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var lb Label
		var value any
		if err := rows.Scan(&lb.Annotator, &lb.ItemID, &lb.Criterion, &lb.Dimension, &value, &lb.ActionID); err != nil {
			return err
		}
		x, ok := codec.decode(lb.Dimension, value)
		if !ok {
			continue
		}
		lb.Value = x
		l := of(lb.Annotator)
		if !slices.Contains(l.retestDims, lb.Dimension) {
			l.retestDims = append(l.retestDims, lb.Dimension)
		}
		prev := l.retests[lb.ItemID]
		if k := slices.IndexFunc(prev, func(p Label) bool { return p.Criterion == lb.Criterion && p.Dimension == lb.Dimension }); k >= 0 {
			prev[k] = lb // a later re-test of the same row
			continue
		}
		l.retests[lb.ItemID] = append(prev, lb)
	}
	return rows.Err()
}

// labellingColumns are an annotator's labelling columns, in order.
func (a exportAnnotator) labellingColumns() []string {
	l := a.labelling
	if l == nil {
		return nil
	}
	var cols []string
	if l.guidelines {
		cols = append(cols, prefixLabelGuidelines+a.name)
	}
	if l.shown {
		cols = append(cols, prefixLabelShown+a.name)
	}
	if l.shownRun {
		cols = append(cols, prefixLabelShownRun+a.name)
	}
	for _, d := range l.retestDims {
		cols = append(cols, prefixRetest+a.name+":"+d)
	}
	if len(l.cantJudge) > 0 {
		cols = append(cols, prefixCantJudge+a.name)
		if l.cantNote {
			cols = append(cols, prefixCantJudgeNote+a.name)
		}
	}
	if len(l.tags) > 0 {
		cols = append(cols, prefixTags+a.name)
	}
	return cols
}

// labellingCells are an annotator's labelling cells for one item,
// parallel to labellingColumns.
func (a exportAnnotator) labellingCells(t *exportTable, it judge.Item) []any {
	id := it.ID
	l := a.labelling
	if l == nil {
		return nil
	}
	var out []any
	if l.guidelines || l.shown {
		// The item's latest current label (the highest action id).
		var m labelMeta
		var latest int64
		for _, lb := range a.labels[id] {
			if lb.ActionID > latest {
				latest, m = lb.ActionID, t.labelMeta[lb.ActionID]
			}
		}
		if l.guidelines {
			var g any
			if latest > 0 && m.guidelines > 0 {
				g = float64(m.guidelines)
			}
			out = append(out, g)
		}
		if l.shown {
			var v any
			switch {
			case latest == 0:
			case m.shown == ShownVerdict:
				v = exportShown
			case m.shown == ShownBlind:
				v = exportBlind
			}
			out = append(out, v)
		}
		if l.shownRun {
			var run any
			if latest > 0 && m.shown == ShownVerdict {
				if name, ok := t.runNames[m.shownRun]; ok {
					run = name
				}
			}
			out = append(out, run)
		}
	}
	for _, d := range l.retestDims {
		c, _ := labelCell(l.retests[id], d, len(it.Rubric), t.scales[d])
		out = append(out, c)
	}
	if len(l.cantJudge) > 0 {
		c, ok := l.cantJudge[id]
		var reason, note any
		if ok {
			reason, note = c.Reason, textOrNil(c.Note)
		}
		out = append(out, reason)
		if l.cantNote {
			out = append(out, note)
		}
	}
	if len(l.tags) > 0 {
		out = append(out, textOrNil(strings.Join(l.tags[id], ",")))
	}
	return out
}

// reviewedBy reports whether an annotator has a decision on the item:
// a current label or a can't-judge (which makes it reviewed).
func (a exportAnnotator) reviewedBy(id string) bool {
	if len(a.labels[id]) > 0 {
		return true
	}
	if a.labelling != nil {
		_, ok := a.labelling.cantJudge[id]
		return ok
	}
	return false
}

// picked reports whether an item passes the export's can't-judge and tag
// filters.
func (t *exportTable) picked(id string, opts ExportOptions) bool {
	if !opts.CantJudge && opts.Reason == "" && opts.Tag == "" {
		return true
	}
	cant, tagged := !opts.CantJudge && opts.Reason == "", opts.Tag == ""
	for _, a := range t.anns {
		l := a.labelling
		if l == nil {
			continue
		}
		if c, ok := l.cantJudge[id]; ok && (opts.Reason == "" || c.Reason == opts.Reason) {
			cant = true
		}
		if opts.Tag != "" && slices.Contains(l.tags[id], opts.Tag) {
			tagged = true
		}
	}
	return cant && tagged
}
