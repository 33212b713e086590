package render

import (
	"fmt"
	"html"
	"strings"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// HTML renders a report as an HTML fragment: the lines of Text, tables
// and all, in a <pre> (their columns line up in a monospace font), each
// piece with a role in a <span> whose class is the role's name ("muted",
// "header", "cell"…), so that a page's style sheet can colour them as the
// screen does. A confusion-matrix cell also carries its share of the
// items in data-share, for shading. Every piece of text is escaped, after
// control and bidirectional-override characters were made visible, so
// names from a session cannot add markup to the page. The fragment holds
// no script and no style: the page that includes it brings its own.
func HTML(r stats.Report) string {
	var b strings.Builder
	b.WriteString(`<pre class="gavel-stats">` + "\n")
	for _, l := range Lines(r, TextWidth) {
		writeHTMLLine(&b, l)
		b.WriteByte('\n')
	}
	b.WriteString("</pre>\n")
	return b.String()
}

func writeHTMLLine(b *strings.Builder, l Line) {
	for _, s := range l {
		t := html.EscapeString(s.Text)
		switch s.Role {
		case RolePlain:
			b.WriteString(t)
		case RoleCell, RoleCellDiagonal:
			fmt.Fprintf(b, `<span class="%s" data-share="%s">%s</span>`, s.Role, stats.FormatNumber(s.Share, 3), t)
		default:
			fmt.Fprintf(b, `<span class="%s">%s</span>`, s.Role, t)
		}
	}
}
