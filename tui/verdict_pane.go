package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
)

// verdictLines draws the verdict pane: for each row of the item the
// judge's value and the person's label side by side, then the selected
// row's verdict in full (status, reason, extracted answer and other extra
// fields, the raw output of an unreadable verdict), then the note.
func (m *Model) verdictLines(inner int) []string {
	st := m.styles
	r := m.run()
	if r == nil {
		return []string{st.Muted.Render("No judge in this session.")}
	}
	rows := m.rows(m.cur)
	if len(rows) == 0 {
		return []string{st.Muted.Render(fmt.Sprintf("%s has nothing to judge on this item (it needs rubric criteria).", r.info.Name))}
	}
	var lines []string
	sel := min(m.row, len(rows)-1)
	for k, rw := range rows {
		lines = append(lines, m.rowLine(rw, k == sel && len(rows) > 1, inner))
	}
	if r.info.PerCriterion && len(rows) > 1 {
		lines = append(lines, m.itemScoreLine(rows))
	}
	rw := rows[sel]
	vd, has := r.verdict(m.cur, rw.crit)
	lines = append(lines, st.Muted.Render(strings.Repeat("─", inner)))
	switch {
	case m.hidden(m.cur):
		lines = append(lines, wrapPlain("Blind mode: the judge's verdict shows once you have labelled this item (b turns blind mode off).", inner)...)
	case !has && r.loading:
		lines = append(lines, st.Muted.Render("Reading verdicts…"))
	case !has && r.judging():
		lines = append(lines, st.Muted.Render("Judging…"))
	case !has:
		lines = append(lines, st.Muted.Render("No verdict."))
	default:
		lines = append(lines, m.verdictDetail(vd, inner)...)
		if old, ok := r.was[vkey{m.cur, rw.crit}]; ok {
			lines = append(lines, field(st, "before", "re-judged; the earlier verdict was "+verdictSummary(old, rw), inner)...)
		}
	}
	if others := m.otherJudges(rows[sel]); len(others) > 0 {
		lines = append(lines, st.Muted.Render(strings.Repeat("─", inner)))
		lines = append(lines, others...)
	}
	if note := m.labels.note(m.cur); note != "" {
		lines = append(lines, st.Muted.Render(strings.Repeat("─", inner)))
		lines = append(lines, field(st, "note", Sanitize(note), inner)...)
	}
	return lines
}

// rowLine is "judge YES   you NO ✗" for one row, named by its criterion
// or dimension when the item has several rows.
func (m *Model) rowLine(rw row, selected bool, inner int) string {
	st := m.styles
	r := m.run()
	jv := st.Muted.Render("…")
	if v, ok := r.verdict(m.cur, rw.crit); ok && m.hidden(m.cur) {
		jv = st.Muted.Render("hidden")
	} else if ok {
		if x, ok := v.Values[rw.dim.Name]; ok && v.OK() {
			jv = m.valueStyle(rw.dim.Scale, x).Render(rw.dim.Scale.Format(x))
		} else if !v.OK() {
			jv = st.Error.Render(string(v.Status))
		}
	}
	hv := st.Muted.Render("—")
	mark := ""
	k := lkey{item: m.cur, crit: rw.crit, dim: rw.dim.Name}
	if x, ok := m.labels.label(k); ok {
		hv = m.valueStyle(rw.dim.Scale, x).Render(rw.dim.Scale.Format(x))
		if j, ok := r.judgeValue(m.cur, rw); ok {
			if j == x {
				mark = st.Agree.Render(" ✓ agree")
			} else {
				mark = st.Disagree.Render(" ✗ disagree")
			}
		}
		if m.save.pending[m.cur] > 0 {
			mark += st.Pending.Render(" saving…")
		}
	}
	name := ""
	if len(m.rows(m.cur)) > 1 {
		name = rowName(m.items[m.cur], rw)
		prefix := "  "
		if selected {
			prefix = "▸ "
		}
		w := max(inner/2, 8)
		name = prefix + padRight(ansi.Truncate(SanitizeLine(name), w, "…"), w) + " "
	}
	return name + st.Muted.Render("judge ") + jv + st.Muted.Render("   you ") + hv + mark
}

func rowName(it judge.Item, rw row) string {
	if rw.crit > 0 && rw.crit <= len(it.Rubric) {
		return fmt.Sprintf("%d. %s", rw.crit, it.Rubric[rw.crit-1])
	}
	return rw.dim.Name
}

