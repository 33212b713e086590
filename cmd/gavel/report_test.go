package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/report"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// figSpan is one figure of the page: its place in the JSON, its unit and
// its text (the interval's span and an undefined figure's reason inside).
var figSpan = regexp.MustCompile(`<span class="fig( undef)?" data-fig="([^"]*)" data-unit="([^"]*)">((?:[^<]|<span class="ci">[^<]*</span>|<small>[^<]*</small>)*)</span>`)

var numberRE = regexp.MustCompile(`[+-]?\d+(?:\.\d+)?`)

// reportFigure is a figure read back from the page.
type reportFigure struct {
	path, unit, text string
	undefined        bool
}

// readFigures reads every figure of a report page.
func readFigures(t *testing.T, page string) []reportFigure {
	t.Helper()
	var out []reportFigure
	for _, m := range figSpan.FindAllStringSubmatch(page, -1) {
		text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[4], ""))
		out = append(out, reportFigure{path: html.UnescapeString(m[2]), unit: m[3], text: text, undefined: m[1] != ""})
	}
	if n := strings.Count(page, `class="fig`); n != len(out) {
		t.Fatalf("read %d figures of the %d in the page: the pattern misses some", len(out), n)
	}
	return out
}

// jsonAt finds a dotted path (judges.0.dimensions.0.overall.units) in a
// decoded JSON document.
func jsonAt(doc any, path string) (any, bool) {
	cur := doc
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// checkFiguresAgainstJSON compares every figure of a report page with the
// JSON of `gavel stats --format json` at the precision the page shows.
func checkFiguresAgainstJSON(t *testing.T, page, statsJSON string) int {
	t.Helper()
	return checkFigures(t, readFigures(t, page), statsJSON)
}

// checkFigures compares figures read from a page (its HTML, or the
// browser's document) with the JSON of `gavel stats --format json`.
func checkFigures(t *testing.T, figs []reportFigure, statsJSON string) int {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(statsJSON), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		v, ok := jsonAt(doc, f.path)
		if !ok {
			t.Errorf("%s: not in the JSON (shown %q)", f.path, f.text)
			continue
		}
		var want []*float64
		switch v := v.(type) {
		case float64:
			want = []*float64{&v}
		case map[string]any:
			for _, k := range []string{"value", "low", "high"} {
				if x, ok := v[k].(float64); ok {
					want = append(want, &x)
				} else if _, present := v[k]; present || k == "value" {
					want = append(want, nil)
				}
			}
		default:
			t.Errorf("%s: the JSON holds %T", f.path, v)
			continue
		}
		if want[0] == nil {
			if !f.undefined || !strings.HasPrefix(f.text, stats.Undefined) {
				t.Errorf("%s: undefined in the JSON, the page shows %q", f.path, f.text)
			}
			continue
		}
		if f.undefined {
			t.Errorf("%s: the page shows %q, the JSON %v", f.path, f.text, *want[0])
			continue
		}
		text := f.text
		if f.unit == "count" {
			text = strings.ReplaceAll(text, ",", "")
		}
		shown := numberRE.FindAllString(text, -1)
		var defined []float64
		for _, w := range want {
			if w != nil {
				defined = append(defined, *w)
			}
		}
		if len(shown) != len(defined) && len(shown) != 1 {
			t.Errorf("%s: the page shows %q, the JSON has %v", f.path, f.text, defined)
			continue
		}
		for i, s := range shown {
			got, _ := strconv.ParseFloat(s, 64)
			decimals := 0
			if j := strings.IndexByte(s, '.'); j >= 0 {
				decimals = len(s) - j - 1
			}
			w := defined[i]
			if f.unit == "percent" || f.unit == "pts" {
				w *= 100
			}
			if math.Abs(got-w) > 0.5*math.Pow(10, -float64(decimals))+1e-9 {
				t.Errorf("%s: the page shows %q, the JSON %v", f.path, f.text, defined)
				break
			}
		}
	}
	return len(figs)
}

