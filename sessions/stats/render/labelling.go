package render

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The labelling section (SPEC "Labelling well"): written once here for
// the screen and `gavel stats` text; markdown_labelling.go and gavel
// report write the same figures with the same words (ReasonText,
// GuidelinesFilterText, Seconds, AnchoringDifference).

// ReasonText names a "can't judge" reason for people.
func ReasonText(reason string) string {
	switch reason {
	case stats.ReasonGoldWrong:
		return "gold is wrong"
	case stats.ReasonAmbiguous:
		return "question ambiguous"
	case stats.ReasonUnreadable:
		return "prediction unreadable"
	case stats.ReasonOther:
		return "other"
	}
	return safetext.SanitizeLine(reason)
}

// Reasons are the reasons in the order screens offer them, with their
// counts in rc.
func Reasons(rc stats.ReasonCounts) []ReasonCount {
	return []ReasonCount{
		{stats.ReasonGoldWrong, rc.GoldWrong}, {stats.ReasonAmbiguous, rc.Ambiguous},
		{stats.ReasonUnreadable, rc.Unreadable}, {stats.ReasonOther, rc.Other},
	}
}

// ReasonCount is a reason and its count; Reason is the JSON key under
// by_reason.
type ReasonCount struct {
	Reason string
	Count  int
}

// GuidelinesFilterText says which labels the figures count.
func GuidelinesFilterText(f stats.GuidelinesFilter) string {
	switch f.Filter {
	case stats.FilterCurrent:
		return fmt.Sprintf("the labels made under version %d, the current one (--guidelines current)", f.Version)
	case stats.FilterVersion:
		return fmt.Sprintf("the labels made under version %d (--guidelines %d)", f.Version, f.Version)
	}
	return "every label (--guidelines all)"
}

// Seconds writes a time per decision: "6.2 s", or "—" with the reason.
func Seconds(e stats.Estimate) string {
	if !e.Defined() {
		return stats.Undefined + reason(e.Reason)
	}
	return stats.FormatNumber(e.Value, 1) + " s"
}

// AnchoringDifference writes the difference of agreement shown − blind in
// percentage points with its interval: "+17.0 pts [+3.1, +30.2]".
func AnchoringDifference(i stats.Interval) string {
	if !i.Defined() {
		return stats.Undefined + reason(i.Reason)
	}
	f := func(v float64) string { return SignedNumber(100*v, 1) }
	s := f(i.Value) + " pts"
	if i.HasBounds() {
		s += fmt.Sprintf(" [%s, %s]", f(i.Low), f(i.High))
	}
	return s
}

// notStable is the warning of a re-test with too few pairs.
func notStable(pairs int) string {
	return fmt.Sprintf("not yet stable: %s, fewer than %d", plural(pairs, "pair", "pairs"), stats.MinReliableItems)
}

// labellingLines renders the labelling section; none when the report
// has none.
func labellingLines(l *stats.Labelling) []Line {
	if l == nil {
		return nil
	}
	var out []Line
	add := func(ls ...Line) { out = append(out, ls...) }
	add(text(RoleStrong, "Labelling"))
	if g := l.Guidelines; g != nil {
		for i, v := range g.Versions {
			name := ""
			if i == 0 {
				name = "guidelines"
			}
			cur := ""
			if v.Current {
				cur = " (current)"
			}
			add(statRow(name, plain(fmt.Sprintf("version %d%s: %s, from %s", v.ID, cur,
				plural(v.Labels, "label", "labels"), v.FirstSeen.UTC().Format("2006-01-02")))))
		}
		if g.WithoutGuidelines > 0 {
			add(statRow("", muted(fmt.Sprintf("none on screen: %s", plural(g.WithoutGuidelines, "label", "labels")))))
		}
		counted := GuidelinesFilterText(g.Filter)
		if g.Filter.Filter != stats.FilterAll {
			counted += fmt.Sprintf("; %d left out", g.LeftOut)
		}
		add(statRow("figures count", plain(counted)))
	}
	if cj := l.CantJudge; cj != nil {
		add(statRow("can't judge", plain(fmt.Sprintf("%s on %s, %s left out of agreement",
			plural(cj.Total, "mark", "marks"), plural(cj.Items, "item", "items"), plural(cj.LabelsLeftOut, "label", "labels")))))
		add(statRow("  by reason", plain(reasonsText(cj.ByReason))))
		if len(cj.ByAnnotator) > 1 {
			for _, a := range cj.ByAnnotator {
				add(statRow("  "+safetext.SanitizeLine(a.Annotator), plain(fmt.Sprintf("%d: %s", a.Total, reasonsText(a.ByReason)))))
			}
		}
	}
	if tg := l.Tags; tg != nil {
		head := "items tagged"
		if len(tg.Disagreements) > 0 {
			head += " · among each judge's disagreements"
		}
		add(statRow("failure tags", muted(head)))
		for i, t := range tg.Tags {
			s := plural(t.Items, "item", "items")
			for _, d := range tg.Disagreements {
				s += fmt.Sprintf(" · %s %d of %d", safetext.SanitizeLine(d.Judge), d.Tags[i].Items, d.Items)
			}
			add(statRow("  "+safetext.SanitizeLine(t.Tag), plain(s)))
		}
	}
	for _, a := range l.Annotators {
		add(nil)
		add(annotatorLines(a)...)
	}
	return out
}

