package llm

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func pref(v float64) map[string]float64 { return map[string]float64{"preference": v} }

// What models asked for MT-Bench's format write, and what must be read.
func TestParsePairwise(t *testing.T) {
	runParserCases(t, parsePairwise, []parserCase{
		{name: "clean", out: "Response A does what was asked; B adds an unrequested summary.\n\n[[A]]", want: pref(judge.PreferA), reason: "B adds an unrequested summary"},
		{name: "B", out: "B answers in French as asked.\n[[B]]", want: pref(judge.PreferB)},
		{name: "tie", out: "Both are correct and equally concise.\n\n[[C]]", want: pref(judge.PreferTie)},
		{name: "labelled", out: "A misses the word limit.\n\nFinal verdict: [[B]]", want: pref(judge.PreferB), reason: "A misses the word limit."},
		{name: "bold marker", out: "Explanation: B is right.\n\n**Final Verdict: [[B]]**", want: pref(judge.PreferB)},
		{name: "bold inside", out: "A is better.\n[[**A**]]", want: pref(judge.PreferA)},
		{name: "lower case", out: "a tie.\n[[c]]", want: pref(judge.PreferTie)},
		{name: "spaces inside", out: "[[ B ]]", want: pref(judge.PreferB)},
		{name: "quoted", out: `My verdict is "[[A]]".`, want: pref(judge.PreferA)},
		{name: "inside prose", out: "Having weighed both, I choose [[B]] because it cites the source.", want: pref(judge.PreferB)},
		{name: "the last marker wins", out: "At first [[A]] seemed right, but A invents a date.\n\nSo: [[B]]", want: pref(judge.PreferB)},
		{name: "think block", out: "<think>A looks longer... [[A]]? No, length must not decide.</think>\nB follows the format.\n[[B]]", want: pref(judge.PreferB)},
		{name: "think without opening tag", out: "maybe [[A]]</think>\n\n[[C]]", want: pref(judge.PreferTie)},
		{name: "arena-hard strong", out: "My final verdict is: Assistant B is significantly better: [[B>>A]]", want: pref(judge.PreferB)},
		{name: "arena-hard slight", out: "[[A>B]]", want: pref(judge.PreferA)},
		{name: "arena-hard tie", out: "My final verdict is tie: [[A=B]]", want: pref(judge.PreferTie)},
		{name: "tie word", out: "Equal.\n[[Tie]]", want: pref(judge.PreferTie)},
		{name: "fenced", out: "```\n[[A]]\n```", want: pref(judge.PreferA)},
		{name: "reason after", out: "[[B]]\n\nB keeps to the three bullet points asked for.", want: pref(judge.PreferB), reason: "three bullet points"},
		{name: "no brackets, verdict line", out: "A ignores the JSON format.\n\n**Verdict:** B", want: pref(judge.PreferB), reason: "ignores the JSON format"},
		{name: "no brackets, final verdict next line", out: "Both fine.\n\nFinal verdict:\n\n**C**", want: pref(judge.PreferTie)},
		{name: "no brackets, response named", out: "Winner: Response A", want: pref(judge.PreferA)},
		{name: "no brackets, tie", out: "Final verdict: tie", want: pref(judge.PreferTie)},
		{name: "no brackets, A is better", out: "Answer: A is better.", want: pref(judge.PreferA)},

		{name: "copied menu", out: "Output [[A]], [[B]] or [[C]]", errHas: "more than one verdict"},
		{name: "copied menu after reasoning", out: "B is better.\nVerdict: [[A]] / [[B]]", errHas: "more than one verdict"},
		{name: "prose only", out: "Response B is clearly better, it follows the instruction.", errHas: "no verdict found"},
		{name: "single brackets", out: "[A]", errHas: "no verdict found"},
		{name: "unknown marker", out: "[[D]]", errHas: "no verdict found"},
		{name: "verdict line of two", out: "Verdict: A or B", errHas: "no verdict found"},
		{name: "verdict line of prose", out: "Answer: both responses are weak", errHas: "no verdict found"},
		{name: "marker only in the trace", out: "<think>[[A]]</think>", errHas: "no answer after it"},
		{name: "empty", out: "  \n", errHas: "empty"},
	})
}

// The same marker twice on the verdict line is one verdict.
func TestParsePairwiseRepeatedMarker(t *testing.T) {
	p, err := parsePairwise("A is better: [[A]] ([[A]])")
	if err != nil || p.values["preference"] != judge.PreferA {
		t.Fatalf("%v, %v", p.values, err)
	}
}

func FuzzParsePairwise(f *testing.F) {
	for _, s := range []string{
		"A is better.\n[[A]]", "[[B]]", "[[C]]", "[[A>>B]]", "[[ **b** ]]", "Verdict: B", "Final verdict:\n\nA",
		"[[A]], [[B]] or [[C]]", "<think>[[A]]</think>[[B]]", "[[", "]]", "**Final Verdict: [[B]]**", "Winner: Response A",
		"Answer: A/B", "x\n[[A=B]]\ny",
	} {
		f.Add(s)
	}
	dims := []judge.Dimension{preferenceDim}
	f.Fuzz(func(t *testing.T, out string) {
		p, err := readOutput(parsePairwise, out)
		if err != nil {
			if p.values != nil {
				t.Fatalf("values %v with error %v", p.values, err)
			}
		} else {
			checkParsed(t, dims, p, out)
			if p.hasSpan {
				t.Fatalf("a pairwise verdict has no confidence span")
			}
		}
		// A verdict on a line of its own at the end always wins, unless
		// a <think> left open swallows it.
		_, final := splitThink(out)
		if !strings.HasSuffix(out, final) || strings.Contains(strings.ToLower(out), "<think") {
			return
		}
		q, err := readOutput(parsePairwise, out+"\n[[B]]")
		if err != nil || q.values["preference"] != judge.PreferB {
			t.Fatalf("%q + [[B]]: %v, %v", out, q.values, err)
		}
	})
}
