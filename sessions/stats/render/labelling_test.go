package render

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// hostileTag tries to drive a terminal, break a Markdown table and add
// markup to a page.
const hostileTag = "fo|rm\x1b[31mat <b>*"

// labellingFixture is statsFixture with what a v8 session records of how
// ana and bob labelled: two guidelines versions, a "can't judge", tags,
// blind and shown decisions with times, re-tests.
func labellingFixture() stats.Input {
	in := statsFixture()
	li := &stats.LabellingInput{
		Guidelines: stats.GuidelinesInput{
			Filter: stats.GuidelinesFilter{Filter: stats.FilterCurrent, Version: 2},
			Versions: []stats.GuidelinesVersion{
				{ID: 1, SHA256: strings.Repeat("a", 64), FirstSeen: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Labels: 3},
				{ID: 2, SHA256: strings.Repeat("b", 64), FirstSeen: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC), Labels: 27},
			},
			WithoutGuidelines: 0, LeftOut: 3,
		},
		CantJudge:       []stats.CantJudgeMark{{ItemID: "q4", Annotator: "bob", Reason: stats.ReasonOther}, {ItemID: "q5", Annotator: "ana", Reason: stats.ReasonGoldWrong}},
		CantJudgeLabels: 2,
		TagSet:          []string{"too strict", hostileTag},
		Tags:            []stats.TagMark{{ItemID: "q2", Annotator: "ana", Tag: "too strict"}, {ItemID: "q3", Annotator: "ana", Tag: hostileTag}},
	}
	g := int64(0)
	for i, u := range in.Units[:20] {
		l := u.Labels[0]
		shown, shownJudge := stats.ShownBlind, ""
		if i >= 10 {
			shown, shownJudge = stats.ShownVerdict, in.Judges[0].Key
		}
		g++
		li.Decisions = append(li.Decisions, stats.Decision{Group: g, Annotator: l.Annotator, ItemID: u.ItemID, Kind: stats.KindLabel,
			Dimension: "correct", Value: l.Values["correct"], HasValue: true, Shown: shown, ShownJudge: shownJudge, Seconds: float64(4 + i%5), Timed: true, Sitting: "s1", Guidelines: 2})
	}
	for i, u := range in.Units[:3] {
		g++
		li.Decisions = append(li.Decisions, stats.Decision{Group: g, Annotator: "ana", ItemID: u.ItemID, Kind: stats.KindLabel,
			Dimension: "correct", Value: float64(i % 2), HasValue: true, Shown: stats.ShownBlind, Retest: true, Seconds: 3, Timed: true, Sitting: "s2", Guidelines: 2})
	}
	in.Labelling = li
	return in
}

func TestLabellingText(t *testing.T) {
	r := stats.Compute(labellingFixture(), stats.Options{Seed: 1, Resamples: 100})
	if r.Labelling == nil {
		t.Fatal("no labelling section")
	}
	out := TextAt(r, 160)
	for _, want := range []string{
		"Labelling\n",
		"  guidelines              version 1: 3 labels, from 2026-11-20\n",
		"                          version 2 (current): 27 labels, from 2026-11-26\n",
		"  figures count           the labels made under version 2, the current one (--guidelines current); 3 left out\n",
		"  can't judge             2 marks on 2 items, 2 labels left out of agreement\n",
		"    by reason             gold is wrong 1 · other 1\n",
		"    ana                   1: gold is wrong 1\n",
		"  failure tags            items tagged · among each judge's disagreements\n",
		"    too strict            1 item · match ",
		"Annotator ana  (the labeller's own reliability)\n",
		"  decisions               23 · median 6.0 s per decision\n",
		"  fatigue · 1 sitting     first quarter: 5 decisions, median 6.0 s\n",
		"    match, first          66.7% [20.8%, 93.9%] (n = 3)\n",
		"  re-test · correct       3 pairs · agreement ",
		"⚠ not yet stable: 3 pairs, fewer than 30\n",
		"  anchoring · match       blind ",
		"    shown − blind         ",
		"Newcombe 95%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, hostileTag) {
		t.Errorf("a tag name reached the terminal as it is:\n%s", out)
	}
	for _, l := range Lines(r, 60) {
		if l.Width() > 60 {
			t.Errorf("line %d cells wide: %q", l.Width(), l.Plain())
		}
	}
}