// TestReportFiguresEqualStats reads every figure back from the report of
// the statistics' fixture session and compares it with `gavel stats
// --format json`.
func TestReportFiguresEqualStats(t *testing.T) {
	session := statsSession(t)
	page := filepath.Join(t.TempDir(), "report.html")
	code, out, errs := gavel(t, "report", session, "-o", page, "--no-date")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "report.html: 2 judges") {
		t.Errorf("stdout %q", out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, js, _ := gavel(t, "stats", session, "--format", "json")
	if n := checkFiguresAgainstJSON(t, string(b), js); n < 100 {
		t.Errorf("only %d figures in the report", n)
	}
	// The same session gives the same file.
	again := filepath.Join(t.TempDir(), "again.html")
	gavel(t, "report", session, "-o", again, "--no-date")
	if c, _ := os.ReadFile(again); string(c) != string(b) {
		t.Error("two reports of the same session differ")
	}
}

// TestReportTriviaQA renders the report of the TriviaQA import of "Judging
// the judges" (eleven judges, 3,600 items labelled by one human): its
// figures equal `gavel stats --format json`, and in Chromium it shows
// every chart, logs no error and asks for nothing, at desktop and phone
// widths.
func TestReportTriviaQA(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	src := sharedData(t, "judging_the_judges__TriviaQA_Judges_w_HumanJudgement_V1.csv")
	dir := t.TempDir()
	session := filepath.Join(dir, "tq.gavel")
	if code, _, errs := gavel(t, "import", src, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	// 200 resamples, in the report and in gavel stats alike, keep the
	// test quick under the race detector.
	code, out, errs := gavel(t, "report", session, "--no-date", "--resamples", "200")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	page := filepath.Join(dir, "tq-report.html")
	if !strings.HasPrefix(out, page+": 11 judges") {
		t.Errorf("stdout %q", out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, js, _ := gavel(t, "stats", session, "--format", "json", "--resamples", "200")
	if n := checkFiguresAgainstJSON(t, string(b), js); n < 1000 {
		t.Errorf("only %d figures in the report", n)
	}
	if !strings.Contains(string(b), "the one that agrees best with the humans is <strong>imported · Llama3-70B</strong>") {
		t.Error("the verdict does not name the best judge")
	}
	checkNoUnescapedTag(t, string(b))

	got := browse(t, page, dir, []int{1280, 390}, false)
	checkBrowsed(t, "TriviaQA", got)
	// The figures as the browser shows them, read from its document.
	var shown []reportFigure
	for _, f := range got.Figures {
		shown = append(shown, reportFigure{path: f.Path, unit: f.Unit, text: f.Text, undefined: f.Undefined})
	}
	if n := checkFigures(t, shown, js); n < 1000 {
		t.Errorf("only %d figures in the browser's document", n)
	}
	kinds := map[string]int{}
	for _, c := range got.Charts {
		kinds[c.Kind]++
	}
	for kind, want := range map[string]int{"judges": 1, "confusion": 11, "distribution": 11, "segments": 11, "accumulation": 11, "pairs": 1} {
		if kinds[kind] != want {
			t.Errorf("%d %s charts, want %d (all: %v)", kinds[kind], kind, want, kinds)
		}
	}
	t.Logf("screenshots: %s", strings.Join(got.Shots, ", "))
}

// TestReportDemoInBrowser labels the demo's items (one annotator every
// item, a second one some, with notes) and checks its report in Chromium.
func TestReportDemoInBrowser(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "demo.gavel")
	e, _, errb, _ := testEnv(t)
	if code := execute(context.Background(), e, []string{"--session", session, "--annotator", "ana"}); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errb)
	}
	waitVerdicts(t, session, 60)
	labelEveryVerdict(t, session, "ana", 4, "random")
	labelEveryVerdict(t, session, "bob", 7, "order")
	page := filepath.Join(dir, "demo.html")
	code, _, errs := gavel(t, "report", session, "-o", page)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, js, _ := gavel(t, "stats", session, "--format", "json")
	checkFiguresAgainstJSON(t, string(b), js)
	checkNoUnescapedTag(t, string(b))
	got := browse(t, page, dir, []int{1280, 390}, false)
	checkBrowsed(t, "demo", got)
	kinds := map[string]int{}
	for _, c := range got.Charts {
		kinds[c.Kind]++
	}
	for _, kind := range []string{"judges", "confusion", "distribution", "segments", "accumulation"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s chart (all: %v)", kind, kinds)
		}
	}
	if !strings.Contains(string(b), "Agreement between annotators") {
		t.Error("no agreement between the two annotators")
	}
}

