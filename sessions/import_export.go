package sessions

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

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

// runColumn reports whether an exported column belongs to a run.
func runColumn(kind string) bool {
	switch kind {
	case prefixVerdict, prefixStatus, prefixReason, prefixError, prefixConfidence, prefixWithheld, prefixSwapped, prefixSwappedStatus:
		return true
	}
	return false
}

// addExported plans the runs, labels and notes of rows written by `gavel
// export`. An export writes each value as a reviewer reads it (YES/NO, a
// number, a category, A/B/tie) but not its scale, so a dimension's scale
// is read from all its values in the file, runs and labels together (one
// scale per dimension, as a session keeps), unless --scale names it (by
// the dimension's name).
func (p *importPlan) addExported(items []judge.Item, rows []bool, file string, scales ImportScales, skipped *[]string) {
	var exp []exportedRow
	dimTexts := map[string][]string{} // dimension -> every value written
	var dimSeen []string
	dimOrder := map[string][]string{} // run -> its dimensions, in order
	var runOrder []string
	runSeen := map[string]bool{}
	perCriterion := map[string]bool{}
	annOrder := []string{}
	annSeen := map[string]bool{}
	marked := exportMarked(items, rows)
	for i, it := range items {
		if !marked[i] {
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
			if c.kind == prefixVerdict || c.kind == prefixSwapped || c.kind == prefixLabel {
				if _, seen := dimTexts[c.dim]; !seen {
					dimSeen = append(dimSeen, c.dim)
				}
				dimTexts[c.dim] = append(dimTexts[c.dim], cl.texts...)
			}
			switch {
			case runColumn(c.kind):
				if !runSeen[c.owner] {
					runSeen[c.owner] = true
					runOrder = append(runOrder, c.owner)
				}
				if c.kind == prefixVerdict && !slices.Contains(dimOrder[c.owner], c.dim) {
					dimOrder[c.owner] = append(dimOrder[c.owner], c.dim)
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
	dimScale := map[string]judge.Scale{}
	for _, d := range dimSeen {
		if s := scales.For(d); s != "" {
			dimScale[d] = s
			continue
		}
		s, ok := exportedScale(dimTexts[d])
		if !ok {
			*skipped = append(*skipped, fmt.Sprintf("dimension %s of the export is left out: its values (%s) are on no one scale; say which with --scale %s",
				d, listValues(distinctValues(dimTexts[d])), shellWord(d+"=SCALE")))
			continue
		}
		dimScale[d] = s
	}
	for _, name := range runOrder {
		p.runs = append(p.runs, exportedRun(name, dimOrder[name], dimScale, perCriterion[name], exp, file))
	}
	p.exported = true
	for _, name := range annOrder {
		p.annotators = append(p.annotators, exportedAnnotator(name, exp, dimScale, p.runID))
	}
}

// exportMarked says which of the rows the session holds may be rows of
// an export (mayBeExported): a byte search through every row's text, a
// second at a million rows, shared among the cores.
func exportMarked(items []judge.Item, rows []bool) []bool {
	marked := make([]bool, len(items))
	parts := min(runtime.GOMAXPROCS(0), max(1, len(items)/10000))
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(items)/parts, (p+1)*len(items)/parts
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				marked[i] = rows[i] && len(items[i].Fields) > 0 && mayBeExported(items[i].Fields)
			}
		})
	}
	wg.Wait()
	return marked
}

// exportedScale tells a dimension's scale from its exported values, as
// Export writes them: YES/NO is binary; A, B and tie pairwise; other
// names nominal, the categories in the order met; numbers ternary when
// they are among 0, 0.5 and 1 (binary was written YES/NO), Likert within
// 1–5, else the whole-number range from 0 (when a 0 is there) or 1 to 10,
// or to 100. The export does not say an ordinal range or a nominal
// category no value uses: --scale DIMENSION=SCALE does.
func exportedScale(texts []string) (judge.Scale, bool) {
	nums := map[float64]int{}
	var names []string
	yesno, prefs := 0, 0
	for _, t := range texts {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
		case t == "YES" || t == "NO":
			yesno++
		case t == "A" || t == "B" || t == "tie":
			prefs++
		default:
			if x, ok := readNumber(t); ok {
				nums[x]++
			} else if !slices.Contains(names, t) {
				names = append(names, t)
			}
		}
	}
	switch {
	case len(nums) > 0 && (yesno > 0 || prefs > 0 || len(names) > 0):
		return "", false
	case len(names) > 0 || yesno > 0 && prefs > 0:
		if yesno > 0 {
			names = append([]string{"NO", "YES"}, names...)
		}
		if prefs > 0 {
			names = append(names, "A", "B", "tie")
		}
		s, err := judge.ParseScale("nominal:" + strings.Join(names, ","))
		return s, err == nil
	case prefs > 0:
		return judge.Pairwise, true
	case len(nums) == 0 && yesno > 0:
		return judge.Binary, true
	case len(nums) == 0:
		return "", false
	case onScale(nums, judge.Ternary):
		return judge.Ternary, true
	case onScale(nums, judge.Likert):
		return judge.Likert, true
	}
	lo, hi := 1, 10
	for x := range nums {
		switch {
		case x != float64(int(x)) || x < 0 || x > 100:
			return "", false
		case x == 0:
			lo = 0
		case x > 10:
			hi = 100
		}
	}
	return judge.Scale(fmt.Sprintf("ordinal:%d-%d", lo, hi)), true
}

