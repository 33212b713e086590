package render

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The judge table is the first thing `gavel stats` and the statistics
// screen show: every judge and dimension ranked by Cohen's kappa against
// the humans, each figure with its 95 % interval. Wide enough, it is one
// line per row with a column per figure; narrower, each row is a line with
// the rank, the judge, n and kappa, then the other figures flowing on
// indented lines, so that no figure loses its interval at 80 columns.

// tableCell is one figure of a judge row.
type tableCell struct {
	name   string // the column's name
	text   string // the value with its interval
	target *Target
}

// JudgeTableLines is the judge table of the whole report, the rows of the
// judge whose key is active drawn as headings, every line within width
// cells. Empty when the report has no row.
func JudgeTableLines(r stats.Report, width int, active string) []Line {
	if len(r.JudgeTable) == 0 {
		return nil
	}
	out := []Line{text(RoleStrong, "Judges, ranked by Cohen's kappa against the humans  (95% intervals)")}
	nameW := 0
	for _, row := range r.JudgeTable {
		nameW = max(nameW, ansi.StringWidth(rowName(row)))
	}
	nameW = min(max(nameW, ansi.StringWidth("judge · dimension")), 40)
	cells := make([][]tableCell, len(r.JudgeTable))
	colW := make([]int, 0)
	for i, row := range r.JudgeTable {
		cells[i] = rowCells(row)
		for k, c := range cells[i] {
			if k >= len(colW) {
				colW = append(colW, ansi.StringWidth(c.name))
			}
			colW[k] = max(colW[k], ansi.StringWidth(c.text))
		}
	}
	const lead = 2 + 3 + 1 // indent, rank, space
	wide := lead + nameW + 1 + 6
	for _, w := range colW {
		wide += 2 + w
	}
	if wide <= width {
		head := "  " + padLeft("#", 3) + " " + fixWidth("judge · dimension", nameW) + " " + padLeft("n", 6)
		for k, w := range colW {
			head += "  " + fixWidth(cells[0][k].name, w)
		}
		out = append(out, text(RoleMuted, strings.TrimRight(head, " ")))
		for i, row := range r.JudgeTable {
			role := RolePlain
			if row.Judge == active {
				role = RoleHeader
			}
			line := Line{{Text: "  " + padLeft(fmt.Sprint(row.Rank), 3) + " " + fixWidth(safetext.SanitizeLine(rowName(row)), nameW) + " " + padLeft(fmt.Sprint(row.N), 6), Role: role}}
			for k, c := range cells[i] {
				t := c.text
				if k < len(cells[i])-1 {
					t = fixWidth(t, colW[k])
				}
				line = append(line, plain("  "), Span{Text: t, Target: c.target})
			}
			out = append(out, line)
		}
	} else {
		for i, row := range r.JudgeTable {
			role := RolePlain
			if row.Judge == active {
				role = RoleHeader
			}
			out = append(out, Line{{Text: fmt.Sprintf("  %2d. %s", row.Rank, safetext.SanitizeLine(rowName(row))), Role: role},
				muted(fmt.Sprintf("  n = %d", row.N))})
			out = append(out, flowCells(cells[i], width, "      ")...)
		}
	}
	if small := smallRows(r.JudgeTable); small != "" {
		out = append(out, text(RoleWarning, "⚠ "+small))
	}
	return fit(out, width)
}

// rowName is "judge · dimension".
func rowName(row stats.JudgeRow) string { return row.Judge + " · " + row.Dimension }

// rowCells are a row's figures in table order: kappa first (the rank),
// then agreement, AC1, bias, false-pass and false-fail. A figure that
// does not apply (false-pass on a Likert scale, a bias on categories) is
// left out of the narrow layout and shown as "—" in the wide one.
func rowCells(row stats.JudgeRow) []tableCell {
	fp := &Target{Judge: row.Judge, Dimension: row.Dimension, Human: 0, Verdict: 1}
	ff := &Target{Judge: row.Judge, Dimension: row.Dimension, Human: 1, Verdict: 0}
	binary := row.Scale.Kind() == judge.KindBinary
	if !binary || row.N == 0 {
		fp, ff = nil, nil
	}
	return []tableCell{
		{name: "kappa", text: bare(interval(row.CohenKappa, false))},
		{name: "agreement", text: bare(interval(row.PercentAgreement, true))},
		{name: "AC1", text: bare(interval(row.GwetAC1, false))},
		{name: "bias", text: bare(signedInterval(row.Scale, row.ScoreBias))},
		{name: "false-pass", text: bare(interval(row.FalsePassRate, true)), target: fp},
		{name: "false-fail", text: bare(interval(row.FalseFailRate, true)), target: ff},
	}
}

// flowCells lays "name value" cells out on lines of width cells after
// indent, separated by " · ", skipping the ones that are undefined.
func flowCells(cells []tableCell, width int, indent string) []Line {
	var out []Line
	line := Line{plain(indent)}
	used := ansi.StringWidth(indent)
	for _, c := range cells {
		if c.text == stats.Undefined {
			continue
		}
		w := ansi.StringWidth(c.name) + 1 + ansi.StringWidth(c.text)
		sep := 0
		if len(line) > 1 {
			sep = 3
		}
		if len(line) > 1 && used+sep+w > width {
			out = append(out, line)
			line, used, sep = Line{plain(indent)}, ansi.StringWidth(indent), 0
		}
		if sep > 0 {
			line = append(line, muted(" · "))
		}
		line = append(line, muted(c.name+" "), Span{Text: c.text, Target: c.target})
		used += sep + w
	}
	if len(line) > 1 {
		out = append(out, line)
	}
	return out
}

// smallRows warns about rows compared on fewer than stats.MinReliableItems
// items.
func smallRows(rows []stats.JudgeRow) string {
	n := 0
	for _, r := range rows {
		if r.SmallSample != "" {
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("1 row rests on fewer than %d items: its intervals are unreliable", stats.MinReliableItems)
	}
	return fmt.Sprintf("%d rows rest on fewer than %d items: their intervals are unreliable", n, stats.MinReliableItems)
}
