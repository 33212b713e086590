package sessions

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestInferColumn(t *testing.T) {
	rep := func(n int, v ...string) []string { // v repeated n times
		var out []string
		for range n {
			out = append(out, v...)
		}
		return out
	}
	tests := []struct {
		name     string
		values   []string
		scale    judge.Scale
		dim      string
		readable int
		why      string
		choices  []judge.Scale // the scales an ambiguous column could be on
	}{
		{"true/false", []string{"True", "False", "", "true"}, judge.Binary, "correct", 3, "", nil},
		{"yes/no and emphasis", []string{"**Yes**", "no.", "YES"}, judge.Binary, "correct", 3, "", nil},
		{"pass/fail", []string{"pass", "fail", "PASSED"}, judge.Binary, "correct", 3, "", nil},
		{"ones and zeros", []string{"1", "0", "1.0"}, judge.Binary, "correct", 3, "", nil},
		{"only ones", []string{"1", "1"}, judge.Binary, "correct", 2, "", nil},
		{"ternary", []string{"0", "0.5", "1"}, judge.Ternary, "correct", 3, "", nil},
		{"ternary with words", []string{"0.5", "true"}, judge.Ternary, "correct", 2, "", nil},
		{"likert", []string{"1", "5", "3", "4.0"}, judge.Likert, "score", 4, "", nil},
		{"likert without its top", []string{"1", "2", "3"}, judge.Likert, "score", 3, "", nil},
		{"likert with junk", []string{"1", "5", "n/a"}, judge.Likert, "score", 2, "", nil},
		{"binary with a few unreadable", []string{"True", "False", "maybe"}, judge.Binary, "correct", 2, "", nil},
		{"preferences with a tie", []string{"A", "B", "tie", "a"}, judge.Pairwise, "preference", 4, "", nil},
		{"PandaLM's judge: 1, 2, Tie and some garbage", append(rep(10, "1", "2", "Tie"), "garbage"), judge.Pairwise, "preference", 30, "", nil},
		{"Chatbot Arena's winners", []string{"model_a", "model_b", "tie (bothbad)", "tie"}, judge.Pairwise, "preference", 4, "", nil},

		// Values on several scales: listed, never read.
		{"1 and 2", []string{"1", "2", "2"}, "", "", 0, "it holds 1 and 2", []judge.Scale{judge.Pairwise, judge.Likert, "ordinal:1-10"}},
		{"0, 1 and 2 (PandaLM's annotators)", []string{"0", "1", "2"}, "", "", 0, "it holds 0, 1 and 2", []judge.Scale{judge.Pairwise, "ordinal:0-2", "ordinal:0-5"}},
		{"ten-point", []string{"7", "10"}, "", "", 0, "it holds 7 and 10", []judge.Scale{"ordinal:1-10", "ordinal:1-100"}},
		{"0 to 10", []string{"0", "3", "10"}, "", "", 0, "it holds 0, 3 and 10", []judge.Scale{"ordinal:0-10", "ordinal:0-100"}},
		{"A and B alone", rep(2, "A", "B"), "", "", 0, `it holds "A" and "B"`, []judge.Scale{judge.Pairwise, "nominal:A,B"}},
		{"SimpleQA's grades", rep(3, "CORRECT", "INCORRECT", "NOT_ATTEMPTED"), "", "", 0, "NOT_ATTEMPTED",
			[]judge.Scale{judge.Binary, "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED"}},
		{"categories", rep(2, "math", "code", "prose"), "", "", 0, `it holds "math", "code" and "prose"`, []judge.Scale{"nominal:math,code,prose"}},

		// Not verdicts at all.
		{"off every scale", []string{"-1", "0.25"}, "", "", 0, "on no scale", nil},
		{"words and numbers", []string{"yes", "7"}, "", "", 0, "mixes words", nil},
		{"free text", []string{"The answer is right because…", "I think so"}, "", "", 0, "none of its values", nil},
		{"mostly unreadable", []string{"1", "x", "foo", "bar"}, "", "", 0, "only 1 of its 4", nil},
		{"blank", []string{"", " "}, "", "", 0, "no values", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := inferColumn(tc.values)
			if k.Scale != tc.scale || k.Dimension != tc.dim {
				t.Fatalf("scale %q dim %q, want %q %q (why: %s)", k.Scale, k.Dimension, tc.scale, tc.dim, k.Why)
			}
			if tc.scale != "" && k.Readable != tc.readable {
				t.Errorf("readable %d, want %d", k.Readable, tc.readable)
			}
			if !strings.Contains(k.Why, tc.why) {
				t.Errorf("why %q lacks %q", k.Why, tc.why)
			}
			var got []judge.Scale
			for _, c := range k.Choices {
				got = append(got, c.Scale)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.choices) {
				t.Errorf("choices %v, want %v", got, tc.choices)
			}
		})
	}
}

// TestAmbiguousColumnMessage: the message names the values, each scale
// they could be on with the --scale that picks it, and asks.
func TestAmbiguousColumnMessage(t *testing.T) {
	k := inferColumn([]string{"1", "2"})
	got := ambiguousColumn("human", "label", "label", k)
	want := "human column label is left out: it holds 1 and 2, which could be a pairwise preference (1 = A, 2 = B) (--scale label=pairwise), " +
		"a 1–5 score (--scale label=likert) or a 1–10 score (--scale label=ordinal:1-10); say which with --scale label=SCALE"
	if got != want {
		t.Errorf("message\n got: %s\nwant: %s", got, want)
	}
	// A name the shell would split is quoted.
	got = ambiguousColumn("verdict", "my judge", "my judge", k)
	if !strings.Contains(got, "(--scale 'my judge=pairwise')") || !strings.HasSuffix(got, "--scale 'my judge=SCALE'") {
		t.Errorf("message %s", got)
	}
}

