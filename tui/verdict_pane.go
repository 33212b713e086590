package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// verdictFieldBytes caps each text of the verdict pane (reason, extra
// fields, raw output, note): the pane is drawn on every frame, and a 10 MB
// reason must not slow every key press on its item.
const verdictFieldBytes = 16 << 10

// verdictLines draws the verdict pane: the person's note first, then for
// each row of the item the judge's value and the person's label side by
// side, then the selected row's verdict in full (status, reason, extracted
// answer and other extra fields, the raw output of an unreadable verdict),
// the other annotators' labels and the other judges' verdicts.
func (s *reviewScreen) verdictLines(inner int) []string {
	st := s.styles
	var lines []string
	// A re-test hides the person's note with their first label: it
	// would tell it.
	if note := s.note(s.cur); note != "" && !s.retesting(s.cur) {
		lines = append(lines, capped(st, "note", note, inner)...)
		lines = append(lines, st.Muted.Render(strings.Repeat("─", inner)))
	}
	r := s.run()
	if r == nil {
		if s.team != nil {
			// Only gavel run judges a team session: say so, or the
			// person is left with keys that label nothing.
			return append(lines, wrapPlain("No judge in this session yet, so there is nothing to label: someone runs gavel run SESSION-URL --judge NAME, and its verdicts appear here as they are made.", inner)...)
		}
		return append(lines, st.Muted.Render("No judge in this session."))
	}
	rows := s.rows(s.cur)
	if len(rows) == 0 {
		return append(lines, wrapPlain(fmt.Sprintf("%s has nothing to judge on this item (it needs rubric criteria).", SanitizeLine(r.info.Name)), inner)...)
	}
	sel := min(s.row, len(rows)-1)
	for k, rw := range rows {
		lines = append(lines, s.rowLine(rw, k == sel && len(rows) > 1, len(rows) > 1, inner))
	}
	if r.info.PerCriterion && len(rows) > 1 {
		lines = append(lines, s.itemScoreLines(rows, inner)...)
	}
	rw := rows[sel]
	lines = append(lines, s.swapLines(rw, inner)...)
	people := s.otherAnnotators(rw, inner)
	if s.adjudicating() && len(people) > 0 {
		// What adjudication settles: the people's labels come first.
		lines = append(lines, st.Muted.Render(strings.Repeat("─", inner)))
		lines = append(lines, people...)
		people = nil
		if s.reviewed[s.cur] && s.toAdjudicate(s.cur) {
			// Back in the queue: this person's label is not the item's
			// settlement any more.
			for _, l := range wrapPlain("↺ Your label came before the others' latest: the item waits for your decision again.", inner) {
				lines = append(lines, st.Warning.Render(l))
			}
		}
	}
	vd, has := r.verdict(s.cur, rw.crit)
	if has && !s.hidden(s.cur) {
		vd = s.detailed(r, s.cur, vd)
	}
	lines = append(lines, st.Muted.Render(strings.Repeat("─", inner)))
	switch {
	case s.hidden(s.cur):
		lines = append(lines, wrapPlain(s.blindWhy(s.cur), inner)...)
	case !has && r.loading:
		lines = append(lines, st.Muted.Render("Reading verdicts…"))
	case !has && r.judging():
		lines = append(lines, st.Muted.Render("Judging…"))
	case !has:
		lines = append(lines, st.Muted.Render("No verdict."))
	default:
		lines = append(lines, s.verdictDetail(vd, inner)...)
		if old, ok := r.was[vkey{s.cur, rw.crit, false}]; ok {
			lines = append(lines, field(st, "before", "re-judged; the earlier verdict was "+verdictSummary(old, rw), inner)...)
		}
	}
	if sv, ok := r.swappedVerdict(s.cur, rw.crit); ok && !s.hidden(s.cur) {
		// The swapped order's reason, error or raw output, under a
		// heading; nothing when it has none (an imported column).
		detail := s.verdictDetail(s.detailed(r, s.cur, sv), inner)
		if old, ok := r.was[vkey{s.cur, rw.crit, true}]; ok {
			detail = append(detail, field(st, "before", "re-judged; the earlier verdict was "+verdictSummary(old, rw), inner)...)
		}
		if len(detail) > 0 {
			lines = append(lines, st.Muted.Render(ansi.Truncate("── swapped order (B shown first) "+strings.Repeat("─", inner), inner, "")))
			lines = append(lines, detail...)
		}
	}
	rule := st.Muted.Render(strings.Repeat("─", inner))
	if len(people) > 0 {
		lines = append(ruleOnce(lines, rule), people...)
	}
	if others := s.otherJudges(rw, inner); len(others) > 0 {
		lines = append(ruleOnce(lines, rule), others...)
	}
	return lines
}