// labelEveryVerdict labels, as annotator, every unit the session's first
// run judged: the judge's value, flipped on every flip-th unit, with a note
// on those.
func labelEveryVerdict(t *testing.T, path, annotator string, flip int, via string) {
	t.Helper()
	s, err := sessions.Open(path, sessions.Options{Annotator: annotator})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs()
	if err != nil || len(runs) == 0 {
		t.Fatalf("no run: %v", err)
	}
	vs, err := s.Verdicts(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var acts []sessions.Action
	for i, v := range vs {
		for dim, val := range v.Values {
			if i%flip == 0 {
				val = 1 - val
				acts = append(acts, sessions.Action{Kind: sessions.KindNote, ItemID: v.ItemID, Note: annotator + " thinks the judge is wrong here", Via: via})
			}
			acts = append(acts, sessions.Action{Kind: sessions.KindLabel, ItemID: v.ItemID, Criterion: v.Criterion, Dimension: dim, Value: val, Via: via})
		}
	}
	if _, err := s.Record(acts); err != nil {
		t.Fatal(err)
	}
}

// hostile texts, one per field of the session.
var hostile = []string{
	`<script>alert('item')</script>`,
	`<img src=x onerror=alert('img')> &#x202E;&lt;b&gt; $\color{red}{x}$ @octocat`,
	`<a href="javascript:alert('link')">click</a> &amp;`,
	`</textarea><svg onload=alert('svg')>`,
	`</style><script>alert('style')</script>`,
	`]]><!-- <iframe src=javascript:alert('frame')>`,
	"\u202eevil\u202c \u2066isolate\u2069 <b onmouseover=alert('bidi')>x</b>",
	"\x1b[31mred\x1b[0m {{.CSS}} ${alert('tmpl')} \x00nul",
	"&#x202E;entity &lt;b onmouseover=alert('entity')&gt;x&lt;/b&gt; ~~struck~~ ![img](x) $\\color{red}{PASS}$ @octocat",
}

func hostileText(i int) string { return hostile[i%len(hostile)] + fmt.Sprintf(" #%d", i) }

// hostileSession writes a session whose every text is hostile: the file
// names, the dataset's mapping, items and segments, two judges (names,
// model, parameters, description, definition, dimension, reasons, extra
// fields) and two annotators (names, notes, how they reached the items).
func hostileSession(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), `<svg onload=alert('dir')>`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, `<img src=x onerror=alert('file')>.gavel`)
	first := hostileText(0) + "\u202e"
	s, err := sessions.Open(path, sessions.Options{Annotator: first})
	if err != nil {
		t.Fatal(err)
	}
	dim := judge.Dimension{Name: `<b>correct</b>` + "\u202e", Scale: judge.Binary}
	var items []judge.Item
	for i := range 40 {
		items = append(items, judge.Item{Index: i, ID: hostileText(i) + fmt.Sprint(i), Question: hostileText(i + 1), Gold: hostileText(i + 2),
			Prediction: hostileText(i + 3), Segments: map[string]string{hostileText(4): hostileText(i % 3)}})
	}
	info := sessions.DatasetInfo{Path: `/data/<script>alert('path')</script>` + "\u202e.jsonl", SHA256: hostileText(5), Format: "jsonl",
		Mapping: map[string]string{"question": hostileText(6), "segment": hostileText(4)}}
	if err := s.InitDataset(info, items); err != nil {
		t.Fatal(err)
	}
	for j := range 2 {
		run, err := s.EnsureRun(judge.Info{Name: hostileText(j + 10), Model: hostileText(j + 11), Description: hostileText(j + 12),
			Definition: hostileText(j+13) + "\n```\n" + hostileText(j+14), Params: map[string]any{hostileText(j): hostileText(j + 1)},
			Dimensions: []judge.Dimension{dim}})
		if err != nil {
			t.Fatal(err)
		}
		var vs []judge.Verdict
		for i, it := range items {
			vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{dim.Name: float64((i + j) % 2)},
				Reason: hostileText(i + 20), Raw: hostileText(i + 21), Extra: map[string]any{hostileText(7): hostileText(i % 2)}})
		}
		if err := s.SaveVerdicts(run.ID, vs); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	for a, name := range []string{first, hostileText(3) + "\u2066"} {
		s, err := sessions.Open(path, sessions.Options{Annotator: name})
		if err != nil {
			t.Fatal(err)
		}
		var acts []sessions.Action
		for i, it := range items {
			via := "random"
			if a == 1 {
				via = "filter:" + hostileText(i)
			}
			acts = append(acts,
				sessions.Action{Kind: sessions.KindLabel, ItemID: it.ID, Dimension: dim.Name, Value: float64(i % 3 % 2), Via: via},
				sessions.Action{Kind: sessions.KindNote, ItemID: it.ID, Note: hostileText(i + 30), Via: via})
		}
		if _, err := s.Record(acts); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	return path
}

