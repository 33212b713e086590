package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/match"
)

// row is one line of demo.jsonl as written.
type row struct {
	ID         string   `json:"id"`
	Category   string   `json:"category"`
	Question   string   `json:"question"`
	Answer     string   `json:"answer"`
	Prediction string   `json:"prediction"`
	Rubric     []string `json:"rubric,omitempty"`
}

// label is a human judgment of one demo item: is the prediction correct,
// and is it a close call that reasonable reviewers might decide otherwise.
type label struct {
	correct    bool
	borderline bool
	why        string
}

// truth holds the human label of every demo item. Rubric items are right
// only when every criterion is met; open-ended items when the prediction
// is correct and covers the reference's essential points.
var truth = map[string]label{
	"dq-01": {true, false, "14 centres, stated plainly"},
	"dq-02": {true, false, "ten percent = 10%"},
	"dq-03": {true, false, "EPA is the abbreviation of the gold"},
	"dq-04": {true, false, "ESA, with the full name"},
	"dq-05": {true, false, "both months, order differs"},
	"dq-06": {false, false, "list misses Aug"},
	"dq-07": {true, false, "all three months, written in full"},
	"dq-08": {true, false, "says the handbook does not cover it"},
	"dq-09": {true, false, "says not answerable and why"},
	"dq-10": {true, false, "corrects the year and answers the corrected question"},
	"dq-11": {false, false, "substantive answer to an unanswerable question"},
	"dq-12": {false, true, "hedges, then answers the unanswerable question anyway"},
	"dq-13": {false, false, "names 1991 only to deny it; says 1994"},
	"dq-14": {true, false, "2400 = 2,400"},
	"dq-15": {false, false, "8% instead of 18%"},
	"dq-16": {false, false, "omits the 30-day receipts condition"},
	"dq-17": {true, false, "citation-only answer that holds 1,250"},
	"dq-18": {true, false, "same date, day-month order"},
	"dq-19": {false, false, "names Lyon only to deny it; says Grenoble"},

	"bb-01": {true, false, "So the answer is (A)"},
	"bb-02": {true, false, `\boxed{True}`},
	"bb-03": {true, false, "self-corrects from B to C"},
	"bb-04": {true, false, "empty final answer; the trace ends with (A)"},
	"bb-05": {true, false, "plausible = yes"},
	"bb-06": {false, false, "double negative: not implausible means plausible; gold is no"},
	"bb-07": {false, false, "miscounts the flutes: five, not six"},
	"bb-08": {true, false, "forty-two = 42"},
	"bb-09": {true, false, "valid = True"},
	"bb-10": {true, false, "incorrect = False"},
	"bb-11": {true, false, "Yes, Vina tells the truth"},
	"bb-12": {true, false, "**B**"},
	"bb-13": {false, false, "Option B; gold is A"},
	"bb-14": {true, false, "[E] after a long trace"},
	"bb-15": {false, true, "undecided between B and D: ambiguous"},
	"bb-16": {true, false, "retracts (A) and settles on (C) without the answer-is phrase"},
	"bb-17": {false, false, "final order is wrong although the trace is right"},
	"bb-18": {false, false, "sign error: 36 instead of -36"},
	"bb-19": {false, false, "closes the brackets in the wrong order"},
	"bb-20": {true, false, "implausible = no"},
	"bb-21": {false, false, "retracts the right order for a wrong one"},

	"rb-01": {true, false, "all three criteria met"},
	"rb-02": {false, false, "mentions Fahrenheit, which the question forbids"},
	"rb-03": {true, false, "Canberra, compromise, under 30 words"},
	"rb-04": {false, true, "adds a parenthetical to a name-only answer"},
	"rb-05": {true, false, "flax egg with quantities"},
	"rb-06": {true, false, "a correct translation, worded differently from the gold"},
	"rb-07": {true, false, "any three renewables satisfy the rubric"},
	"rb-08": {false, false, "uses the forbidden word error"},
	"rb-09": {true, false, "150 with one sentence of working"},
	"rb-10": {false, true, "13 words against a 12-word limit: one over"},

	"oe-01": {true, false, "paraphrase of the reference"},
	"oe-02": {false, false, "distance-from-the-Sun misconception"},
	"oe-03": {false, false, "defines the ratio but not why it matters"},
	"oe-04": {false, false, "p-value read as the probability the null is true"},
	"oe-05": {true, false, "the reference, plus a correct detail"},
	"oe-06": {true, false, "the reference, plus a correct consequence"},
	"oe-07": {true, true, "right idea, no wavelengths or Rayleigh"},
	"oe-08": {true, true, "misses the LIFO order of several defers"},
	"oe-09": {false, false, "makes the Sun the main cause"},
	"oe-10": {true, false, "the reference, plus a correct example"},
}

var categories = []string{"doc-qa", "bbh", "rubric", "open-ended"}