func TestReadValue(t *testing.T) {
	tests := []struct {
		text  string
		scale judge.Scale
		want  float64
		ok    bool
	}{
		{"True", judge.Binary, 1, true},
		{"incorrect", judge.Binary, 0, true},
		{" 0 ", judge.Binary, 0, true},
		{"0.5", judge.Binary, 0, false},
		{"0.5", judge.Ternary, 0.5, true},
		{"yes", judge.Ternary, 1, true},
		{"yes", judge.Likert, 0, false},
		{"4", judge.Likert, 4, true},
		{"6", judge.Likert, 0, false},
		{"NaN", judge.Binary, 0, false},
		{"Inf", judge.Likert, 0, false},
		{"1", judge.Pairwise, judge.PreferA, true},
		{"2", judge.Pairwise, judge.PreferB, true},
		{"0", judge.Pairwise, judge.PreferTie, true},
		{"Tie", judge.Pairwise, judge.PreferTie, true},
		{"garbage", judge.Pairwise, 0, false},
		{"0", judge.PairwiseNoTie, 0, false},
		{"correct", "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED", 0, true},
		{"NOT_ATTEMPTED", "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED", 2, true},
		{"yes", "nominal:CORRECT,INCORRECT", 0, false},
		{"10", "ordinal:1-10", 10, true},
		{"11", "ordinal:1-10", 0, false},
		{"good", "ordinal:1-3:bad,ok,good", 3, true},
	}
	for _, tc := range tests {
		got, ok := readValue(tc.text, tc.scale)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("readValue(%q, %s) = %v, %v; want %v, %v", tc.text, tc.scale, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseExportColumn(t *testing.T) {
	tests := []struct {
		name string
		want exportColumn
		ok   bool
	}{
		{"verdict:match:correct", exportColumn{kind: prefixVerdict, owner: "match", dim: "correct"}, true},
		{"verdict:ollama · llama3:70b:correct", exportColumn{kind: prefixVerdict, owner: "ollama · llama3:70b", dim: "correct"}, true},
		{"verdict_status:docqa · gpt-4o", exportColumn{kind: prefixStatus, owner: "docqa · gpt-4o"}, true},
		{"label:ana:score", exportColumn{kind: prefixLabel, owner: "ana", dim: "score"}, true},
		{"label_via:ana", exportColumn{kind: prefixVia, owner: "ana"}, true},
		{"note:ana", exportColumn{kind: prefixNote, owner: "ana"}, true},
		{"segment:category", exportColumn{kind: prefixSegment, dim: "category"}, true},
		{"fields", exportColumn{kind: colFields}, true},
		{"verdict:match", exportColumn{}, false},
		{"label:", exportColumn{}, false},
		{"note:", exportColumn{}, false},
		{"question", exportColumn{}, false},
		{"GPT-4", exportColumn{}, false},
	}
	for _, tc := range tests {
		got, ok := parseExportColumn(tc.name)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseExportColumn(%q) = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestReadCell(t *testing.T) {
	tests := []struct {
		raw  string
		list bool
		want []string
	}{
		{`"YES"`, false, []string{"YES"}},
		{`1`, false, []string{"1"}},
		{`null`, false, []string{""}},
		{`[null,"YES",0.5]`, true, []string{"", "YES", "0.5"}},
		{`"[null,\"NO\"]"`, true, []string{"", "NO"}},
		{`"[not json"`, false, []string{"[not json"}},
		{`{"a":1}`, false, []string{""}},
	}
	for _, tc := range tests {
		c := readCell(json.RawMessage(tc.raw))
		if c.list != tc.list || strings.Join(c.texts, "|") != strings.Join(tc.want, "|") {
			t.Errorf("readCell(%s) = %+v, want list=%v %q", tc.raw, c, tc.list, tc.want)
		}
	}
}

// FuzzInferColumn checks that no column of values, however odd, makes the
// value readers panic or disagree with each other.
func FuzzInferColumn(f *testing.F) {
	f.Add("True\nFalse\n\nmaybe")
	f.Add("1\n0.5\n0")
	f.Add("1\n2\n3\n4\n5\nNaN")
	f.Add("**YES**\n\x00\xff\n1e400")
	f.Fuzz(func(t *testing.T, s string) {
		values := strings.Split(s, "\n")
		k := inferColumn(values)
		if k.Scale == "" {
			if k.Why == "" {
				t.Fatal("an unreadable column without a reason")
			}
			return
		}
		n := 0
		for _, v := range values {
			if x, ok := readValue(v, k.Scale); ok {
				n++
				if !k.Scale.Valid(x) {
					t.Fatalf("value %v of %q is off the %s scale", x, v, k.Scale)
				}
			}
		}
		if n != k.Readable {
			t.Fatalf("inferColumn read %d values, readValue %d", k.Readable, n)
		}
	})
}

// FuzzReadCell checks that any exported cell reads without a panic.
func FuzzReadCell(f *testing.F) {
	f.Add(`[null,"YES",0.5]`)
	f.Add(`"[1,2"`)
	f.Add(`"YES"`)
	f.Add(`{"x":[1]}`)
	f.Add(`{"id":"1","fields":"{\"a\":1}","segment:c":"x","label:ann:correct":"[null,\"YES\"]"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		c := readCell(json.RawMessage(raw))
		for _, k := range c.criteria() {
			_ = c.at(k)
			exportedValue(c.at(k), "")
		}
		exportedScale(c.texts)
		parseExportColumn(raw)
		if fs, ok := exportFields(json.RawMessage(raw)); ok {
			restoredFields(fs)
		}
		originalRow(json.RawMessage(raw))
	})
}
