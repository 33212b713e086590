package sessions

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// addColumns plans the verdicts and labels of every imported column of a
// dataset, and returns why columns are left out, one sentence each.
// rows[i] says whether the session holds items[i]. A verdict column takes
// the swapped and reason columns that belong to it (they follow it).
func (p *importPlan) addColumns(items []judge.Item, rows []bool, cols []dataset.ImportedColumn, file string, o ImportOptions) []string {
	var skipped []string
	for i := 0; i < len(cols); i++ {
		col := cols[i]
		if len(col.Values) != len(items) {
			skipped = append(skipped, fmt.Sprintf("column %s has %d values for %d rows (a bug in the reader): left out", col.Field, len(col.Values), len(items)))
			continue
		}
		vc := columnGroup{main: col}
		for i+1 < len(cols) && cols[i+1].Of == col.Field &&
			(cols[i+1].Role == dataset.RoleSwapped || cols[i+1].Role == dataset.RoleReason || cols[i+1].Role == dataset.RoleConfidence) {
			i++
			if len(cols[i].Values) != len(items) {
				continue
			}
			switch cols[i].Role {
			case dataset.RoleSwapped:
				vc.swapped = &cols[i]
			case dataset.RoleReason:
				vc.reason = &cols[i]
			default:
				vc.confidence = &cols[i]
			}
		}
		if why := p.addColumn(items, rows, vc, file, o); why != "" {
			skipped = append(skipped, why)
		}
	}
	return skipped
}

// columnGroup are a verdict or human column and, for a verdict column,
// the columns that belong to it.
type columnGroup struct {
	main                        dataset.ImportedColumn
	swapped, reason, confidence *dataset.ImportedColumn
}

// values are the texts whose scale is the column's: the verdicts in both
// orders.
func (vc columnGroup) values() []string {
	if vc.swapped == nil {
		return vc.main.Values
	}
	return append(slices.Clone(vc.main.Values), vc.swapped.Values...)
}

// names is how messages name the column: "gpt_result", or "gpt_result
// (with its swapped order gpt_result_swapped)".
func (vc columnGroup) names() string {
	if vc.swapped == nil {
		return vc.main.Field
	}
	return fmt.Sprintf("%s (with its swapped order %s)", vc.main.Field, vc.swapped.Field)
}

// addColumn plans the verdicts or labels of one imported column, and
// returns why it is left out ("" when it is not). A column's scale is the
// one --scale gives it, else the one its values leave no doubt about.
func (p *importPlan) addColumn(items []judge.Item, rows []bool, vc columnGroup, file string, o ImportOptions) string {
	col := vc.main
	var kind columnKind
	if s := o.Scales.For(col.Field); s != "" && !rawOutput(vc, s, o) {
		kind = columnKind{Scale: s, Dimension: dimensionFor(s)}
	} else {
		kind = inferColumn(vc.values())
	}
	what := "verdict"
	if col.Role == dataset.RoleHuman {
		what = "human"
	}
	if len(kind.Choices) > 0 {
		return ambiguousColumn(what, vc.names(), col.Field, kind)
	}
	if col.Role == dataset.RoleHuman {
		if kind.Scale == "" {
			return fmt.Sprintf("human column %s is left out: %s", col.Field, kind.Why)
		}
		p.addHumanColumn(items, rows, col, kind)
		return ""
	}
	switch {
	case kind.Scale != "":
		p.addVerdictColumn(items, rows, vc, file, kind)
	case o.Parser != nil && kind.NonBlank > 0:
		p.addParsedColumn(items, rows, vc, file, o.Parser)
	case kind.NonBlank > 0:
		return fmt.Sprintf("verdict column %s is left out: %s (first value %s); if it holds a judge's raw output, name the judge whose parser reads it with --judge NAME; if it holds values on a scale, say which with --scale %s=SCALE",
			vc.names(), kind.Why, quoteShort(firstValue(col.Values)), shellWord(col.Field))
	default:
		return fmt.Sprintf("verdict column %s is left out: %s", vc.names(), kind.Why)
	}
	return ""
}