func (m *Model) verdictDetail(vd judge.Verdict, inner int) []string {
	st := m.styles
	var lines []string
	if !vd.OK() {
		lines = append(lines, st.Error.Render(string(vd.Status)))
		if vd.Error != "" {
			lines = append(lines, field(st, "error", Sanitize(vd.Error), inner)...)
		}
	}
	if vd.Reason != "" {
		lines = append(lines, field(st, "reason", Sanitize(vd.Reason), inner)...)
	}
	keys := make([]string, 0, len(vd.Extra))
	for k, v := range vd.Extra {
		if !hiddenExtra(k, v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		lines = append(lines, field(st, k, Sanitize(extraText(vd.Extra[k])), inner)...)
	}
	if vd.Confidence != nil {
		lines = append(lines, field(st, "confidence", fmt.Sprintf("%.0f%%", *vd.Confidence*100), inner)...)
	}
	if vd.Model != "" {
		lines = append(lines, field(st, "model", Sanitize(vd.Model), inner)...)
	}
	if !vd.OK() && vd.Raw != "" {
		lines = append(lines, st.Muted.Render("raw output:"))
		raw, _ := shown(vd.Raw)
		lines = append(lines, wrapPlain(raw, inner)...)
	}
	return lines
}

// field renders "name  value" with the value wrapped under itself.
func field(st Styles, name, value string, inner int) []string {
	const labelW = 8
	label := name
	if ansi.StringWidth(label) >= labelW {
		return append([]string{st.Muted.Render(label)}, indent(wrapPlain(value, max(inner-2, 1)), 2)...)
	}
	wrapped := wrapPlain(value, max(inner-labelW, 1))
	out := make([]string, len(wrapped))
	for i, l := range wrapped {
		if i == 0 {
			out[i] = st.Muted.Render(label+strings.Repeat(" ", labelW-ansi.StringWidth(label))) + l
		} else {
			out[i] = strings.Repeat(" ", labelW) + l
		}
	}
	return out
}

func indent(lines []string, n int) []string {
	pad := strings.Repeat(" ", n)
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return lines
}

// extraText renders a verdict's extra field: lists one per line.
func extraText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = "• " + extraText(e)
		}
		return strings.Join(parts, "\n")
	case []string:
		return "• " + strings.Join(x, "\n• ")
	case float64:
		return judge.Scale("").Format(x)
	case nil:
		return "—"
	}
	return fmt.Sprint(v)
}

// valueStyle colours a value: top of the scale green, bottom red, middle
// amber.
func (m *Model) valueStyle(s judge.Scale, v float64) lipglossStyle {
	vals := s.Values()
	switch {
	case len(vals) == 0:
		return m.styles.Strong
	case v == vals[len(vals)-1]:
		return m.styles.Yes
	case v == vals[0]:
		return m.styles.No
	}
	return m.styles.Partial
}

// hiddenExtra reports extra fields that mean nothing to a reviewer: byte
// offsets kept for highlighting, and flags that are false.
func hiddenExtra(k string, v any) bool {
	if strings.HasSuffix(k, "_start") || strings.HasSuffix(k, "_end") {
		return true
	}
	b, isBool := v.(bool)
	return isBool && !b
}

// verdictSummary is a verdict in a few words: its value on a row, or its
// status.
func verdictSummary(v judge.Verdict, rw row) string {
	if !v.OK() {
		return string(v.Status)
	}
	if x, ok := v.Values[rw.dim.Name]; ok {
		return rw.dim.Scale.Format(x)
	}
	return "without a value"
}

// itemScoreLine is a per-criterion judge's score for the whole item: the
// mean over its criteria, for the judge and for the person, per dimension.
func (m *Model) itemScoreLine(rows []row) string {
	st := m.styles
	r := m.run()
	var parts []string
	for _, d := range r.info.Dimensions {
		var js, hs []float64
		n := 0
		for _, rw := range rows {
			if rw.dim.Name != d.Name {
				continue
			}
			n++
			if v, ok := r.judgeValue(m.cur, rw); ok {
				js = append(js, v)
			}
			if v, ok := m.labels.label(lkey{item: m.cur, crit: rw.crit, dim: d.Name}); ok {
				hs = append(hs, v)
			}
		}
		part := fmt.Sprintf("judge %s (%d/%d)", meanOf(js), len(js), n)
		if len(hs) > 0 {
			part += fmt.Sprintf("   you %s (%d/%d)", meanOf(hs), len(hs), n)
		}
		if len(r.info.Dimensions) > 1 {
			part = d.Name + ": " + part
		}
		parts = append(parts, part)
	}
	return st.Strong.Render("item mean ") + strings.Join(parts, " · ")
}

func meanOf(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return strconv.FormatFloat(sum/float64(len(xs)), 'f', 2, 64)
}

// otherJudges compares the session's other judges on the selected row:
// one line each with its value (or status), marked when it differs from
// the active judge. Hidden in blind mode until the item is labelled.
func (m *Model) otherJudges(rw row) []string {
	if len(m.runs) < 2 || m.hidden(m.cur) {
		return nil
	}
	st := m.styles
	mine, hasMine := m.run().judgeValue(m.cur, rw)
	var out []string
	for k, r := range m.runs {
		if k == m.act {
			continue
		}
		if _, ok := r.info.Dimension(rw.dim.Name); !ok || (rw.crit > 0) != r.info.PerCriterion {
			continue
		}
		text := st.Muted.Render("…")
		if v, ok := r.verdict(m.cur, rw.crit); ok {
			if x, ok := v.Values[rw.dim.Name]; ok && v.OK() {
				text = m.valueStyle(rw.dim.Scale, x).Render(rw.dim.Scale.Format(x))
				if hasMine && x != mine {
					text += st.Disagree.Render(" ≠")
				}
			} else {
				text = st.Error.Render(string(v.Status))
			}
		}
		out = append(out, st.Muted.Render("also ")+SanitizeLine(r.name())+"  "+text)
	}
	return out
}
