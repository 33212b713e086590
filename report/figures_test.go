package report

import (
	"math"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

func TestFigures(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"percent", string(pct("a.b", stats.Interval{Value: 0.912, Low: 0.9024, High: 0.92})),
			`<span class="fig" data-fig="a.b" data-unit="percent">91.2%<span class="ci"> [90.2%, 92.0%]</span></span>`},
		{"coefficient", string(coef("k", stats.Interval{Value: 0.7884, Low: nan, High: nan})),
			`<span class="fig" data-fig="k" data-unit="number">0.788</span>`},
		{"undefined", string(coef("k", stats.Interval{Value: nan, Low: nan, High: nan, Reason: "one <class> only"})),
			`<span class="fig undef" data-fig="k" data-unit="number">— <small>(one &lt;class&gt; only)</small></span>`},
		{"points", string(signedI("b", judge.Binary, stats.Interval{Value: 0.015, Low: 0.004, High: 0.025})),
			`<span class="fig" data-fig="b" data-unit="pts">+1.5 pts<span class="ci"> [+0.4, +2.5]</span></span>`},
		{"scale points", string(signedI("b", judge.Likert, stats.Interval{Value: -0.25, Low: -0.5, High: 0})),
			`<span class="fig" data-fig="b" data-unit="number">-0.25<span class="ci"> [-0.50, 0.00]</span></span>`},
		{"count", string(count(`x"y`, 3595)), `<span class="fig" data-fig="x&#34;y" data-unit="count">3,595</span>`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}

func TestSessionTextIsInert(t *testing.T) {
	// The bidi override is shown as \u202e, its backslash escaped.
	if got, want := md("a|b <i>*x*</i> \u202e#1"), `a\|b \<i\>\*x\*\</i\> \\u202e\#1`; got != want {
		t.Errorf("md: got %q, want %q", got, want)
	}
	if got := chartText("\u202eabc\x1b[31m"+strings.Repeat("x", 50), 20); strings.ContainsAny(got, "\u202e\x1b") || len([]rune(got)) != 20 || !strings.HasSuffix(got, "…") {
		t.Errorf("chartText: %q", got)
	}
	if got := mdFromHTML(`It is <strong>a &lt;b&gt; judge</strong>: <span class="fig" data-fig="x" data-unit="count">3</span>.`); got != `It is a \<b\> judge: 3.` {
		t.Errorf("mdFromHTML: %q", got)
	}
}

// A listed disagreement's long text is cut around a marked middle, so a
// page of thousands of long documents stays readable; short text is whole.
func TestLongTextIsCut(t *testing.T) {
	short := "a short prediction"
	if got := long(short); got != short {
		t.Errorf("short text changed: %q", got)
	}
	doc := strings.Repeat("x", 50_000) + "THE END"
	got := long(doc)
	if len(got) > longHead+longTail+100 || !strings.Contains(got, "bytes cut") || !strings.HasSuffix(got, "THE END") {
		t.Errorf("a 50 KB text became %d bytes: %q…", len(got), got[:min(len(got), 80)])
	}
}