// rawOutput reports whether a verdict column is better read with the
// --judge parser than on the scale --scale gives every column: the scale
// is not the column's own, and most of its values are not on it (a
// judge_output column beside the value columns).
func rawOutput(vc columnGroup, s judge.Scale, o ImportOptions) bool {
	if o.Parser == nil || vc.main.Role != dataset.RoleVerdict {
		return false
	}
	if _, own := o.Scales.Columns[vc.main.Field]; own {
		return false
	}
	read, present := 0, 0
	for _, v := range vc.values() {
		if strings.TrimSpace(v) == "" {
			continue
		}
		present++
		if _, ok := readValue(v, s); ok {
			read++
		}
	}
	return float64(read) < minReadableShare*float64(present)
}

// ambiguousColumn is the message for a column whose values fit several
// scales: Gavel lists them and reads none.
func ambiguousColumn(what, names, field string, kind columnKind) string {
	opts := make([]string, len(kind.Choices))
	for i, c := range kind.Choices {
		opts[i] = fmt.Sprintf("%s (--scale %s)", c.What, shellWord(field+"="+string(c.Scale)))
	}
	could := opts[0]
	if len(opts) > 1 {
		could = strings.Join(opts[:len(opts)-1], ", ") + " or " + opts[len(opts)-1]
	}
	return fmt.Sprintf("%s column %s is left out: %s, which could be %s; say which with --scale %s",
		what, names, kind.Why, could, shellWord(field+"=SCALE"))
}