// ruleOnce adds a rule under the lines, unless they already end with one.
func ruleOnce(lines []string, rule string) []string {
	if n := len(lines); n > 0 && lines[n-1] == rule {
		return lines
	}
	return append(lines, rule)
}

// capped is a field of the verdict pane, cut to verdictFieldBytes.
func capped(st Styles, name, value string, inner int) []string {
	text, cut := shownUpTo(value, verdictFieldBytes)
	lines := field(st, name, text, inner)
	if cut > 0 {
		lines = append(lines, st.Muted.Render(fmt.Sprintf("… %s more not shown", byteSize(cut))))
	}
	return lines
}

// rowLine is "judge YES   you NO ✗" for one row, named by its criterion
// or dimension when the item has several rows. The values are laid out
// first and the name gets what is left, so a narrow pane cuts the
// criterion's text, never the scores.
func (s *reviewScreen) rowLine(rw row, selected, named bool, inner int) string {
	st := s.styles
	r := s.run()
	jv := st.Muted.Render("—") // no verdict, and none coming
	if r.judging() || r.loading {
		jv = st.Muted.Render("…")
	}
	if v, ok := r.verdict(s.cur, rw.crit); ok && s.hidden(s.cur) {
		jv = st.Muted.Render("hidden")
	} else if ok {
		if x, ok := v.Values[rw.dim.Name]; ok && v.OK() {
			jv = s.valueStyle(rw.dim.Scale, x).Render(formatValue(rw.dim.Scale, x))
		} else if !v.OK() {
			jv = st.Error.Render(string(v.Status))
		}
	}
	hv := st.Muted.Render("—")
	long, brief := "", ""
	if x, ok := s.label(s.cur, rw); ok {
		hv = s.valueStyle(rw.dim.Scale, x).Render(formatValue(rw.dim.Scale, x))
		// Marked can't judge, the label is compared with nothing
		// (cant_judge.go). While the verdict is hidden (a row labelled on
		// an item not yet reviewed, a re-test), agreement would tell it.
		if s.labelSetAside(s.cur) {
			hv = st.Muted.Render(formatValue(rw.dim.Scale, x))
			long = st.Muted.Render(" set aside")
		} else if j, ok := r.judgeValue(s.cur, rw); ok && !s.hidden(s.cur) {
			if j == x {
				long, brief = st.Agree.Render(" ✓ agree"), st.Agree.Render(" ✓")
			} else {
				long, brief = st.Disagree.Render(" ✗ disagree"), st.Disagree.Render(" ✗")
			}
		}
		if s.save.pending[s.cur] > 0 {
			long += st.Pending.Render(" saving…")
			brief += st.Pending.Render(" …")
		}
	}
	if !named {
		return st.Muted.Render("judge ") + jv + st.Muted.Render("   you ") + hv + long
	}
	// Several rows: the values padded to the scale's widest and in the
	// same spacing on every row (chosen for the widest mark), so they
	// align; the criterion's text gets what is left.
	vw := scaleWidth(rw.dim.Scale)
	jv, hv = padTo(jv, vw), padTo(hv, vw)
	prefix := "  "
	if selected {
		prefix = "▸ "
	}
	gap, mark := "   ", long
	pw := ansi.StringWidth(prefix)
	reserve := len("judge ") + vw + len("   you ") + vw + ansi.StringWidth(" ✗ disagree")
	if reserve+pw+8 > inner {
		// Narrow: the scores in fewer cells, so the criterion keeps some.
		gap, mark = " ", brief
		reserve = len("judge ") + vw + len(" you ") + vw + ansi.StringWidth(" ✗ …")
	}
	values := st.Muted.Render("judge ") + jv + st.Muted.Render(gap+"you ") + hv + mark
	nameW := max(inner-reserve-pw-1, 1)
	name := ansi.Truncate(SanitizeLine(Clip(rowName(s.items[s.cur], rw), 512)), nameW, "…")
	return ansi.Truncate(prefix+padTo(name, nameW)+" "+values, inner, "…")
}

// scaleWidth is the width of a scale's widest value as shown.
func scaleWidth(sc judge.Scale) int {
	w := 1
	for _, v := range sc.Values() {
		w = max(w, ansi.StringWidth(formatValue(sc, v)))
	}
	return w
}

// padTo pads a string with spaces to exactly n cells (it is never longer).
func padTo(text string, n int) string {
	return text + strings.Repeat(" ", max(n-ansi.StringWidth(text), 0))
}