// The tags and attributes a report is made of; anything else in the
// page came from a session unescaped.
var (
	reportTags = []string{"!doctype", "html", "head", "meta", "title", "style", "body", "header", "nav", "ul", "li", "a", "main", "section",
		"h1", "h2", "h3", "h4", "p", "strong", "b", "small", "code", "pre", "div", "span", "table", "thead", "tbody", "tr", "th", "td",
		"dl", "dt", "dd", "details", "summary", "figure", "figcaption", "footer",
		"svg", "g", "path", "text", "rect", "line", "polygon", "circle"}
	reportAttrs = []string{"lang", "charset", "http-equiv", "content", "name", "class", "id", "href", "aria-label", "title", "role",
		"data-fig", "data-unit", "data-chart", "width", "height", "viewbox", "xmlns", "xmlns:xlink", "preserveaspectratio", "style",
		"transform", "d", "x", "y", "fill", "stroke", "x1", "x2", "y1", "y2", "points"}
	tagRE  = regexp.MustCompile(`<(/?)([!a-zA-Z][a-zA-Z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>`)
	attrRE = regexp.MustCompile(`([a-zA-Z:-]+)(?:=("[^"]*"|'[^']*'|[^\s"'>]+))?`)
)

// checkNoUnescapedTag fails when the page holds a tag or an attribute a
// report does not write, a raw bidirectional control, a link that leaves
// the page, or a "<" that starts no known tag.
func checkNoUnescapedTag(t *testing.T, page string) {
	t.Helper()
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		name := strings.ToLower(m[2])
		if !slices.Contains(reportTags, name) {
			t.Errorf("unexpected tag <%s%s>", m[1]+m[2], m[3])
			continue
		}
		if name == "!doctype" {
			continue
		}
		for _, a := range attrRE.FindAllStringSubmatch(m[3], -1) {
			an := strings.ToLower(a[1])
			if !slices.Contains(reportAttrs, an) {
				t.Errorf("unexpected attribute %s in <%s%s>", a[0], m[2], m[3])
			}
			if an == "href" && !strings.HasPrefix(strings.Trim(a[2], `"'`), "#") {
				t.Errorf("a link out of the page: %s", a[0])
			}
		}
	}
	// Every "<" is a tag the pattern read.
	if rest := tagRE.ReplaceAllString(page, ""); strings.Contains(rest, "<") {
		i := strings.Index(rest, "<")
		t.Errorf("a bare < in the page: %q", rest[max(0, i-40):min(len(rest), i+40)])
	}
	for _, r := range "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\x1b\x00" {
		if strings.ContainsRune(page, r) {
			t.Errorf("the page holds a raw %U", r)
		}
	}
}