// firstValue is the first value of a column that is not blank.
func firstValue(values []string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// addVerdictColumn plans a run of the imported judge from a column of
// verdict values, with its swapped order and reasons when the dataset has
// them.
func (p *importPlan) addVerdictColumn(items []judge.Item, rows []bool, vc columnGroup, file string, kind columnKind) {
	col := vc.main
	r := p.newRun(vc, judge.Info{
		Name:        ImportedJudge,
		Model:       col.Field,
		Description: fmt.Sprintf("verdicts imported from column %s of %s", vc.names(), file),
		Dimensions: []judge.Dimension{{Name: kind.Dimension, Scale: kind.Scale,
			Description: "the value of column " + col.Field}},
	}, kind.Scale)
	// A column holds a handful of distinct values: the verdicts with the
	// same one share its Values map instead of a map each.
	shared := map[float64]map[string]float64{}
	r.verdicts = verdictsOf(items, rows, vc, func(id, text string) judge.Verdict {
		v := judge.Verdict{ItemID: id, Raw: text, Status: judge.StatusOK}
		if x, ok := readValue(text, kind.Scale); ok {
			m, seen := shared[x]
			if !seen {
				m = map[string]float64{kind.Dimension: x}
				shared[x] = m
			}
			v.Values = m
		} else {
			v.Status, v.Error = judge.StatusParseError, unreadableValue(text, kind.Scale)
		}
		return v
	})
}

// addParsedColumn plans a run from a column of raw judge output, read
// with the named judge's parser.
func (p *importPlan) addParsedColumn(items []judge.Item, rows []bool, vc columnGroup, file string, parser *OutputParser) {
	r := p.newRun(vc, judge.Info{
		Name:        ImportedJudge,
		Model:       vc.main.Field,
		Description: fmt.Sprintf("%s verdicts read from the raw output in column %s of %s", parser.Judge, vc.names(), file),
		Dimensions:  parser.Dimensions,
		Params:      map[string]any{"parser": parser.Judge},
	}, "")
	r.verdicts = verdictsOf(items, rows, vc, func(id, text string) judge.Verdict {
		return parseOutput(parser, id, text)
	})
}

// newRun starts a planned run of a verdict column.
func (p *importPlan) newRun(vc columnGroup, info judge.Info, scale judge.Scale) *plannedRun {
	r := &plannedRun{column: vc.main.Field, info: info, scale: scale, swapped: vc.swapped != nil}
	if vc.swapped != nil {
		r.swappedColumn = vc.swapped.Field
	}
	if vc.reason != nil {
		r.reasonColumn = vc.reason.Field
	}
	if vc.confidence != nil {
		r.confidenceColumn = vc.confidence.Field
	}
	p.runs = append(p.runs, r)
	return r
}

// verdictsOf yields each row's verdict, and its swapped order, read from
// the column group's cells. A blank cell is no verdict. A swapped verdict
// is the same run's second order of the same judgment (Verdict.Swapped),
// its value already in the original A/B terms; the reason column gives
// the first order's reason, the confidence column the first order's
// confidence when it is ok (checkConfidences has refused any cell that is
// not a probability).
func verdictsOf(items []judge.Item, rows []bool, vc columnGroup, read func(id, text string) judge.Verdict) iter.Seq[judge.Verdict] {
	return func(yield func(judge.Verdict) bool) {
		for i := range items {
			if !rows[i] {
				continue
			}
			if text := vc.main.Values[i]; strings.TrimSpace(text) != "" {
				v := read(items[i].ID, text)
				if vc.reason != nil {
					v.Reason = vc.reason.Values[i]
				}
				if vc.confidence != nil && v.Status == judge.StatusOK {
					if c, ok, err := readConfidence(vc.confidence.Values[i]); ok && err == nil {
						v.Confidence = &c
					}
				}
				if !yield(v) {
					return
				}
			}
			if vc.swapped != nil {
				if text := vc.swapped.Values[i]; strings.TrimSpace(text) != "" {
					v := read(items[i].ID, text)
					v.Swapped = true
					if !yield(v) {
						return
					}
				}
			}
		}
	}
}

// parseOutput reads one raw output into a verdict for item id. A parser
// that panics on some text is a bug, but one bad row must not stop an
// import: it becomes a parse_error like any other unreadable output.
func parseOutput(parser *OutputParser, id, raw string) (v judge.Verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = judge.Verdict{ItemID: id, Raw: raw, Status: judge.StatusParseError,
				Error: fmt.Sprintf("the %s parser failed on this output: %v", parser.Judge, r)}
		}
	}()
	v, err := parser.Parse(raw)
	v.ItemID, v.Criterion = id, 0
	if v.Raw == "" {
		v.Raw = raw
	}
	switch {
	case err != nil:
		v.Status, v.Values = judge.StatusParseError, nil
		if v.Error == "" {
			v.Error = err.Error()
		}
	case v.Status == "":
		v.Status = judge.StatusOK
	}
	if v.Status != judge.StatusOK {
		v.Values = nil
		if v.Error == "" {
			v.Error = fmt.Sprintf("the %s parser could not read this output", parser.Judge)
		}
	}
	return v
}

// addHumanColumn plans the labels of an annotator named after a column of
// human labels. A value off the column's scale is no label: it is counted,
// and the first is kept for the summary.
func (p *importPlan) addHumanColumn(items []judge.Item, rows []bool, col dataset.ImportedColumn, kind columnKind) {
	a := &plannedAnnotator{name: col.Field, column: col.Field, dimension: kind.Dimension, scale: kind.Scale}
	a.groups = func(yield func([]Action) bool) {
		a.unreadable, a.firstUnreadable = 0, ""
		g := make([]Action, 1)
		for i, text := range col.Values {
			if !rows[i] || strings.TrimSpace(text) == "" {
				continue
			}
			x, ok := readValue(text, kind.Scale)
			if !ok {
				a.countUnreadable(text)
				continue
			}
			g[0] = Action{Kind: KindLabel, ItemID: items[i].ID, Dimension: kind.Dimension, Value: x, Via: ViaImported}
			if !yield(g) {
				return
			}
		}
	}
	p.annotators = append(p.annotators, a)
}
