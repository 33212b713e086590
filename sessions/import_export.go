package sessions

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// cell is one verdict or label cell of an exported row: a value for the
// whole item, or a list indexed by criterion (0 is the whole item, k is
// rubric criterion k). Texts are "" where there is nothing.
type cell struct {
	texts []string
	list  bool
}

// readCell reads a cell as JSONL holds it (a string, a number, null or a
// list) or as CSV does (the same, written as text).
func readCell(raw json.RawMessage) cell {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return cell{}
	}
	if s, ok := v.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "[") {
		var list []any
		if err := json.Unmarshal([]byte(s), &list); err == nil {
			v = list
		}
	}
	if list, ok := v.([]any); ok {
		c := cell{list: true, texts: make([]string, len(list))}
		for i, e := range list {
			c.texts[i] = scalarText(e)
		}
		return c
	}
	return cell{texts: []string{scalarText(v)}}
}

// scalarText is the text of a decoded JSON scalar ("" for null).
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// at returns the text for criterion k.
func (c cell) at(k int) string {
	if !c.list {
		if k == 0 && len(c.texts) == 1 {
			return c.texts[0]
		}
		return ""
	}
	if k < len(c.texts) {
		return c.texts[k]
	}
	return ""
}

// criteria returns the criteria the cell holds something for.
func (c cell) criteria() []int {
	var ks []int
	for k, t := range c.texts {
		if t != "" {
			ks = append(ks, k)
		}
	}
	return ks
}

// exportedRow is one row of an exported file, its cells by column.
type exportedRow struct {
	item  judge.Item
	cells map[exportColumn]cell
}

// addExported plans the runs, labels and notes of rows written by `gavel
// export`. Binary values were exported as YES/NO, so numbers mean a
// ternary or Likert dimension.
func (p *importPlan) addExported(items []judge.Item, rows []bool, file string, skipped *[]string) {
	var exp []exportedRow
	runDims := map[string]map[string][]string{} // run -> dimension -> texts
	dimOrder := map[string][]string{}
	var runOrder []string
	perCriterion := map[string]bool{}
	annOrder := []string{}
	annSeen := map[string]bool{}
	for i, it := range items {
		if !rows[i] {
			continue
		}
		fields, ok := exportFields(it.Fields)
		if !ok {
			continue
		}
		row := exportedRow{item: it, cells: map[exportColumn]cell{}}
		for _, f := range fields {
			c, ok := parseExportColumn(f.name)
			if !ok || c.kind == colFields || c.kind == prefixSegment {
				continue
			}
			cl := readCell(f.value)
			row.cells[c] = cl
			switch c.kind {
			case prefixVerdict, prefixStatus, prefixReason, prefixError:
				if runDims[c.owner] == nil {
					runDims[c.owner] = map[string][]string{}
					runOrder = append(runOrder, c.owner)
				}
				if _, seen := runDims[c.owner][c.dim]; c.kind == prefixVerdict && !seen {
					dimOrder[c.owner] = append(dimOrder[c.owner], c.dim)
				}
				if c.kind == prefixVerdict {
					runDims[c.owner][c.dim] = append(runDims[c.owner][c.dim], cl.texts...)
				}
				perCriterion[c.owner] = perCriterion[c.owner] || cl.list
			default:
				if !annSeen[c.owner] {
					annSeen[c.owner] = true
					annOrder = append(annOrder, c.owner)
				}
			}
		}
		exp = append(exp, row)
	}
	if len(exp) == 0 {
		return
	}
	for _, name := range runOrder {
		p.runs = append(p.runs, exportedRun(name, dimOrder[name], runDims[name], perCriterion[name], exp, file, skipped))
	}
	for _, name := range annOrder {
		p.annotators = append(p.annotators, exportedAnnotator(name, exp))
	}
}

// exportedScale tells a dimension's scale from its exported values:
// YES/NO is binary; numbers are ternary when they hold a 0 or 0.5, or
// only 1 (the two cannot be told apart then), Likert otherwise.
func exportedScale(texts []string) (judge.Scale, bool) {
	nums := map[float64]int{}
	words := 0
	for _, t := range texts {
		switch u := strings.ToUpper(strings.TrimSpace(t)); {
		case u == "":
		case u == "YES" || u == "NO":
			words++
		default:
			x, ok := readNumber(t)
			if !ok {
				return "", false
			}
			nums[x]++
		}
	}
	switch {
	case len(nums) == 0:
		return judge.Binary, words > 0
	case words > 0:
		return "", false
	case onScale(nums, judge.Ternary):
		return judge.Ternary, true
	case onScale(nums, judge.Likert):
		return judge.Likert, true
	}
	return "", false
}