// TestReportHostile writes the report of a session whose every text is
// hostile: the HTML holds no tag or attribute from the session and no raw
// control character, the Markdown no raw tag, and in Chromium nothing
// runs or is refused — with the page's CSP and, to test the escaping
// alone, without it.
func TestReportHostile(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	session := hostileSession(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "hostile.html")
	code, out, errs := gavel(t, "report", session, "-o", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out, "\u202e\x1b") {
		t.Errorf("stdout holds a raw control: %q", out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	checkNoUnescapedTag(t, string(b))
	for _, want := range []string{"&lt;script&gt;alert(&#39;item&#39;)&lt;/script&gt;", `\u202e`, "&lt;img src=x onerror=alert(&#39;file&#39;)&gt;.gavel"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	_, js, _ := gavel(t, "stats", session, "--format", "json")
	checkFiguresAgainstJSON(t, string(b), js)

	md := filepath.Join(dir, "hostile.md")
	if code, _, errs := gavel(t, "report", session, "--format", "markdown", "-o", md); code != 0 {
		t.Fatalf("markdown: exit %d: %s", code, errs)
	}
	m, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	// Outside code fences (where text is inert), every < is escaped.
	prose := withoutFences(string(m))
	if i := regexp.MustCompile(`(^|[^\\])<`).FindStringIndex(prose); i != nil {
		t.Errorf("the Markdown holds a bare <: %q", prose[max(0, i[0]-40):min(len(prose), i[1]+40)])
	}
	// Nor a bare &, $ or @: "&#x202E;" would be a real override, "&lt;b&gt;"
	// a tag, $…$ GitHub's math (spoofed coloured text), @name a mention.
	if i := regexp.MustCompile(`(^|[^\\])[&$@]`).FindStringIndex(prose); i != nil {
		t.Errorf("the Markdown holds a bare & $ or @: %q", prose[max(0, i[0]-40):min(len(prose), i[1]+40)])
	}
	for _, bad := range []string{"](javascript", "\u202e", "\x1b"} {
		if strings.Contains(string(m), bad) {
			t.Errorf("the Markdown holds %q", bad)
		}
	}

	for _, bypass := range []bool{false, true} {
		got := browse(t, page, dir, []int{1280, 390}, bypass)
		checkBrowsed(t, fmt.Sprintf("hostile (CSP bypassed: %v)", bypass), got)
	}
}

// TestReportMarkdown: tables and no chart, the figures of gavel stats.
func TestReportMarkdown(t *testing.T) {
	session := statsSession(t)
	code, out, errs := gavel(t, "report", session, "--format", "markdown", "-o", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"## Verdict", "| # | Judge |", "## Disagreements (", "## Provenance", "| Bootstrap seed | 1 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "<svg") || strings.Contains(out, "<span") {
		t.Error("the Markdown holds HTML")
	}
	_, md, _ := gavel(t, "stats", session, "--format", "markdown")
	first := strings.SplitN(md, "\n|", 2)[1]
	if !strings.Contains(out, first[:200]) {
		t.Error("the Markdown's judge table is not gavel stats'")
	}
}

func TestReportUsage(t *testing.T) {
	session := statsSession(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no session", []string{"report"}, 2, "report needs SESSION"},
		{"bad format", []string{"report", session, "--format", "pdf"}, 2, `unknown --format "pdf": use html or markdown`},
		{"onto the session", []string{"report", session, "-o", session}, 2, "is the session itself"},
		{"a directory", []string{"report", session, "-o", dir}, 2, "is a directory"},
		{"unknown judge", []string{"report", session, "--judge", "nobody"}, 2, `"nobody"`},
		{"missing session", []string{"report", filepath.Join(dir, "none.gavel")}, 1, "none.gavel"},
		{"bad resamples", []string{"report", session, "--resamples", "-1"}, 2, "out of range"},
		{"negative disagreements", []string{"report", session, "--disagreements", "-1"}, 2, "--disagreements -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := gavel(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.want)
			}
		})
	}
	// Two judges named, one report of both; the default file is beside
	// the session.
	code, out, errs := gavel(t, "report", session, "--judge", "match", "--judge", "gpt-4o", "--no-date")
	if code != 0 || !strings.Contains(out, "fixture-report.html: 2 judges") {
		t.Errorf("exit %d: %s %s", code, out, errs)
	}
	code, out, _ = gavel(t, "report", session, "--judge", "match", "-o", "-")
	if code != 0 || strings.Count(out, `<section id="judge-`) != 1 {
		t.Errorf("--judge match: exit %d, %d judge sections", code, strings.Count(out, `<section id="judge-`))
	}
	// The verdict and the table are about the judge chosen; the figures
	// are gavel stats --judge's.
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile(`data-fig="judge_table\.(\d+)\.`).FindAllStringSubmatch(out, -1) {
		rows[m[1]] = true
	}
	if !strings.Contains(out, "The judge <strong>match</strong> agrees with the humans") || len(rows) != 1 {
		t.Errorf("--judge match: the verdict is not about match alone (judge table rows %v)", rows)
	}
	_, js, _ := gavel(t, "stats", session, "--judge", "match", "--format", "json")
	checkFiguresAgainstJSON(t, out, js)
}

// withoutFences drops the fenced code blocks of a Markdown text.
func withoutFences(md string) string {
	var out []string
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		switch {
		case fence != "":
			if l == fence {
				fence = ""
			}
		case strings.HasPrefix(l, "```"):
			fence = strings.TrimRight(l, "abcdefghijklmnopqrstuvwxyz")
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The statistics screen's w key (reportOf) writes the report beside the
// session, as gavel report does, while the session is open for review.
func TestReportOfOpenSession(t *testing.T) {
	path := statsSession(t)
	s, err := sessions.Open(path, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := reportOf(s)()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSuffix(path, ".gavel") + "-report.html"; got != want {
		t.Errorf("written to %s, want %s", got, want)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	_, js, _ := gavel(t, "stats", path, "--format", "json")
	if n := checkFiguresAgainstJSON(t, string(b), js); n < 100 {
		t.Errorf("%d figures", n)
	}
}

// checkCurveAndList gathers the report of s with opts and checks that each
// judge's curve of agreement as labels accumulate ends on the report's
// figures, and that it lists as many disagreements as its confusion
// matrix has units off the diagonal.
func checkCurveAndList(t *testing.T, s *sessions.Store, in stats.Input, opts stats.Options) *report.Data {
	t.Helper()
	rep := stats.Compute(in, opts)
	d, err := report.Gather(s, in, rep, report.Options{Stats: opts})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range d.Judges {
		for di, dr := range j.Report.Dimensions {
			pts := j.Accumulation[di]
			if len(pts) < 2 {
				t.Fatalf("%s %+v: %d points", j.Report.Judge, opts, len(pts))
			}
			last, a := pts[len(pts)-1], dr.Overall.VsHumans
			if last.N != a.N || last.Agreement.Value != a.PercentAgreement.Value || last.Agreement.Low != a.PercentAgreement.Low ||
				last.Kappa.Value != a.CohenKappa.Value || last.Labelled != dr.Overall.Labelled {
				t.Errorf("%s %+v: the curve ends at %+v, the report says n %d, %v, kappa %v, %d labelled", j.Report.Judge, opts, last, a.N, a.PercentAgreement, a.CohenKappa, dr.Overall.Labelled)
			}
			off := 0
			for r, row := range a.Confusion.Counts {
				for c, n := range row {
					if r != c {
						off += n
					}
				}
			}
			if j.Disagreements[di] != off {
				t.Errorf("%s %+v: %d disagreements listed, the confusion matrix has %d off its diagonal", j.Report.Judge, opts, j.Disagreements[di], off)
			}
		}
	}
	return d
}

// The curve of agreement as labels accumulate ends on the report's
// figures, and --disagreements lists a seeded sample of the items.
func TestReportCurveAndSample(t *testing.T) {
	path := statsSession(t)
	s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	// Each option that changes what the figures count changes the curve
	// and the list with them (statsSession has a parse error).
	// (--include-truncated is checked on the pairwise session, which has
	// truncated verdicts.)
	for _, opts := range []stats.Options{{Seed: statsSeed}, {Seed: statsSeed, ParseErrorsFail: true}} {
		checkCurveAndList(t, s, in, opts)
	}
	d := checkCurveAndList(t, s, in, stats.Options{Seed: statsSeed})
	all := d.DisagreeingItems
	code, out, errs := gavel(t, "report", path, "--disagreements", "3", "-o", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := strings.Count(out, `<details class="item">`); n != 3 || !strings.Contains(out, fmt.Sprintf("A random sample of 3 of the %d items", all)) {
		t.Errorf("%d items listed of %d", n, all)
	}
	_, again, _ := gavel(t, "report", path, "--disagreements", "3", "-o", "-", "--no-date")
	_, third, _ := gavel(t, "report", path, "--disagreements", "3", "-o", "-", "--no-date")
	if again != third {
		t.Error("the sample changes from one report to the next")
	}
}

// A pairwise judge run in both orders gets its swap audit, with the chart
// of its two orders, and its figures are gavel stats'.
func TestReportPairwiseSwap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pairs.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	dim := judge.Dimension{Name: "preference", Scale: judge.Pairwise}
	prefs := []float64{judge.PreferA, judge.PreferTie, judge.PreferB}
	var items []judge.Item
	for i := range 60 {
		items = append(items, judge.Item{Index: i, ID: fmt.Sprintf("p%02d", i), Question: "Which answer is better?", ResponseA: fmt.Sprintf("answer A %d", i), ResponseB: fmt.Sprintf("answer B %d", i)})
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "pairs.jsonl", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(judge.Info{Name: "pairjudge", Model: "m", Dimensions: []judge.Dimension{dim}})
	if err != nil {
		t.Fatal(err)
	}
	var vs []judge.Verdict
	var acts []sessions.Action
	for i, it := range items {
		v := prefs[i%3]
		status := judge.StatusOK
		if i%7 == 3 {
			status = judge.StatusTruncated // counted only with --include-truncated
		}
		vs = append(vs, judge.Verdict{ItemID: it.ID, Status: status, Values: map[string]float64{dim.Name: v}, Reason: "A is clearer"})
		swapped := v
		if i%4 == 0 {
			swapped = judge.PreferA // it prefers the first position
		}
		vs = append(vs, judge.Verdict{ItemID: it.ID, Swapped: true, Status: judge.StatusOK, Values: map[string]float64{dim.Name: swapped}})
		human := v
		if i%5 == 0 {
			human = prefs[(i+1)%3]
		}
		acts = append(acts, sessions.Action{Kind: sessions.KindLabel, ItemID: it.ID, Dimension: dim.Name, Value: human, Via: "random"})
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record(acts); err != nil {
		t.Fatal(err)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []stats.Options{{}, {SwapDisagreeAsTie: true}, {IncludeTruncated: true}, {SwapDisagreeAsTie: true, IncludeTruncated: true}} {
		checkCurveAndList(t, s, in, opts)
	}
	s.Close()
	page := filepath.Join(dir, "pairs.html")
	if code, _, errs := gavel(t, "report", path, "-o", page); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, js, _ := gavel(t, "stats", path, "--format", "json")
	checkFiguresAgainstJSON(t, string(b), js)
	if !strings.Contains(string(b), "Swap audit") || !strings.Contains(string(b), `data-fig="judges.0.dimensions.0.swap.positional_agreement"`) {
		t.Error("no swap audit")
	}
	got := browse(t, page, dir, []int{1280}, false)
	checkBrowsed(t, "pairwise", got)
	swaps := 0
	for _, c := range got.Charts {
		if c.Kind == "swap" {
			swaps++
		}
	}
	if swaps != 1 {
		t.Errorf("%d swap charts", swaps)
	}
}

// Labels imported together have no order of their own: the curve of
// agreement as labels accumulate says it follows the file, and a session
// labelled over time keeps the usual caption.
func TestReportCurveOfImportedLabels(t *testing.T) {
	dir := t.TempDir()
	session := importCSV(t, dir, "imp", splitCSV(80, nil))
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	opts := stats.Options{Seed: statsSeed, Resamples: -1}
	d, err := report.Gather(s, in, stats.Compute(in, opts), report.Options{Stats: opts})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !d.LabelledTogether {
		t.Error("imported labels are not seen as labelled together")
	}
	code, out, errs := gavel(t, "report", session, "-o", "-", "--resamples", "0")
	if code != 0 || !strings.Contains(out, "in dataset order") || !strings.Contains(out, "not whether it settles") {
		t.Errorf("exit %d: %s; the imported labels' curve does not say it follows the file", code, errs)
	}

	path := statsSession(t)
	s, err = sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if in, err = s.StatsInput(); err != nil {
		t.Fatal(err)
	}
	if d, err = report.Gather(s, in, stats.Compute(in, opts), report.Options{Stats: opts}); err != nil {
		t.Fatal(err)
	}
	if d.LabelledTogether {
		t.Error("labels made one by one are seen as labelled together")
	}
}
