package render

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// How figures are written on the statistics screen, in `gavel stats` text
// and in its Markdown and HTML: proportions as percentages with one decimal,
// coefficients with three, undefined values as stats.Undefined followed by
// the reason. Every number goes through stats.FormatNumber or
// stats.FormatPercent, so NaN is never written.

// estimate renders a figure, or "—" with its reason.
func estimate(e stats.Estimate, decimals int) string {
	if !e.Defined() {
		return stats.Undefined + reason(e.Reason)
	}
	return stats.FormatNumber(e.Value, decimals)
}

// interval renders "72.0% [65.1%, 78.2%]" (or plain numbers), or "—".
func interval(i stats.Interval, percent bool) string {
	if !i.Defined() {
		return stats.Undefined + reason(i.Reason)
	}
	f := intervalPart(percent)
	s := f(i.Value)
	if i.HasBounds() {
		s += fmt.Sprintf(" [%s, %s]", f(i.Low), f(i.High))
	}
	return s
}

func intervalPart(percent bool) func(float64) string {
	if percent {
		return func(v float64) string { return stats.FormatPercent(v, 1) }
	}
	return func(v float64) string { return stats.FormatNumber(v, 3) }
}

// meanText is a mean value: a pass rate on a binary scale, the share of
// B on a pairwise one, a mean score otherwise.
func meanText(scale judge.Scale, e stats.Estimate) string {
	if !e.Defined() {
		return stats.Undefined
	}
	if isShare(scale) {
		return stats.FormatPercent(e.Value, 1)
	}
	return stats.FormatNumber(e.Value, 2)
}

// isShare reports whether a scale's mean is a proportion (a pass rate, a
// share of B), shown as a percentage and its differences in points.
func isShare(scale judge.Scale) bool {
	k := scale.Kind()
	return k == judge.KindBinary || k == judge.KindPairwise
}

// signedInterval renders a difference with its sign: percentage points on
// a binary scale, scale points otherwise.
func signedInterval(scale judge.Scale, i stats.Interval) string {
	if !i.Defined() {
		return stats.Undefined + reason(i.Reason)
	}
	f, unit := signedPart(scale)
	s := f(i.Value) + unit
	if i.HasBounds() {
		s += fmt.Sprintf(" [%s, %s]", f(i.Low), f(i.High))
	}
	return s
}

// signedPart formats one signed difference: percentage points on a binary
// or pairwise scale ("+4.5", unit " pts"), scale points with two decimals
// otherwise.
func signedPart(scale judge.Scale) (f func(float64) string, unit string) {
	if isShare(scale) {
		return func(v float64) string { return SignedNumber(100*v, 1) }, " pts"
	}
	return func(v float64) string { return SignedNumber(v, 2) }, ""
}

func signed(e stats.Estimate) string {
	if !e.Defined() {
		return stats.Undefined + reason(e.Reason)
	}
	return SignedNumber(e.Value, 3)
}

// SignedNumber writes v with its sign, + for positive values that do not
// round to zero (+4.8 pts); gavel report writes its differences with it.
func SignedNumber(v float64, decimals int) string {
	s := stats.FormatNumber(v, decimals)
	if v > 0 && s != stats.FormatNumber(0, decimals) {
		return "+" + s
	}
	return s
}

func reason(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}

// bare drops the reason from an undefined figure, for table cells that
// have no room for it.
func bare(s string) string {
	if strings.HasPrefix(s, stats.Undefined) {
		return stats.Undefined
	}
	return s
}

// biasWhat names what a score bias is a difference of.
func biasWhat(scale judge.Scale) string {
	switch scale.Kind() {
	case judge.KindBinary:
		return "pass rate"
	case judge.KindPairwise:
		return "share of B"
	}
	return "mean score"
}

// category is a value as a reviewer reads it on the scale (YES, 4, tie,
// CORRECT), made inert: nominal category names come from judge files.
func category(scale judge.Scale, v float64) string {
	return safetext.SanitizeLine(scale.Format(v))
}

// scaleText is a scale's spelling for a heading, made inert (a nominal
// scale's spelling holds its category names).
func scaleText(scale judge.Scale) string { return safetext.SanitizeLine(string(scale)) }

// namesWidth is the widest category name of c on the scale, in cells.
func namesWidth(scale judge.Scale, c stats.Confusion) int {
	w := 0
	for _, v := range c.Categories {
		w = max(w, ansi.StringWidth(category(scale, v)))
	}
	return w
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func padLeft(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return strings.Repeat(" ", n-w) + s
	}
	return s
}

// fixWidth cuts or pads s to exactly n cells.
func fixWidth(s string, n int) string {
	s = ansi.Truncate(s, n, "…")
	return s + strings.Repeat(" ", max(n-ansi.StringWidth(s), 0))
}

// padRight pads s to n cells, or adds one space when it is already as
// wide, so that a label never touches its value.
func padRight(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s + " "
}

// signedIntervalNumber renders a signed difference in scale points with
// its interval: "+0.250 [+0.100, +0.400]".
func signedIntervalNumber(i stats.Interval) string {
	if !i.Defined() {
		return stats.Undefined + reason(i.Reason)
	}
	s := SignedNumber(i.Value, 3)
	if i.HasBounds() {
		s += fmt.Sprintf(" [%s, %s]", SignedNumber(i.Low, 3), SignedNumber(i.High, 3))
	}
	return s
}
