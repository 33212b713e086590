package sessions

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// addColumn plans the verdicts or labels of one imported column, and
// returns why it is left out ("" when it is not). rows[i] says whether the
// session holds items[i].
func (p *importPlan) addColumn(items []judge.Item, rows []bool, col dataset.ImportedColumn, file string, parser *OutputParser) string {
	kind := inferColumn(col.Values)
	if col.Role == dataset.RoleHuman {
		if kind.Scale == "" {
			return fmt.Sprintf("human column %s is left out: %s", col.Field, kind.Why)
		}
		p.addHumanColumn(items, rows, col, kind)
		return ""
	}
	switch {
	case kind.Scale != "":
		p.addVerdictColumn(items, rows, col, file, kind)
	case parser != nil && kind.NonBlank > 0:
		p.addParsedColumn(items, rows, col, file, parser)
	case kind.NonBlank > 0:
		return fmt.Sprintf("verdict column %s is left out: %s (first value %s); if it holds a judge's raw output, name the judge whose parser reads it with --judge NAME",
			col.Field, kind.Why, quoteShort(firstValue(col.Values)))
	default:
		return fmt.Sprintf("verdict column %s is left out: %s", col.Field, kind.Why)
	}
	return ""
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
// verdict values.
func (p *importPlan) addVerdictColumn(items []judge.Item, rows []bool, col dataset.ImportedColumn, file string, kind columnKind) {
	r := &plannedRun{column: col.Field, info: judge.Info{
		Name:        ImportedJudge,
		Model:       col.Field,
		Description: fmt.Sprintf("verdicts imported from column %s of %s", col.Field, file),
		Dimensions: []judge.Dimension{{Name: kind.Dimension, Scale: kind.Scale,
			Description: "the value of column " + col.Field}},
	}}
	for i, text := range col.Values {
		if !rows[i] || strings.TrimSpace(text) == "" {
			continue
		}
		v := judge.Verdict{ItemID: items[i].ID, Raw: text, Status: judge.StatusOK}
		if x, ok := readValue(text, kind.Scale); ok {
			v.Values = map[string]float64{kind.Dimension: x}
		} else {
			v.Status, v.Error = judge.StatusParseError, unreadableValue(text, kind.Scale)
		}
		r.verdicts = append(r.verdicts, v)
	}
	p.runs = append(p.runs, r)
}

// addParsedColumn plans a run from a column of raw judge output, read
// with the named judge's parser.
func (p *importPlan) addParsedColumn(items []judge.Item, rows []bool, col dataset.ImportedColumn, file string, parser *OutputParser) {
	r := &plannedRun{column: col.Field, info: judge.Info{
		Name:        ImportedJudge,
		Model:       col.Field,
		Description: fmt.Sprintf("%s verdicts read from the raw output in column %s of %s", parser.Judge, col.Field, file),
		Dimensions:  parser.Dimensions,
		Params:      map[string]any{"parser": parser.Judge},
	}}
	for i, text := range col.Values {
		if !rows[i] || strings.TrimSpace(text) == "" {
			continue
		}
		r.verdicts = append(r.verdicts, parseOutput(parser, items[i].ID, text))
	}
	p.runs = append(p.runs, r)
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
// human labels.
func (p *importPlan) addHumanColumn(items []judge.Item, rows []bool, col dataset.ImportedColumn, kind columnKind) {
	a := &plannedAnnotator{name: col.Field, column: col.Field}
	for i, text := range col.Values {
		if !rows[i] || strings.TrimSpace(text) == "" {
			continue
		}
		x, ok := readValue(text, kind.Scale)
		if !ok {
			a.unreadable++
			continue
		}
		a.add(items[i].ID, Action{Kind: KindLabel, ItemID: items[i].ID, Dimension: kind.Dimension, Value: x, Via: ViaImported})
	}
	p.annotators = append(p.annotators, a)
}
