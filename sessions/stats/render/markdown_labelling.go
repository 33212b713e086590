package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// markdownLabelling writes the labelling section as tables: the same
// figures and words as labellingLines. Nothing when the report has none.
func markdownLabelling(b *strings.Builder, l *stats.Labelling) {
	if l == nil {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Labelling\n")
	if g := l.Guidelines; g != nil {
		w("\n### Guidelines\n\nThe figures count %s", MarkdownText(GuidelinesFilterText(g.Filter)))
		if g.Filter.Filter != stats.FilterAll {
			w("; %s left out", plural(g.LeftOut, "label", "labels"))
		}
		w(".\n")
		var rows [][]string
		for _, v := range g.Versions {
			id := fmt.Sprint(v.ID)
			if v.Current {
				id += " (current)"
			}
			rows = append(rows, []string{id, v.FirstSeen.UTC().Format("2006-01-02 15:04 UTC"), hashCell(v.SHA256), fmt.Sprint(v.Labels)})
		}
		rows = append(rows, []string{"none on screen", "", "", fmt.Sprint(g.WithoutGuidelines)})
		mdTable(b, []string{"Version", "First seen", "SHA-256", ">Current labels"}, rows)
	}
	if cj := l.CantJudge; cj != nil {
		w("\n### Can't judge\n\n%s on %s; %s left out of every agreement figure, between people too.\n",
			plural(cj.Total, "mark", "marks"), plural(cj.Items, "item", "items"), plural(cj.LabelsLeftOut, "label", "labels"))
		head := []string{"Annotator", ">Marks"}
		for _, r := range Reasons(cj.ByReason) {
			head = append(head, ">"+capitalize(ReasonText(r.Reason)))
		}
		row := func(name string, total int, rc stats.ReasonCounts) []string {
			cells := []string{name, fmt.Sprint(total)}
			for _, r := range Reasons(rc) {
				cells = append(cells, fmt.Sprint(r.Count))
			}
			return cells
		}
		rows := [][]string{row("all", cj.Total, cj.ByReason)}
		for _, a := range cj.ByAnnotator {
			rows = append(rows, row(MarkdownText(a.Annotator), a.Total, a.ByReason))
		}
		mdTable(b, head, rows)
	}
	if tg := l.Tags; tg != nil {
		w("\n### Failure tags\n\nItems tagged, and among the items where each judge disagrees with the humans.\n")
		head := []string{"Tag", ">Items"}
		for _, d := range tg.Disagreements {
			head = append(head, fmt.Sprintf(">Among %s's %d", MarkdownText(d.Judge), d.Items))
		}
		var rows [][]string
		for i, t := range tg.Tags {
			cells := []string{MarkdownText(t.Tag), fmt.Sprint(t.Items)}
			for _, d := range tg.Disagreements {
				cells = append(cells, fmt.Sprint(d.Tags[i].Items))
			}
			rows = append(rows, cells)
		}
		mdTable(b, head, rows)
	}
	if len(l.Annotators) > 0 {
		markdownReliability(b, l.Annotators)
	}
}

// markdownReliability writes each annotator's reliability: time, fatigue,
// re-tests and the anchoring check, a table each.
func markdownReliability(b *strings.Builder, as []stats.AnnotatorReliability) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n### The labellers' own reliability\n")
	var rows [][]string
	for _, a := range as {
		rows = append(rows, []string{MarkdownText(a.Annotator), fmt.Sprint(a.Decisions), mdSeconds(a.MedianSeconds), fmt.Sprint(a.Timed), fmt.Sprint(a.Paused)})
	}
	mdTable(b, []string{"Annotator", ">Decisions", ">Median time", ">Timed", fmt.Sprintf(">Pauses over %d min", stats.PauseSeconds/60)}, rows)

	rows = nil
	for _, a := range as {
		f := a.Fatigue
		if f == nil {
			continue
		}
		for _, q := range []struct {
			name string
			q    stats.QuarterFigures
		}{{"first", f.First}, {"last", f.Last}} {
			var shares []string
			for _, j := range q.q.Judges {
				shares = append(shares, MarkdownText(j.Judge)+" "+shareMD(j.Share))
			}
			rows = append(rows, []string{MarkdownText(a.Annotator), fmt.Sprint(f.Sittings), q.name, fmt.Sprint(q.q.Decisions), mdSeconds(q.q.MedianSeconds), strings.Join(shares, "; ")})
		}
	}
	if len(rows) > 0 {
		w("\n#### Fatigue: the first and last quarter of each sitting\n")
		mdTable(b, []string{"Annotator", ">Sittings", "Quarter", ">Decisions", ">Median time", "Agreement with the judge"}, rows)
	}

	rows = nil
	for _, a := range as {
		for _, r := range a.Retest {
			note := ""
			if !r.Stable {
				note = notStable(r.Pairs)
			}
			rows = append(rows, slices.Concat([]string{MarkdownText(a.Annotator), MarkdownText(r.Dimension), fmt.Sprint(r.Pairs)},
				mdInterval(r.PercentAgreement, true)[:2], mdInterval(r.CohenKappa, false)[:2], []string{note}))
		}
	}
	if len(rows) > 0 {
		w("\n#### Re-tests: agreement with oneself\n")
		mdTable(b, []string{"Annotator", "Dimension", ">Pairs", ">Agreement", "95% interval", ">Cohen's kappa", "95% interval", "Note"}, rows)
	}

	rows = nil
	var sentences []string
	for _, a := range as {
		for _, an := range a.Anchoring {
			diff := stats.Undefined
			ci := MarkdownText(an.Difference.Reason)
			if an.Difference.Defined() {
				diff, ci = SignedNumber(100*an.Difference.Value, 1)+" pts", ""
				if an.Difference.HasBounds() {
					ci = SignedNumber(100*an.Difference.Low, 1) + " – " + SignedNumber(100*an.Difference.High, 1)
				}
			}
			rows = append(rows, []string{MarkdownText(a.Annotator), MarkdownText(an.Judge), shareMD(an.Blind), shareMD(an.Shown), diff, ci})
			if an.Sentence != "" {
				sentences = append(sentences, an.Sentence)
			}
		}
	}
	if len(rows) > 0 {
		w("\n#### Anchoring: agreement with the judge, its verdict hidden or shown\n")
		mdTable(b, []string{"Annotator", "Judge", "Blind", "Shown (accepts included)", ">Shown − blind", "95% interval (Newcombe)"}, rows)
		for _, s := range sentences {
			w("\n**%s**\n", MarkdownText(s))
		}
	}
}

// shareMD is "88.0% [80.1%, 93.2%] (n = 120)" for a cell.
func shareMD(s stats.Share) string { return MarkdownText(shareText(s)) }

// mdSeconds is a time per decision for a cell.
func mdSeconds(e stats.Estimate) string { return MarkdownText(bare(Seconds(e))) }

// shortHash is the head of a SHA-256, enough to tell versions apart.
func shortHash(h string) string {
	if r := []rune(h); len(r) > 12 {
		return string(r[:12])
	}
	return h
}

// hashCell is a version's hash in a table cell: its first twelve hex
// digits as code, or, for a hash that is not hex (edited by hand), the
// text escaped and not as code (a backtick inside would end the code
// span).
func hashCell(h string) string {
	short := shortHash(h)
	for _, c := range short {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return MarkdownText(short)
		}
	}
	return "`" + short + "`"
}