// exportedRun plans a run of an exported file.
func exportedRun(name string, order []string, dims map[string][]string, perCriterion bool, rows []exportedRow, file string, skipped *[]string) *plannedRun {
	judgeName, model := parseRunName(name)
	r := &plannedRun{column: name, info: judge.Info{
		Name: judgeName, Model: model, PerCriterion: perCriterion,
		Description: fmt.Sprintf("verdicts imported from the export %s", file),
	}}
	for _, d := range order {
		scale, ok := exportedScale(dims[d])
		if !ok {
			*skipped = append(*skipped, fmt.Sprintf("column %s%s:%s is left out: its values are on no one scale (YES/NO, 0/0.5/1 or 1–5)", prefixVerdict, name, d))
			continue
		}
		r.info.Dimensions = append(r.info.Dimensions, judge.Dimension{Name: d, Scale: scale})
	}
	for _, row := range rows {
		status := row.cells[exportColumn{kind: prefixStatus, owner: name}]
		reason := row.cells[exportColumn{kind: prefixReason, owner: name}]
		errs := row.cells[exportColumn{kind: prefixError, owner: name}]
		crits := map[int]bool{}
		for _, k := range status.criteria() {
			crits[k] = true
		}
		for _, d := range r.info.Dimensions {
			for _, k := range row.cells[exportColumn{kind: prefixVerdict, owner: name, dim: d.Name}].criteria() {
				crits[k] = true
			}
		}
		for k := 0; k <= maxKey(crits); k++ {
			if !crits[k] {
				continue
			}
			v := judge.Verdict{ItemID: row.item.ID, Criterion: k, Status: judge.Status(status.at(k)),
				Reason: reason.at(k), Error: errs.at(k)}
			if v.Status == "" {
				v.Status = judge.StatusOK
			}
			if v.Status == judge.StatusOK {
				for _, d := range r.info.Dimensions {
					t := row.cells[exportColumn{kind: prefixVerdict, owner: name, dim: d.Name}].at(k)
					if x, ok := exportedValue(t, d.Scale); ok {
						if v.Values == nil {
							v.Values = map[string]float64{}
						}
						v.Values[d.Name] = x
					}
				}
			}
			r.verdicts = append(r.verdicts, v)
		}
	}
	return r
}

// exportedAnnotator plans the labels and notes of an annotator of an
// exported file.
func exportedAnnotator(name string, rows []exportedRow) *plannedAnnotator {
	a := &plannedAnnotator{name: name, column: prefixLabel + name}
	for _, row := range rows {
		via := row.cells[exportColumn{kind: prefixVia, owner: name}].at(0)
		if via == "" {
			via = ViaImported
		}
		for c, cl := range row.cells {
			if c.kind != prefixLabel || c.owner != name {
				continue
			}
			for _, k := range cl.criteria() {
				x, ok := exportedValue(cl.at(k), "")
				if !ok {
					a.unreadable++
					continue
				}
				a.add(row.item.ID, Action{Kind: KindLabel, ItemID: row.item.ID, Criterion: k, Dimension: c.dim, Value: x, Via: via})
			}
		}
		if note := row.cells[exportColumn{kind: prefixNote, owner: name}].at(0); note != "" {
			a.add(row.item.ID, Action{Kind: KindNote, ItemID: row.item.ID, Note: note, Via: via})
		}
	}
	// Map order is random: keep each item's labels in a fixed order.
	for id, g := range a.groups {
		sortActions(g)
		a.groups[id] = g
	}
	return a
}

// exportedValue reads an exported value: YES/NO, or a number on the
// scale (any finite number when scale is "", for labels).
func exportedValue(t string, scale judge.Scale) (float64, bool) {
	switch strings.ToUpper(strings.TrimSpace(t)) {
	case "":
		return 0, false
	case "YES":
		return 1, scale == "" || scale == judge.Binary
	case "NO":
		return 0, scale == "" || scale == judge.Binary
	}
	x, ok := readNumber(t)
	if !ok || (scale != "" && !scale.Valid(x)) {
		return 0, false
	}
	return x, true
}

// sortActions orders one item's imported actions: labels by criterion and
// dimension, notes last.
func sortActions(g []Action) {
	less := func(a, b Action) bool {
		if (a.Kind == KindNote) != (b.Kind == KindNote) {
			return b.Kind == KindNote
		}
		if a.Criterion != b.Criterion {
			return a.Criterion < b.Criterion
		}
		return a.Dimension < b.Dimension
	}
	for i := 1; i < len(g); i++ {
		for j := i; j > 0 && less(g[j], g[j-1]); j-- {
			g[j], g[j-1] = g[j-1], g[j]
		}
	}
}

// maxKey is the largest key of a set, -1 when empty.
func maxKey(m map[int]bool) int {
	mx := -1
	for k := range m {
		mx = max(mx, k)
	}
	return mx
}
