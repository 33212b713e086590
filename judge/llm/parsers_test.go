package llm

import (
	"maps"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// parserCase is one model output and what the parser should read.
type parserCase struct {
	name   string
	out    string
	want   map[string]float64 // nil: a parse error is expected
	errHas string             // part of the parse error
	reason string             // part of the reason, when set
	answer string             // the text at the answer's span, when set
}

func runParserCases(t *testing.T, parse func(string) (parsed, error), cases []parserCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := readOutput(parse, tc.out)
			if tc.want == nil {
				if err == nil {
					t.Fatalf("read %v from %q, want a parse error", p.values, tc.out)
				}
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Errorf("error %q lacks %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse error %v for %q", err, tc.out)
			}
			if !maps.Equal(p.values, tc.want) {
				t.Errorf("values %v, want %v", p.values, tc.want)
			}
			if !strings.Contains(p.reason, tc.reason) {
				t.Errorf("reason %q lacks %q", p.reason, tc.reason)
			}
			if tc.answer != "" {
				if !p.hasSpan {
					t.Fatalf("no answer span, want %q", tc.answer)
				}
				if got := tc.out[p.start:p.end]; got != tc.answer {
					t.Errorf("answer span holds %q, want %q", got, tc.answer)
				}
			}
		})
	}
}

var (
	yes = map[string]float64{"correct": 1}
	no  = map[string]float64{"correct": 0}
)

func TestParseDocQA(t *testing.T) {
	runParserCases(t, parseDocQA, []parserCase{
		{name: "clean", out: "reason: NASA is the abbreviation, Criterion 3.\nresult: YES", want: yes, reason: "NASA is the abbreviation", answer: "YES"},
		{name: "fenced like the seed's examples", out: "```\nreason:The Prediction omits August.\nresult: NO\n```", want: no, reason: "omits August", answer: "NO"},
		{name: "bold keys and value", out: "**Reason:** fine.\n**Result:** **YES**", want: yes, reason: "fine.", answer: "YES"},
		{name: "lower case, trailing explanation", out: "reason: ok\nresult: no - the list misses an item", want: no, answer: "no"},
		{name: "prose around", out: "Let me check the rules.\n\nreason: Rule 1 applies.\nresult: YES\n\nI hope this helps!", want: yes},
		{name: "after think", out: "<think>The gold says NASA... result: NO? no wait</think>\nreason: same org\nresult: YES", want: yes, answer: "YES"},
		{name: "reason spans lines", out: "reason: first line\nsecond line\nresult: NO", want: no, reason: "first line\nsecond line"},
		{name: "last result wins", out: "result: NO\nActually I was wrong.\nresult: YES", want: yes},
		{name: "CRLF", out: "reason: x\r\nresult: YES\r\n", want: yes},
		{name: "bare YES", out: "**YES**", want: yes, answer: "YES"},
		{name: "full-width colon", out: "result： NO", want: no},
		{name: "template copied", out: "reason: A concise justification.\nresult: YES/NO", errHas: "not YES or NO"},
		{name: "other word", out: "reason: x\nresult: CORRECT", errHas: "not YES or NO"},
		{name: "empty result", out: "reason: x\nresult:", errHas: "empty"},
		{name: "no result line", out: "The prediction is correct.", errHas: `no "result:" line`},
		{name: "yes inside prose is not an answer", out: "Yes, I think the prediction is right.", errHas: `no "result:" line`},
		{name: "only a trace", out: "<think>hmm, result: YES</think>", errHas: "<think> trace and no answer"},
		{name: "unclosed trace", out: "<think>result: YES", errHas: "<think> trace and no answer"},
		{name: "empty", out: "  \n", errHas: "empty"},
	})
}

