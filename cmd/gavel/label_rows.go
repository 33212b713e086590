package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// labelRows are the rows a person labels on an item in a session: the
// rows the review screen offers for each of the session's judges
// (judge.Rows), each (criterion, dimension) once, on the scale of the
// first run that rates it — the run the screen opens with when no
// --judge reorders them.
func labelRows(runs []sessions.Run, it judge.Item) []judge.Row {
	var out []judge.Row
	type key struct {
		crit int
		dim  string
	}
	seen := map[key]bool{}
	for _, r := range runs {
		for _, rw := range judge.Rows(r.Info, it) {
			k := key{rw.Criterion, rw.Dimension.Name}
			if !seen[k] {
				seen[k] = true
				out = append(out, rw)
			}
		}
	}
	return out
}

// label is the label action VALUE makes on the row --dimension and
// --criterion pick out of the item's rows, its value read on that row's
// scale.
func (o *labelFlags) label(s *sessions.Store, it judge.Item, value string) (sessions.Action, error) {
	runs, err := s.Runs()
	if err != nil {
		return sessions.Action{}, err
	}
	rows := labelRows(runs, it)
	if len(rows) == 0 {
		return sessions.Action{}, usagef("no judge of %s rates the item %q, so it has no row to label (the review screen offers none either): run a judge on it first; --cant-judge, --note and --tag work without one",
			s.Path(), it.ID)
	}
	var picked []judge.Row
	for _, rw := range rows {
		if o.dimension != "" && !strings.EqualFold(rw.Dimension.Name, o.dimension) {
			continue
		}
		if o.set("criterion") && rw.Criterion != o.criterion {
			continue
		}
		picked = append(picked, rw)
	}
	switch {
	case len(picked) == 0:
		return sessions.Action{}, usagef("the item %q has no row %s: its rows are %s", it.ID, rowWanted(o), describeRows(rows))
	case len(picked) > 1:
		return sessions.Action{}, usagef("the item %q has %d rows%s: say which VALUE labels with %s (its rows are %s)",
			it.ID, len(picked), rowOf(o), rowFlags(picked), describeRows(picked))
	}
	rw := picked[0]
	x, ok := rw.Dimension.Scale.Read(value)
	if !ok {
		return sessions.Action{}, usagef("%q is not on the scale of %s (%s): give %s", value, describeRow(rw), rw.Dimension.Scale, acceptedValues(rw.Dimension.Scale))
	}
	return sessions.Action{Kind: sessions.KindLabel, ItemID: it.ID, Criterion: rw.Criterion, Dimension: rw.Dimension.Name, Value: x}, nil
}

// rowWanted says which row the flags asked for.
func rowWanted(o *labelFlags) string {
	var parts []string
	if o.dimension != "" {
		parts = append(parts, strconv.Quote(o.dimension))
	}
	if o.set("criterion") {
		parts = append(parts, fmt.Sprintf("on criterion %d", o.criterion))
	}
	return strings.Join(parts, " ")
}

// rowOf is " matching --dimension …" when flags narrowed the rows.
func rowOf(o *labelFlags) string {
	if w := rowWanted(o); w != "" {
		return " " + w
	}
	return ""
}

// rowFlags are the flags that tell the rows apart.
func rowFlags(rows []judge.Row) string {
	dims, crits := map[string]bool{}, map[int]bool{}
	for _, rw := range rows {
		dims[rw.Dimension.Name], crits[rw.Criterion] = true, true
	}
	switch {
	case len(dims) > 1 && len(crits) > 1:
		return "--criterion K and --dimension D"
	case len(crits) > 1:
		return "--criterion K"
	}
	return "--dimension D"
}

// describeRow is "correct", or "score on criterion 2".
func describeRow(rw judge.Row) string {
	if rw.Criterion > 0 {
		return fmt.Sprintf("%s on criterion %d", rw.Dimension.Name, rw.Criterion)
	}
	return rw.Dimension.Name
}

// describeRows lists rows with their scales: "correct (YES / NO), score
// on criterion 2 (1–5)".
func describeRows(rows []judge.Row) string {
	parts := make([]string, len(rows))
	for i, rw := range rows {
		parts[i] = fmt.Sprintf("%s (%s)", describeRow(rw), rw.Dimension.Scale.Describe())
	}
	return strings.Join(parts, ", ")
}

// acceptedValues says which VALUEs a scale takes, as Scale.Read reads
// them.
func acceptedValues(sc judge.Scale) string {
	names := sc.Names()
	switch sc.Kind() {
	case judge.KindBinary:
		return "YES or NO (or 1 / 0)"
	case judge.KindPairwise:
		if sc.AllowsTie() {
			return "A, B or tie"
		}
		return "A or B"
	case judge.KindOrdinal:
		if labels := sc.Labels(); len(labels) > 0 {
			parts := make([]string, len(names))
			for i, n := range names {
				parts[i] = n
				if i < len(labels) && labels[i] != "" {
					parts[i] += " (" + labels[i] + ")"
				}
			}
			return oneOf(parts)
		}
		if len(names) > 12 {
			return "a whole number from " + names[0] + " to " + names[len(names)-1]
		}
	}
	return oneOf(names)
}

// oneOf is "a, b or c".
func oneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// nearestIDs are the item ids a mistyped id may be, at most three.
func nearestIDs(id string, ids []string) []string { return dataset.Nearest(id, ids, 3) }

// describeActions says what a group of actions recorded or undid:
// "correct = YES, note, tag "format"", each value as its scale writes it.
func describeActions(s *sessions.Store, acts []sessions.Action) string {
	runs, _ := s.Runs() // only for the values' spelling: numbers will do without
	var parts []string
	for _, a := range acts {
		switch a.Kind {
		case sessions.KindLabel, sessions.KindAccept:
			row := judge.Row{Criterion: a.Criterion, Dimension: judge.Dimension{Name: a.Dimension}}
			v := strconv.FormatFloat(a.Value, 'g', -1, 64)
			for _, r := range runs {
				if d, ok := r.Info.Dimension(a.Dimension); ok {
					v = d.Scale.Format(a.Value)
					break
				}
			}
			parts = append(parts, fmt.Sprintf("%s = %s", describeRow(row), v))
		case sessions.KindCantJudge:
			parts = append(parts, "can't judge ("+a.Reason+")")
		case sessions.KindNote:
			if a.Note == "" {
				parts = append(parts, "note removed")
			} else {
				parts = append(parts, "note")
			}
		case sessions.KindTag:
			if a.Value == 1 {
				parts = append(parts, fmt.Sprintf("tag %q", a.Tag))
			} else {
				parts = append(parts, fmt.Sprintf("tag %q off", a.Tag))
			}
		}
	}
	return strings.Join(parts, ", ")
}