// exportedRun plans a run of an exported file, in both orders.
func exportedRun(name string, order []string, dimScale map[string]judge.Scale, perCriterion bool, rows []exportedRow, file string) *plannedRun {
	judgeName, model := parseRunName(name)
	r := &plannedRun{column: name, info: judge.Info{
		Name: judgeName, Model: model, PerCriterion: perCriterion,
		Description: fmt.Sprintf("verdicts imported from the export %s", file),
	}}
	for _, d := range order {
		if s, ok := dimScale[d]; ok {
			r.info.Dimensions = append(r.info.Dimensions, judge.Dimension{Name: d, Scale: s})
		}
	}
	// An export is read whole (its cells by column): its verdicts are
	// held too, once.
	var verdicts []judge.Verdict
	for _, row := range rows {
		status := row.cells[exportColumn{kind: prefixStatus, owner: name}]
		reason := row.cells[exportColumn{kind: prefixReason, owner: name}]
		errs := row.cells[exportColumn{kind: prefixError, owner: name}]
		conf := row.cells[exportColumn{kind: prefixConfidence, owner: name}]
		held := row.cells[exportColumn{kind: prefixWithheld, owner: name}]
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
			if x, err := strconv.ParseFloat(conf.at(k), 64); err == nil && x >= 0 && x <= 1 {
				v.Confidence = &x
			}
			if h := held.at(k); h != "" {
				v.Extra = map[string]any{ExtraConfidenceWithheld: h}
			}
			verdicts = append(verdicts, exportedValues(v, r.info.Dimensions, func(dim string) string {
				return row.cells[exportColumn{kind: prefixVerdict, owner: name, dim: dim}].at(k)
			}))
		}
		// The swapped order (the swap audit) is written for the whole
		// item only, with its status.
		swStatus := row.cells[exportColumn{kind: prefixSwappedStatus, owner: name}].at(0)
		hasValue := false
		for _, d := range r.info.Dimensions {
			hasValue = hasValue || row.cells[exportColumn{kind: prefixSwapped, owner: name, dim: d.Name}].at(0) != ""
		}
		if swStatus != "" || hasValue {
			v := judge.Verdict{ItemID: row.item.ID, Swapped: true, Status: judge.Status(swStatus)}
			verdicts = append(verdicts, exportedValues(v, r.info.Dimensions, func(dim string) string {
				return row.cells[exportColumn{kind: prefixSwapped, owner: name, dim: dim}].at(0)
			}))
			r.swapped = true
		}
	}
	r.verdicts = slices.Values(verdicts)
	return r
}

// exportedValues fills an exported verdict's values from its cells.
func exportedValues(v judge.Verdict, dims []judge.Dimension, text func(dim string) string) judge.Verdict {
	if v.Status == "" {
		v.Status = judge.StatusOK
	}
	if v.Status != judge.StatusOK && v.Status != judge.StatusTruncated {
		return v
	}
	for _, d := range dims {
		if x, ok := exportedValue(text(d.Name), d.Scale); ok {
			if v.Values == nil {
				v.Values = map[string]float64{}
			}
			v.Values[d.Name] = x
		}
	}
	return v
}

