package report

import (
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"

	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// WriteMarkdown writes the report as Markdown for a pull request: the
// verdict, the statistics as `gavel stats --format markdown` writes them
// (tables, no chart), the disagreements and the provenance. Text from the
// session is made inert and its Markdown punctuation escaped; long item
// text is cut.
func WriteMarkdown(w io.Writer, d *Data) error {
	p, err := d.view()
	if err != nil {
		return err
	}
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	f("# %s\n\n", md(p.Title))
	f("_Session %s", md(d.Session))
	if p.Generated != "" {
		f(", written %s", p.Generated)
	}
	f("; the figures are `gavel stats`' with seed %d._\n\n", d.Stats.Seed)
	f("## Verdict\n\n")
	var sentences []string
	for _, s := range p.Verdict {
		sentences = append(sentences, mdFromHTML(string(s)))
	}
	f("%s\n\n", strings.Join(sentences, " "))
	// The statistics, as gavel stats writes them: its headings one level
	// down.
	for _, l := range strings.Split(strings.TrimRight(render.Markdown(d.Stats), "\n"), "\n") {
		if strings.HasPrefix(l, "#") {
			l = "#" + l
		}
		b.WriteString(l + "\n")
	}
	f("\n## Disagreements (%s items)\n\n", thousands(d.DisagreeingItems))
	if len(d.Disagreements) < d.DisagreeingItems {
		f("A seeded random sample of %d of them, in dataset order (`gavel report --disagreements 0` lists them all).\n\n", len(d.Disagreements))
	}
	if len(d.Disagreements) == 0 {
		f("None: every judge agrees with the humans on every item both rated.\n")
	}
	for _, dis := range d.Disagreements {
		f("### Item %s", md(dis.ItemID))
		if dis.Criterion > 0 {
			f(", criterion %d", dis.Criterion)
		}
		f("\n\n")
		item := func(label, text string) {
			if text != "" {
				f("- **%s:** %s\n", label, md(clip(text, mdTextLimit)))
			}
		}
		item("Question", dis.Question)
		item("Criterion", dis.Rubric)
		item("Gold", dis.Gold)
		item("Prediction", dis.Prediction)
		item("Response A", dis.ResponseA)
		item("Response B", dis.ResponseB)
		notes := map[string]bool{}
		for _, h := range dis.Humans {
			f("- **Human %s:** %s = %s\n", md(h.Annotator), md(h.Dimension), md(h.Value))
			if h.Note != "" && !notes[h.Annotator] {
				notes[h.Annotator] = true
				f("- **Note by %s:** %s\n", md(h.Annotator), md(clip(h.Note, mdTextLimit)))
			}
		}
		for _, v := range dis.Verdicts {
			f("- **Judge %s:** %s = %s (humans: %s)", md(v.Judge), md(v.Dimension), md(v.Value), md(v.Human))
			if r := v.Reason; r != "" {
				f(": %s", md(clip(r, mdTextLimit)))
			}
			f("\n")
		}
		f("\n")
	}
	writeProvenanceMarkdown(&b, p.Provenance)
	_, err = io.WriteString(w, b.String())
	return err
}

// mdTextLimit is how many characters of an item's text the Markdown
// report keeps.
const mdTextLimit = 600

func writeProvenanceMarkdown(b *strings.Builder, p provenance) {
	f := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	table := func(head [2]string, rows []kv) {
		f("\n| %s | %s |\n|---|---|\n", head[0], head[1])
		for _, r := range rows {
			f("| %s | %s |\n", md(r.Key), md(r.Value))
		}
	}
	f("\n## Provenance\n")
	table([2]string{"Data", ""}, p.Dataset)
	if len(p.Mapping) > 0 {
		table([2]string{"Role", "Field of the dataset"}, p.Mapping)
	}
	for _, r := range p.Runs {
		f("\n### Judge %s\n", md(r.Name))
		table([2]string{"", ""}, r.Facts)
		if r.Definition != "" {
			fence := "```"
			for strings.Contains(r.Definition, fence) {
				fence += "`"
			}
			f("\n%syaml\n%s\n%s\n", fence, strings.TrimRight(r.Definition, "\n"), fence)
		}
	}
	if len(p.Labels) > 0 {
		table([2]string{"Labels reached", "Labels"}, p.Labels)
	}
	if len(p.Annotators) > 0 {
		f("\n| Annotator | Labels | Notes | How the items were reached |\n|---|---:|---:|---|\n")
		for _, a := range p.Annotators {
			f("| %s | %d | %d | %s |\n", md(a.Name), a.Labels, a.Notes, md(vias(a.Via)))
		}
	}
	table([2]string{"Setting", ""}, p.Settings)
}

// md makes session text safe in Markdown, as gavel stats' Markdown does.
func md(s string) string { return render.MarkdownText(s) }

var tags = regexp.MustCompile(`<[^>]*>`)

// mdFromHTML turns a sentence of the page (our own markup around escaped
// text) into Markdown.
func mdFromHTML(s string) string {
	return md(html.UnescapeString(tags.ReplaceAllString(s, "")))
}

// clip cuts text to n characters, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