func TestParseSameEvent(t *testing.T) {
	runParserCases(t, parseSameEvent, []parserCase{
		{name: "bare", out: "YES", want: yes, answer: "YES"},
		{name: "lower case with period", out: "no.", want: no, answer: "no"},
		{name: "bold", out: "**YES**", want: yes, answer: "YES"},
		{name: "trailing explanation", out: "No. The first is about 1990, the second about 2021.", want: no, answer: "No"},
		{name: "whitespace", out: "\n\n   YES \n", want: yes},
		{name: "after think", out: "<think>Both describe the launch.</think>\n\nYES", want: yes, answer: "YES"},
		{name: "answer label", out: "Answer: NO", want: no, answer: "NO"},
		{name: "explanation then bare word", out: "Both snippets mention the launch of Hubble.\n\nYES", want: yes, answer: "YES"},
		{name: "fenced", out: "```\nNO\n```", want: no, answer: "NO"},
		{name: "quoted", out: `"YES"`, want: yes},
		{name: "both", out: "YES/NO", errHas: "no answer word"},
		{name: "yes or no", out: "Yes or no: hard to say.", errHas: "no answer word"},
		{name: "other word", out: "Maybe.", errHas: "no answer word"},
		{name: "negation is not NO", out: "Not the same event.", errHas: "no answer word"},
		{name: "prose ending in a sentence", out: "They are the same event, so the answer is yes", errHas: "no answer word"},
		{name: "yesterday is not yes", out: "Yesterday's news.", errHas: "no answer word"},
	})
}

func TestParseRubric(t *testing.T) {
	score := func(x float64) map[string]float64 { return map[string]float64{"score": x} }
	runParserCases(t, parseRubric, []parserCase{
		{name: "clean", out: `{"score": 1.0, "reason": "NASA is named."}`, want: score(1), reason: "NASA is named."},
		{name: "string score", out: `{"score": "0.5", "reason": "partial"}`, want: score(0.5)},
		{name: "integer", out: `{"score": 0, "reason": "missing"}`, want: score(0)},
		{name: "string integer", out: `{"score": "1", "reason": "ok"}`, want: score(1)},
		{name: "fenced", out: "```json\n{\n  \"score\": 0.5,\n  \"reason\": \"year missing\"\n}\n```", want: score(0.5), reason: "year missing"},
		{name: "prose around", out: "Here is my evaluation:\n{\"score\": 1.0, \"reason\": \"ok\"}\nLet me know!", want: score(1)},
		{name: "after think", out: "<think>{\"score\": 0.0}</think>{\"score\": 1.0, \"reason\": \"r\"}", want: score(1)},
		{name: "key case", out: `{"Score": 0.5, "Reason": "r"}`, want: score(0.5), reason: "r"},
		{name: "trailing comma", out: "{\"score\": 1.0, \"reason\": \"ok\",}", want: score(1)},
		{name: "line break inside string", out: "{\"score\": 0.0, \"reason\": \"no\nmention\"}", want: score(0), reason: "no\nmention"},
		{name: "brace in reason", out: `{"score": 1.0, "reason": "uses {x} and }"}`, want: score(1), reason: "uses {x} and }"},
		{name: "two objects, last wins", out: `{"score": 0.0, "reason": "first"} Wait. {"score": 0.5, "reason": "second"}`, want: score(0.5), reason: "second"},
		{name: "out of scale", out: `{"score": 0.7, "reason": "r"}`, errHas: "not on the ternary scale"},
		{name: "too high", out: `{"score": 2, "reason": "r"}`, errHas: "not on the ternary scale"},
		{name: "template copied", out: `{"score": "[your score: 1.0, 0.5, or 0.0]", "reason": "r"}`, errHas: "not a number"},
		{name: "bool", out: `{"score": true}`, errHas: "not a number"},
		{name: "null", out: `{"score": null}`, errHas: "null"},
		{name: "no score", out: `{"reason": "r"}`, errHas: `no "score" field`},
		{name: "no JSON", out: "The response complies fully. Score: 1.0", errHas: "no JSON object"},
		{name: "truncated", out: `{"score": 1.0, "reason": "the answer is`, errHas: "no JSON object"},
	})
}