// reasonsText is "gold is wrong 3 · question ambiguous 2": the reasons
// counted, in the order screens offer them.
func reasonsText(rc stats.ReasonCounts) string {
	var parts []string
	for _, r := range Reasons(rc) {
		if r.Count > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", ReasonText(r.Reason), r.Count))
		}
	}
	return strings.Join(parts, " · ")
}

// annotatorLines is one annotator's reliability: decisions and time,
// fatigue, re-tests and the anchoring check.
func annotatorLines(a stats.AnnotatorReliability) []Line {
	name := safetext.SanitizeLine(a.Annotator)
	out := []Line{text(RoleStrong, "Annotator "+name+"  (the labeller's own reliability)")}
	timing := fmt.Sprintf("%d · median %s per decision", a.Decisions, Seconds(a.MedianSeconds))
	if a.Paused > 0 {
		timing += fmt.Sprintf(" (%s over %d min left out)", plural(a.Paused, "pause", "pauses"), stats.PauseSeconds/60)
	}
	out = append(out, statRow("decisions", plain(timing)))
	if f := a.Fatigue; f != nil {
		out = append(out,
			statRow("fatigue · "+plural(f.Sittings, "sitting", "sittings"), plain(fmt.Sprintf("first quarter: %s, median %s",
				plural(f.First.Decisions, "decision", "decisions"), Seconds(f.First.MedianSeconds)))),
			statRow("", plain(fmt.Sprintf("last quarter: %s, median %s", plural(f.Last.Decisions, "decision", "decisions"), Seconds(f.Last.MedianSeconds)))))
		for _, j := range fatigueJudges(f) {
			name := safetext.SanitizeLine(j)
			out = append(out,
				statRow("  "+name+", first", plain(shareText(judgeShareOf(f.First.Judges, j)))),
				statRow("  "+name+", last", plain(shareText(judgeShareOf(f.Last.Judges, j)))))
		}
	}
	for _, r := range a.Retest {
		out = append(out,
			statRow("re-test · "+safetext.SanitizeLine(r.Dimension), plain(fmt.Sprintf("%s · agreement %s", plural(r.Pairs, "pair", "pairs"), interval(r.PercentAgreement, true)))),
			statRow("", plain("kappa "+interval(r.CohenKappa, false))))
		if !r.Stable {
			out = append(out, statRow("", Span{Text: "⚠ " + notStable(r.Pairs), Role: RoleWarning}))
		}
	}
	for _, an := range a.Anchoring {
		out = append(out,
			statRow("anchoring · "+safetext.SanitizeLine(an.Judge), plain("blind "+shareText(an.Blind))),
			statRow("", plain("shown "+shareText(an.Shown))),
			statRow("  shown − blind", plain(AnchoringDifference(an.Difference)), muted("  Newcombe 95%")))
		if an.Sentence != "" {
			out = append(out, text(RoleWarning, "  ⚠ "+safetext.SanitizeLine(an.Sentence)))
		}
	}
	return out
}

// shareText is "88.0% [80.1%, 93.2%] (n = 120)".
func shareText(s stats.Share) string {
	if s.N == 0 {
		return stats.Undefined + " (n = 0)"
	}
	return fmt.Sprintf("%s (n = %d)", interval(s.Agreement, true), s.N)
}

// fatigueJudges lists the judges of either quarter, in report order.
func fatigueJudges(f *stats.Fatigue) []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range [][]stats.JudgeShare{f.First.Judges, f.Last.Judges} {
		for _, j := range list {
			if !seen[j.Judge] {
				seen[j.Judge] = true
				out = append(out, j.Judge)
			}
		}
	}
	return out
}

// judgeShareOf is a judge's share in list, empty when it has none.
func judgeShareOf(list []stats.JudgeShare, judge string) stats.Share {
	for _, j := range list {
		if j.Judge == judge {
			return j.Share
		}
	}
	return stats.Share{}
}