// A report without labelling data shows nothing of it, in any format.
func TestNoLabellingNothingNew(t *testing.T) {
	r := stats.Compute(statsFixture(), stats.Options{Seed: 1, Resamples: -1})
	if r.Labelling != nil {
		t.Fatalf("labelling = %+v", r.Labelling)
	}
	if txt := Text(r); strings.Contains(txt, "Labelling") || strings.Contains(txt, "Annotator ") {
		t.Errorf("text has a labelling section:\n%s", txt)
	}
	if md := Markdown(r); strings.Contains(md, "## Labelling") {
		t.Error("markdown has a labelling section")
	}
}

func TestLabellingMarkdown(t *testing.T) {
	r := stats.Compute(labellingFixture(), stats.Options{Seed: 1, Resamples: 100})
	md := Markdown(r)
	for _, want := range []string{
		"\n## Labelling\n",
		"\n### Guidelines\n\nThe figures count the labels made under version 2, the current one (--guidelines current); 3 labels left out.\n",
		"| 2 (current) | 2026-11-26 09:00 UTC | `bbbbbbbbbbbb` | 27 |",
		"| Annotator | Marks | Gold is wrong | Question ambiguous | Prediction unreadable | Other |",
		"| all | 2 | 1 | 0 | 0 | 1 |",
		"| bob | 1 | 0 | 0 | 0 | 1 |",
		"| Tag | Items | Among match's ",
		"#### Re-tests: agreement with oneself",
		"| ana | correct | 3 | ",
		"not yet stable: 3 pairs, fewer than 30 |",
		"#### Anchoring: agreement with the judge, its verdict hidden or shown",
		"#### Fatigue: the first and last quarter of each sitting",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "fo|rm") || strings.Contains(md, "<b>") || strings.Contains(md, "\x1b") {
		t.Errorf("the hostile tag breaks the markdown:\n%s", md)
	}
}

// Select keeps the labelling figures of the judges asked for, and leaves
// the report it was given as it was.
func TestSelectLabelling(t *testing.T) {
	r := stats.Compute(labellingFixture(), stats.Options{Seed: 1, Resamples: -1})
	before := fmt.Sprintf("%+v", *r.Labelling.Tags)
	got := Select(r, []string{"likert"})
	l := got.Labelling
	if len(l.Tags.Disagreements) != 1 || l.Tags.Disagreements[0].Judge != "likert" {
		t.Errorf("tags among disagreements: %+v", l.Tags.Disagreements)
	}
	for _, a := range l.Annotators {
		for _, an := range a.Anchoring {
			if an.Judge != "likert" {
				t.Errorf("%s: anchoring on %s kept", a.Annotator, an.Judge)
			}
		}
		if f := a.Fatigue; f != nil {
			for _, j := range append(f.First.Judges, f.Last.Judges...) {
				if j.Judge != "likert" {
					t.Errorf("%s: fatigue against %s kept", a.Annotator, j.Judge)
				}
			}
		}
	}
	if after := fmt.Sprintf("%+v", *r.Labelling.Tags); after != before || len(r.Labelling.Annotators[0].Anchoring) < 2 {
		t.Error("Select changed the report it was given")
	}
}

// A version's hash edited by hand (a backtick, a pipe) cannot open a code
// span or break the table: only hex is written as code, anything else as
// escaped text.
func TestLabellingMarkdownHandEditedHash(t *testing.T) {
	in := labellingFixture()
	in.Labelling.Guidelines.Versions[0].SHA256 = "ab`c|d*e"
	md := Markdown(stats.Compute(in, stats.Options{Seed: 1, Resamples: -1}))
	if want := "| 1 | 2026-11-20 09:00 UTC | ab\\`c\\|d\\*e | 3 |"; !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
	if want := "| 2 (current) | 2026-11-26 09:00 UTC | `bbbbbbbbbbbb` | 27 |"; !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
}