func TestParseBBH(t *testing.T) {
	full := `{"id": 7, "is_correct": true, "extracted_answer": "(B)", "reasoning_score": 4, "error_type": "none", "comment": "Verbose correct answer found"}`
	p, err := readOutput(parseBBH, full)
	if err != nil {
		t.Fatal(err)
	}
	wantExtra := map[string]any{"extracted_answer": "(B)", "reasoning_score": 4.0, "error_type": "none", "comment": "Verbose correct answer found"}
	if !maps.Equal(p.extra, wantExtra) {
		t.Errorf("extra = %v, want %v", p.extra, wantExtra)
	}
	runParserCases(t, parseBBH, []parserCase{
		{name: "clean", out: full, want: yes, reason: "Verbose correct", answer: "true"},
		{name: "false", out: `{"id": 1, "is_correct": false, "extracted_answer": "A", "reasoning_score": 2, "error_type": "wrong_logic", "comment": "picked A"}`, want: no, answer: "false"},
		{name: "fenced despite the rule", out: "```json\n{\"is_correct\": true, \"comment\": \"ok\"}\n```", want: yes},
		{name: "string bool", out: `{"is_correct": "False"}`, want: no, answer: "False"},
		{name: "python literal", out: `{"is_correct": True, "reasoning_score": 5}`, want: yes},
		{name: "think first", out: "<think>The response says (B)...</think>\n{\"is_correct\": true}", want: yes, answer: "true"},
		{name: "placeholder id", out: "{\"id\": <input_id>, \"is_correct\": true}", errHas: "no JSON object"},
		{name: "maybe", out: `{"is_correct": "partially"}`, errHas: "not true or false"},
		{name: "missing", out: `{"extracted_answer": "B"}`, errHas: `no "is_correct" field`},
	})
	// reasoning_score out of range is dropped, not kept.
	p, err = readOutput(parseBBH, `{"is_correct": true, "reasoning_score": 9}`)
	if err != nil || p.extra["reasoning_score"] != nil {
		t.Errorf("reasoning_score 9: extra %v, err %v; want it dropped", p.extra, err)
	}
}

func TestParseQuality(t *testing.T) {
	full := `{
  "completeness_score": 4,
  "completeness_reasoning": "Misses the year.",
  "key_missing_info": ["launch year"],
  "correctness_score": "5",
  "correctness_reasoning": "All correct.",
  "factual_errors": []
}`
	p, err := readOutput(parseQuality, full)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.extra["key_missing_info"].([]string); len(got) != 1 || got[0] != "launch year" {
		t.Errorf("key_missing_info = %v", got)
	}
	if got := p.extra["factual_errors"].([]string); len(got) != 0 {
		t.Errorf("factual_errors = %v", got)
	}
	if p.extra["completeness_reasoning"] != "Misses the year." {
		t.Errorf("extra = %v", p.extra)
	}
	both := func(c, k float64) map[string]float64 { return map[string]float64{"completeness": c, "correctness": k} }
	runParserCases(t, parseQuality, []parserCase{
		{name: "clean", out: full, want: both(4, 5), reason: "Completeness: Misses the year.\nCorrectness: All correct."},
		{name: "floats", out: `{"completeness_score": 3.0, "correctness_score": 2.0}`, want: both(3, 2)},
		{name: "prose and fence", out: "Evaluation:\n```json\n{\"completeness_score\": 1, \"correctness_score\": 1}\n```", want: both(1, 1)},
		{name: "template zeros", out: `{"completeness_score": 0, "correctness_score": 0}`, errHas: "not on the likert scale"},
		{name: "half point", out: `{"completeness_score": 4.5, "correctness_score": 4}`, errHas: "not on the likert scale"},
		{name: "one missing", out: `{"completeness_score": 4}`, errHas: `"correctness_score"`},
	})
}

func TestFindJSONObjectBoundsWork(t *testing.T) {
	// Many unclosed braces must not make the search quadratic or fail.
	text := strings.Repeat("{", 100000) + `{"score": 1}`
	if _, err := findJSONObject(text, "score"); err == nil {
		t.Log("found despite the bound (fine)")
	}
	if _, err := findJSONObject(`{"a": {"score": 1}}`, "score"); err == nil {
		t.Error("a nested object was taken for the top-level answer")
	}
}

func TestRepairJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1,}`, `{"a": 1}`},
		{"{\"a\": [1, 2,\n]}", "{\"a\": [1, 2\n]}"},
		{`{"a": True, "b": None, "c": "True"}`, `{"a": true, "b": null, "c": "True"}`},
		{`{"Truely": 1}`, `{"Truely": 1}`},
		{"{\"a\": \"x\ny\"}", `{"a": "x\ny"}`},
		{`{"a": "\"quoted\","}`, `{"a": "\"quoted\","}`},
	}
	for _, tc := range tests {
		if got := repairJSON(tc.in); got != tc.want {
			t.Errorf("repairJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// fuzzParser checks what every parser promises: no panic, and an ok
// result only with values on the judge's scales and a span inside the text.
func fuzzParser(f *testing.F, name string, parse func(string) (parsed, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	dims := mustDef(f, name).dims
	f.Fuzz(func(t *testing.T, out string) {
		p, err := readOutput(parse, out)
		if err != nil {
			if p.values != nil {
				t.Fatalf("values %v with error %v", p.values, err)
			}
			return
		}
		checkParsed(t, dims, p, out)
	})
}

func checkParsed(t *testing.T, dims []judge.Dimension, p parsed, out string) {
	t.Helper()
	if len(p.values) != len(dims) {
		t.Fatalf("values %v for dimensions %v", p.values, dims)
	}
	for _, d := range dims {
		v, ok := p.values[d.Name]
		if !ok || !d.Scale.Valid(v) {
			t.Fatalf("dimension %s = %v (present %v), not on the %s scale; output %q", d.Name, v, ok, d.Scale, out)
		}
	}
	if p.hasSpan && (p.start < 0 || p.end > len(out) || p.start >= p.end) {
		t.Fatalf("span [%d,%d) outside %d bytes", p.start, p.end, len(out))
	}
}

func FuzzParseDocQA(f *testing.F) {
	fuzzParser(f, "docqa", parseDocQA,
		"reason: ok\nresult: YES", "```\nreason:x\nresult: NO\n```", "**Result:** **YES**", "result: YES/NO",
		"<think>a</think>result: no", "YES", "result：yes", "reason: a\nb\nresult:")
}

func FuzzParseSameEvent(f *testing.F) {
	fuzzParser(f, "same-event", parseSameEvent,
		"YES", "no.", "**NO**", "Answer: YES", "text\n\nYES", "YES/NO", "<think>x</think>NO", "```\nYES\n```")
}

func FuzzParseRubric(f *testing.F) {
	fuzzParser(f, "rubric", parseRubric,
		`{"score": 1.0, "reason": "r"}`, `{"score": "0.5"}`, "```json\n{\"score\": 0}\n```", `{"score": 0.7}`,
		`x {"score": 1,} y`, `{"score": [1]}`, `{{{"score": 1}`, "{\"score\": 1, \"reason\": \"a\nb\"}")
}

func FuzzParseBBH(f *testing.F) {
	fuzzParser(f, "bbh", parseBBH,
		`{"id": 1, "is_correct": true, "extracted_answer": "(B)", "reasoning_score": 4, "error_type": "none", "comment": "c"}`,
		`{"is_correct": "false"}`, `{"is_correct": True}`, `{"is_correct": 1, "reasoning_score": "9"}`, "<think>{}</think>{\"is_correct\": false}")
}

func FuzzParseQuality(f *testing.F) {
	fuzzParser(f, "quality", parseQuality,
		`{"completeness_score": 4, "correctness_score": 5, "key_missing_info": ["a"], "factual_errors": []}`,
		`{"completeness_score": "3", "correctness_score": 2.0}`, `{"completeness_score": 0, "correctness_score": 0}`,
		"```json\n{\"completeness_score\": 1, \"correctness_score\": 1, \"key_missing_info\": \"x\"}\n```")
}

func TestSplitThinkSurvivesAnyBytes(t *testing.T) {
	tests := []struct{ in, final string }{
		{"\x80<think>", "\x80"},
		{"<think>\u212a</think>YES", "YES"},
		{"<think>x</think>İstanbul: YES", "İstanbul: YES"},
		// Text on both sides of a trace keeps its own bytes.
		{"\xff\xfe<think>a</think>\x80 result: NO", "\xff\xfe\x80 result: NO"},
		{"plain", "plain"},
	}
	for _, tc := range tests {
		_, final := splitThink(tc.in)
		if final != tc.final {
			t.Errorf("splitThink(%q) final = %q, want %q", tc.in, final, tc.final)
		}
	}
}
