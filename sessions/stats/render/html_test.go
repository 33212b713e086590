package render

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

var tag = regexp.MustCompile(`<[^>]*>`)

// The HTML holds the text's lines: with the tags taken out and the
// entities read back, it is Text, figure for figure.
func TestHTMLIsTheText(t *testing.T) {
	r := stats.Compute(statsFixture(), stats.Options{Seed: 1})
	h := HTML(r)
	if !strings.HasPrefix(h, `<pre class="gavel-stats">`+"\n") || !strings.HasSuffix(h, "</pre>\n") {
		t.Errorf("not a <pre> fragment:\n%s", h)
	}
	if got, want := html.UnescapeString(tag.ReplaceAllString(h, "")), "\n"+Text(r)+"\n"; got != want {
		t.Errorf("the HTML's text is not Text:\n%s", got)
	}
	for _, want := range []string{
		`<span class="header">match · correct (binary)</span>`,
		`<span class="muted">  Wilson 95%</span>`,
		`<span class="cell-diagonal" data-share="0.`,
		`<span class="cell" data-share="0.`,
		`<span class="bar-full">█`,
		`<span class="warning">⚠ 75% of the labelled items`,
		"Cohen&#39;s kappa",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("the HTML lacks %s", want)
		}
	}
	for _, bad := range []string{"<script", "<style", "style="} {
		if strings.Contains(h, bad) {
			t.Errorf("the HTML holds %s", bad)
		}
	}
}

func TestHTMLEscapesHostileNames(t *testing.T) {
	r := stats.Compute(hostileFixture(), stats.Options{Seed: 1, Resamples: -1})
	h := HTML(r)
	for _, bad := range []string{"<script", "<img", "<i>", "\x1b", "\x07", "\u202e", `"'`} {
		if strings.Contains(h, bad) {
			t.Errorf("%q reaches the HTML unescaped", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;&amp;&#34;&#39;", `\u202e`, "␛]0;pwned␇"} {
		if !strings.Contains(h, want) {
			t.Errorf("the HTML does not show %s as text", want)
		}
	}
	// Only the renderer's own tags are left.
	for _, tg := range tag.FindAllString(h, -1) {
		if !regexp.MustCompile(`^</?(pre|span)( class="[a-z-]+"( data-share="[0-9.]+")?)?>$`).MatchString(tg) && tg != `<pre class="gavel-stats">` {
			t.Errorf("unexpected tag %s", tg)
		}
	}
}
