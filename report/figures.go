package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// How a figure is written, as `gavel stats` writes it: proportions as
// percentages with one decimal, coefficients with three, differences of
// proportions in percentage points with a sign, undefined values as "—"
// with the reason beside. Each figure is a <span class="fig"> whose
// data-fig names its place in `gavel stats --format json` and whose
// data-unit says how to read its numbers back: "percent" and "pts" are
// hundredths of the JSON value, "number" and "count" the value itself.

// Kinds of figure, the data-unit attribute.
const (
	unitPercent = "percent"
	unitPoints  = "pts"
	unitNumber  = "number"
	unitCount   = "count"
)

// fig writes one figure.
func fig(path, unit, text, reason string) template.HTML {
	var b strings.Builder
	b.WriteString(`<span class="fig`)
	if reason != "" {
		b.WriteString(` undef`)
	}
	fmt.Fprintf(&b, `" data-fig="%s" data-unit="%s">`, html.EscapeString(path), unit)
	if v, ci, ok := strings.Cut(text, " ["); ok {
		// The interval may go to a line of its own in a narrow column.
		fmt.Fprintf(&b, `%s<span class="ci"> [%s</span>`, html.EscapeString(v), html.EscapeString(ci))
	} else {
		b.WriteString(html.EscapeString(text))
	}
	if reason != "" {
		fmt.Fprintf(&b, ` <small>(%s)</small>`, html.EscapeString(safetext.SanitizeLine(reason)))
	}
	b.WriteString(`</span>`)
	return template.HTML(b.String()) //nolint:gosec // every part is escaped above
}

// pct writes a proportion with its interval: "91.2% [90.2%, 92.0%]".
func pct(path string, i stats.Interval) template.HTML {
	if !i.Defined() {
		return fig(path, unitPercent, stats.Undefined, orUndefined(i.Reason))
	}
	return fig(path, unitPercent, i.Format(1, true), "")
}

// coef writes a coefficient with its interval: "0.788 [0.764, 0.809]".
func coef(path string, i stats.Interval) template.HTML {
	if !i.Defined() {
		return fig(path, unitNumber, stats.Undefined, orUndefined(i.Reason))
	}
	return fig(path, unitNumber, i.Format(3, false), "")
}

// pctE writes a proportion without interval.
func pctE(path string, e stats.Estimate) template.HTML {
	if !e.Defined() {
		return fig(path, unitPercent, stats.Undefined, orUndefined(e.Reason))
	}
	return fig(path, unitPercent, stats.FormatPercent(e.Value, 1), "")
}

// numE writes a number without interval.
func numE(path string, e stats.Estimate, decimals int) template.HTML {
	if !e.Defined() {
		return fig(path, unitNumber, stats.Undefined, orUndefined(e.Reason))
	}
	return fig(path, unitNumber, stats.FormatNumber(e.Value, decimals), "")
}

// count writes a whole number.
func count(path string, n int) template.HTML {
	return fig(path, unitCount, thousands(n), "")
}

// isShare reports whether a scale's mean is a proportion (a pass rate, a
// share of B), whose differences are percentage points.
func isShare(scale judge.Scale) bool {
	k := scale.Kind()
	return k == judge.KindBinary || k == judge.KindPairwise
}

// meanE writes a mean value: a pass rate or share of B in percent, a mean
// score with two decimals.
func meanE(path string, scale judge.Scale, e stats.Estimate) template.HTML {
	if isShare(scale) {
		return pctE(path, e)
	}
	return numE(path, e, 2)
}

// signedI writes a difference with its sign and interval: percentage
// points on a share ("+1.5 pts [+0.4, +2.5]"), scale points otherwise.
func signedI(path string, scale judge.Scale, i stats.Interval) template.HTML {
	unit, f, suffix := unitNumber, func(v float64) string { return render.SignedNumber(v, 2) }, ""
	if isShare(scale) {
		unit, f, suffix = unitPoints, func(v float64) string { return render.SignedNumber(100*v, 1) }, " pts"
	}
	if !i.Defined() {
		return fig(path, unit, stats.Undefined, orUndefined(i.Reason))
	}
	s := f(i.Value) + suffix
	if i.HasBounds() {
		s += fmt.Sprintf(" [%s, %s]", f(i.Low), f(i.High))
	}
	return fig(path, unit, s, "")
}

func orUndefined(r string) string {
	if r == "" {
		return "undefined"
	}
	return r
}

// thousands writes a count for a sentence: "3,595".
func thousands(n int) string { return humanize.Comma(int64(n)) }

// line is text from a session for one line of the page.
func line(s string) string { return safetext.SanitizeLine(s) }

// block is text from a session kept on its lines.
func block(s string) string { return safetext.Sanitize(s) }