// exportedAnnotator plans the labels and notes of an annotator of an
// exported file; a label whose dimension has no scale, or off it, is
// counted as unreadable. runID gives the session id of the run a label
// was shown with (label_shown_run), when its groups are read: a label
// shown with a run it cannot name is recorded with the visibility
// unknown, as a decision whose judge is not known.
func exportedAnnotator(name string, rows []exportedRow, dimScale map[string]judge.Scale, runID func(string) int64) *plannedAnnotator {
	a := &plannedAnnotator{name: name, column: prefixLabel + name}
	groups := map[string][]Action{}
	var order []string // item ids in dataset order
	// shownRun names, per item whose labels were made with the verdict
	// shown, the run shown (label_shown_run; "" when not said).
	shownRun := map[string]string{}
	add := func(itemID string, act Action) {
		if _, seen := groups[itemID]; !seen {
			order = append(order, itemID)
		}
		groups[itemID] = append(groups[itemID], act)
	}
	for _, row := range rows {
		via := foreignPlanVia(row.cells[exportColumn{kind: prefixVia, owner: name}].at(0))
		if via == "" {
			via = ViaImported
		}
		shown := exportedShown(row.cells[exportColumn{kind: prefixLabelShown, owner: name}].at(0))
		if shown == ShownVerdict {
			shownRun[row.item.ID] = strings.TrimSpace(row.cells[exportColumn{kind: prefixLabelShownRun, owner: name}].at(0))
		}
		for c, cl := range row.cells {
			if (c.kind != prefixLabel && c.kind != prefixRetest) || c.owner != name {
				continue
			}
			scale, known := dimScale[c.dim]
			for _, k := range cl.criteria() {
				x, ok := exportedValue(cl.at(k), scale)
				if !ok || !known {
					a.countUnreadable(cl.at(k))
					continue
				}
				act := Action{Kind: KindLabel, ItemID: row.item.ID, Criterion: k, Dimension: c.dim, Value: x, Via: via, Shown: shown}
				if c.kind == prefixRetest {
					// As the screen records a re-test: blind, reached by
					// the re-test schedule.
					act.Retest, act.Shown, act.Via = true, ShownBlind, ViaRetest
				}
				add(row.item.ID, act)
			}
		}
		if note := row.cells[exportColumn{kind: prefixNote, owner: name}].at(0); note != "" {
			add(row.item.ID, Action{Kind: KindNote, ItemID: row.item.ID, Note: note, Via: via})
		}
		for _, act := range exportedDecisions(a, row, name, via) {
			add(row.item.ID, act)
		}
	}
	// Map order is random: keep each item's labels in a fixed order.
	for _, g := range groups {
		sortActions(g)
	}
	unreadable, first := a.unreadable, a.firstUnreadable
	a.groups = func(yield func([]Action) bool) {
		a.unreadable, a.firstUnreadable = unreadable, first
		var buf []Action
		for _, id := range order {
			g := groups[id]
			if name, ok := shownRun[id]; ok {
				// The run's id is known once the runs are written.
				run := int64(0)
				if name != "" {
					run = runID(name)
				}
				buf = append(buf[:0], g...)
				for i := range buf {
					if buf[i].Shown != ShownVerdict {
						continue
					}
					if buf[i].ShownRun = run; run == 0 {
						buf[i].Shown = ShownUnknown
					}
				}
				g = buf
			}
			if !yield(g) {
				return
			}
		}
	}
	for d, s := range dimScale {
		a.scales = append(a.scales, judge.Dimension{Name: d, Scale: s})
	}
	return a
}

// exportedValue reads an exported value on its dimension's scale; ok is
// false for a blank cell or a value off the scale.
func exportedValue(t string, scale judge.Scale) (float64, bool) {
	if strings.TrimSpace(t) == "" || scale == "" {
		return 0, false
	}
	return readValue(t, scale)
}

// sortActions orders one item's imported actions by kind (importRank),
// then criterion, dimension and tag.
func sortActions(g []Action) {
	less := func(a, b Action) bool {
		if ra, rb := importRank(a), importRank(b); ra != rb {
			return ra < rb
		}
		if a.Criterion != b.Criterion {
			return a.Criterion < b.Criterion
		}
		if a.Dimension != b.Dimension {
			return a.Dimension < b.Dimension
		}
		return a.Tag < b.Tag
	}
	for i := 1; i < len(g); i++ {
		for j := i; j > 0 && less(g[j], g[j-1]); j-- {
			g[j], g[j-1] = g[j-1], g[j]
		}
	}
}

// importRank orders the kinds of an imported item's group: labels, then
// re-tests, then the can't-judge (after the labels, so that it is the
// person's latest decision, as the export says), tags and the note.
func importRank(a Action) int {
	switch {
	case a.Retest:
		return 1
	case a.Kind == KindCantJudge:
		return 2
	case a.Kind == KindTag:
		return 3
	case a.Kind == KindNote:
		return 4
	}
	return 0
}

// maxKey is the largest key of a set, -1 when empty.
func maxKey(m map[int]bool) int {
	mx := -1
	for k := range m {
		mx = max(mx, k)
	}
	return mx
}