// parseDemo reads the embedded dataset strictly: every line one object
// with only the known fields.
func parseDemo(t *testing.T) []row {
	t.Helper()
	var rows []row
	sc := bufio.NewScanner(bytes.NewReader(JSONL))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			t.Fatalf("%s:%d: blank line", Name, n)
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var r row
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s:%d: %v", Name, n, err)
		}
		if dec.More() {
			t.Fatalf("%s:%d: more than one JSON value on the line", Name, n)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestDemoDataset(t *testing.T) {
	if !utf8.Valid(JSONL) {
		t.Fatal("demo.jsonl is not valid UTF-8")
	}
	rows := parseDemo(t)
	if len(rows) < 44 || len(rows) > 60 {
		t.Errorf("%d items, want 44–60", len(rows))
	}
	seen := map[string]bool{}
	perCat := map[string]int{}
	for _, r := range rows {
		if r.ID == "" {
			t.Errorf("an item has no id: %q", r.Question)
			continue
		}
		if seen[r.ID] {
			t.Errorf("%s: duplicate id", r.ID)
		}
		seen[r.ID] = true
		perCat[r.Category]++
		for name, v := range map[string]string{"question": r.Question, "answer": r.Answer, "prediction": r.Prediction} {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: empty %s", r.ID, name)
			}
			if c, ok := controlChar(v); ok {
				t.Errorf("%s: %s holds control character %U", r.ID, name, c)
			}
		}
		if got := strings.Count(r.Prediction, "\n") + 1; got > 16 {
			t.Errorf("%s: prediction has %d lines; keep it readable at 80x24", r.ID, got)
		}
		if r.Category == "rubric" {
			if len(r.Rubric) < 2 || len(r.Rubric) > 4 {
				t.Errorf("%s: %d rubric criteria, want 2–4", r.ID, len(r.Rubric))
			}
			for _, c := range r.Rubric {
				if strings.TrimSpace(c) == "" {
					t.Errorf("%s: empty rubric criterion", r.ID)
				}
			}
		} else if r.Rubric != nil {
			t.Errorf("%s: %s item has a rubric", r.ID, r.Category)
		}
		if _, ok := truth[r.ID]; !ok {
			t.Errorf("%s: no human label in the truth table", r.ID)
		}
	}
	for _, c := range categories {
		if perCat[c] == 0 {
			t.Errorf("no %q items", c)
		}
	}
	if len(perCat) != len(categories) {
		t.Errorf("categories %v, want only %v", perCat, categories)
	}
	for id := range truth {
		if !seen[id] {
			t.Errorf("truth table labels %s, which is not in the dataset", id)
		}
	}
}

// TestDemoMix keeps the demo's share of right, wrong and borderline
// predictions near 60/30/10 so the statistics screen has something to say.
func TestDemoMix(t *testing.T) {
	var right, wrong, borderline int
	for _, l := range truth {
		switch {
		case l.borderline:
			borderline++
		case l.correct:
			right++
		default:
			wrong++
		}
	}
	n := float64(len(truth))
	check := func(name string, k int, lo, hi float64) {
		if f := float64(k) / n; f < lo || f > hi {
			t.Errorf("%s: %d of %d (%.0f%%), want %.0f–%.0f%%", name, k, len(truth), 100*f, 100*lo, 100*hi)
		}
	}
	check("right", right, 0.50, 0.70)
	check("wrong", wrong, 0.20, 0.40)
	check("borderline", borderline, 0.05, 0.15)
}

// controlChar returns the first control character in s other than the
// newlines that separate trace lines.
func controlChar(s string) (rune, bool) {
	for _, c := range s {
		if c != '\n' && (unicode.IsControl(c) || c == utf8.RuneError) {
			return c, true
		}
	}
	return 0, false
}

// TestMatchDisagreesWhereItShould runs the offline match judge, the
// demo's judge, over every item. The demo is only worth reviewing if match
// is mostly right but visibly wrong in both directions: it must pass some
// predictions a person fails (false passes) and fail some a person passes
// (false fails).
func TestMatchDisagreesWhereItShould(t *testing.T) {
	j := match.New()
	var agree int
	var falsePass, falseFail []string
	rows := parseDemo(t)
	for i, r := range rows {
		it := judge.Item{
			Index:      i,
			ID:         r.ID,
			Question:   r.Question,
			Gold:       r.Answer,
			Prediction: r.Prediction,
			Rubric:     r.Rubric,
			Segments:   map[string]string{"category": r.Category},
		}
		v := j.Judge(context.Background(), judge.Task{Item: it})
		if !v.OK() {
			t.Errorf("%s: match gave status %s (%s)", r.ID, v.Status, v.Error)
			continue
		}
		got, ok := v.Values["correct"]
		if !ok || (got != 0 && got != 1) {
			t.Errorf("%s: match gave values %v, want correct 0 or 1", r.ID, v.Values)
			continue
		}
		want := truth[r.ID]
		switch {
		case (got == 1) == want.correct:
			agree++
		case got == 1:
			falsePass = append(falsePass, r.ID)
			t.Logf("false pass %s: %s; match: %s", r.ID, want.why, v.Reason)
		default:
			falseFail = append(falseFail, r.ID)
			t.Logf("false fail %s: %s; match: %s", r.ID, want.why, v.Reason)
		}
	}
	t.Logf("match agrees with the human labels on %d of %d; false passes %v, false fails %v",
		agree, len(rows), falsePass, falseFail)
	if 10*agree < 7*len(rows) {
		t.Errorf("match agrees on only %d of %d items; the demo should show a judge that is mostly right", agree, len(rows))
	}
	if len(falsePass)+len(falseFail) < 5 {
		t.Errorf("match is wrong on only %d items, want at least 5 for a reviewer to find", len(falsePass)+len(falseFail))
	}
	if len(falsePass) < 2 || len(falseFail) < 2 {
		t.Errorf("match has %d false passes and %d false fails, want at least 2 of each", len(falsePass), len(falseFail))
	}
}