func rowName(it judge.Item, rw row) string {
	if rw.crit > 0 && rw.crit <= len(it.Rubric) {
		return fmt.Sprintf("%d. %s", rw.crit, it.Rubric[rw.crit-1])
	}
	return rw.dim.Name
}

func (s *reviewScreen) verdictDetail(vd judge.Verdict, inner int) []string {
	st := s.styles
	var lines []string
	if !vd.OK() {
		if vd.Error != "" {
			lines = append(lines, capped(st, "error", vd.Error, inner)...)
		}
	}
	if vd.Reason != "" {
		lines = append(lines, capped(st, "reason", vd.Reason, inner)...)
	}
	keys := make([]string, 0, len(vd.Extra))
	for k, v := range vd.Extra {
		if !hiddenExtra(k, v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		lines = append(lines, capped(st, SanitizeLine(Clip(k, 64)), extraText(vd.Extra[k]), inner)...)
	}
	if vd.Confidence != nil {
		lines = append(lines, field(st, "confidence", fmt.Sprintf("%.0f%%", *vd.Confidence*100), inner)...)
	} else if why, _ := vd.Extra[confidenceWithheld].(string); why != "" {
		lines = append(lines, capped(st, "confidence", "withheld: "+why, inner)...)
	}
	if vd.Model != "" {
		lines = append(lines, capped(st, "model", vd.Model, inner)...)
	}
	if !vd.OK() && vd.Raw != "" {
		lines = append(lines, st.Muted.Render("raw output:"))
		raw, cut := shownUpTo(vd.Raw, verdictFieldBytes)
		lines = append(lines, wrapPlain(raw, inner)...)
		if cut > 0 {
			lines = append(lines, st.Muted.Render(fmt.Sprintf("… %s more not shown", byteSize(cut))))
		}
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
		if len(x) == 0 {
			return "none"
		}
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
// amber. Categories and preferences have no better or worse end (A is not
// worse than B, nor CORRECT, listed first, worse than INCORRECT): they
// are only set in bold.
func (s *reviewScreen) valueStyle(sc judge.Scale, v float64) lipglossStyle {
	vals := sc.Values()
	switch {
	case len(vals) == 0 || sc.Categorical():
		return s.styles.Strong
	case v == vals[len(vals)-1]:
		return s.styles.Yes
	case v == vals[0]:
		return s.styles.No
	}
	return s.styles.Partial
}

// confidenceWithheld is the extra field that says why a verdict has no
// confidence although the server sent logprobs (sessions and judge/llm's
// ExtraConfidenceWithheld).
const confidenceWithheld = sessions.ExtraConfidenceWithheld

// hiddenExtra reports extra fields that mean nothing to a reviewer: byte
// offsets kept for highlighting, and flags that are false.
func hiddenExtra(k string, v any) bool {
	if strings.HasSuffix(k, "_start") || strings.HasSuffix(k, "_end") || k == confidenceWithheld {
		return true // the withheld confidence's reason shows as the confidence
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
		return formatValue(rw.dim.Scale, x)
	}
	return "without a value"
}

// itemScoreLines is a per-criterion judge's score for the whole item: the
// mean over its criteria, for the judge and for the person, per
// dimension; the person's mean goes on a line of its own when the pane is
// too narrow for both, so neither figure is cut.
func (s *reviewScreen) itemScoreLines(rows []row, inner int) []string {
	st := s.styles
	r := s.run()
	var lines []string
	for _, d := range r.info.Dimensions {
		if d.Scale.Categorical() {
			continue // no mean of categories or preferences
		}
		var js, hs []float64
		n := 0
		for _, rw := range rows {
			if rw.dim.Name != d.Name {
				continue
			}
			n++
			if v, ok := r.judgeValue(s.cur, rw); ok {
				js = append(js, v)
			}
			if v, ok := s.label(s.cur, rw); ok {
				hs = append(hs, v)
			}
		}
		head := st.Strong.Render("item mean ")
		if len(r.info.Dimensions) > 1 {
			head += SanitizeLine(Clip(d.Name, 64)) + ": "
		}
		judged := fmt.Sprintf("judge %s (%d/%d)", meanOf(js), len(js), n)
		if s.hidden(s.cur) {
			judged = "judge hidden"
		}
		yours := ""
		if len(hs) > 0 {
			yours = fmt.Sprintf("you %s (%d/%d)", meanOf(hs), len(hs), n)
		}
		one := head + judged
		if yours != "" {
			one += "   " + yours
		}
		if yours == "" || ansi.StringWidth(one) <= inner {
			lines = append(lines, ansi.Truncate(one, inner, "…"))
			continue
		}
		lines = append(lines, ansi.Truncate(head+judged, inner, "…"), ansi.Truncate(strings.Repeat(" ", ansi.StringWidth(st.Strong.Render("item mean ")))+yours, inner, "…"))
	}
	return lines
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
// the active judge. Hidden in blind mode until the item is labelled. The
// judge's name is cut before its value.
func (s *reviewScreen) otherJudges(rw row, inner int) []string {
	if len(s.runs) < 2 || s.hidden(s.cur) {
		return nil
	}
	st := s.styles
	mine, hasMine := s.run().judgeValue(s.cur, rw)
	var out []string
	for k, r := range s.runs {
		if k == s.act {
			continue
		}
		if _, ok := r.info.Dimension(rw.dim.Name); !ok || (rw.crit > 0) != r.info.PerCriterion {
			continue
		}
		text := st.Muted.Render("…")
		if v, ok := r.verdict(s.cur, rw.crit); ok {
			if x, ok := v.Values[rw.dim.Name]; ok && v.OK() {
				text = s.valueStyle(rw.dim.Scale, x).Render(formatValue(rw.dim.Scale, x))
				if hasMine && x != mine {
					text += st.Disagree.Render(" ≠ " + SanitizeLine(Clip(s.run().name(), 32))) // with its model: imported runs share the name "imported"
				}
			} else {
				text = st.Error.Render(string(v.Status))
			}
		}
		out = append(out, s.nameValue("also ", r.name(), text, inner))
	}
	return out
}

// otherAnnotators shows every other annotator's current label on the
// selected row (teammates, and humans whose labels the dataset carried),
// marked when it differs from this annotator's. Hidden in blind mode
// until the item is labelled, like the verdict.
func (s *reviewScreen) otherAnnotators(rw row, inner int) []string {
	if s.hidden(s.cur) {
		return nil
	}
	st := s.styles
	mine, hasMine := s.judgement(s.cur, rw) // none under a can't judge
	var out []string
	var buf [4]sessions.Label
	for _, o := range s.others.on(s.cur, buf[:0]) {
		if o.Criterion != rw.crit || o.Dimension != rw.dim.Name {
			continue
		}
		text := s.valueStyle(rw.dim.Scale, o.Value).Render(formatValue(rw.dim.Scale, o.Value))
		if hasMine && o.Value != mine {
			text += st.Disagree.Render(" ≠ you")
		}
		who := "human "
		if o.Via == sessions.ViaAdjudication {
			who = "adjudicator " // settled it: no rater
		}
		out = append(out, s.nameValue(who, o.Annotator, text, inner))
	}
	return out
}

// nameValue is "label name  value" on one line of inner cells, the name
// cut first.
func (s *reviewScreen) nameValue(label, name, value string, inner int) string {
	room := max(inner-ansi.StringWidth(label)-ansi.StringWidth(value)-2, 1)
	return s.styles.Muted.Render(label) + ansi.Truncate(SanitizeLine(Clip(name, 256)), room, "…") + "  " + value
}

// swapLines is the judge's value in the swapped order of a pair, under
// the original's, and whether the two agree: "consistent under swap" or
// "inconsistent under swap". Nothing for an item judged in one order
// only, or while blind mode hides the verdicts.
func (s *reviewScreen) swapLines(rw row, inner int) []string {
	st := s.styles
	r := s.run()
	it := s.items[s.cur]
	sv, has := r.swappedVerdict(s.cur, rw.crit)
	expected := s.swap && it.Pairwise() && pairwiseJudge(r.info)
	if (!has && !expected) || s.hidden(s.cur) {
		return nil
	}
	value := st.Muted.Render("—")
	switch x, ok := sv.Values[rw.dim.Name]; {
	case !has && (r.judging() || r.loading):
		value = st.Muted.Render("…")
	case has && !sv.OK():
		value = st.Error.Render(string(sv.Status))
	case has && ok:
		value = s.valueStyle(rw.dim.Scale, x).Render(formatValue(rw.dim.Scale, x))
	}
	line := st.Muted.Render("swapped ") + value
	if w := ansi.StringWidth(line); w+len(" (B shown first)") <= inner {
		line += st.Muted.Render(" (B shown first)")
	}
	out := []string{line}
	switch r.swapCheck(s.cur, rw) {
	case swapConsistent:
		out = append(out, st.Agree.Render("✓ consistent under swap"))
	case swapInconsistent:
		out = append(out, st.Disagree.Render("✗ inconsistent under swap"))
	}
	return out
}
