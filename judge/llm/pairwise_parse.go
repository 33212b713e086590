package llm

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// verdictMarkerRE finds a verdict marker: MT-Bench's [[A]], [[B]] and
// [[C]] (tie), [[tie]], and Arena-Hard's [[A>B]], [[A>>B]], [[A=B]],
// [[B>A]], [[B>>A]], which models trained on it write unasked. Case,
// spaces and bold inside the brackets are forgiven ("[[ **a** ]]").
var verdictMarkerRE = regexp.MustCompile(`(?i)\[\[[ \t*_]*(a>>b|a>b|a=b|b=a|b>a|b>>a|tie|a|b|c)[ \t*_]*\]\]`)

// markerValue maps a marker's inside (lower-cased) to a preference.
func markerValue(inner string) float64 {
	switch inner {
	case "a", "a>b", "a>>b":
		return judge.PreferA
	case "b", "b>a", "b>>a":
		return judge.PreferB
	}
	return judge.PreferTie
}

// verdictKeys are the line keys under which a model that forgot the
// brackets writes its verdict ("**Final verdict:** B").
var verdictKeys = map[string]bool{
	"verdict": true, "final verdict": true, "my final verdict": true, "my verdict": true,
	"answer": true, "final answer": true, "winner": true, "decision": true, "final decision": true,
	"better response": true, "preferred response": true, "preference": true, "judgment": true, "judgement": true,
}

// parsePairwise reads the pairwise judge's answer: an explanation, then
// [[A]], [[B]] or [[C]]. The last verdict marker wins, wherever it stands
// (a model may name a marker while it reasons, then conclude), but a last
// marker that shares its line with a different one ("[[A]], [[B]] or
// [[C]]", a copy of the instructions) is no verdict. Without any marker, a
// last "Verdict: B" line (or "Final verdict", "Winner", "Answer"…) whose
// value is only A, B, C or tie, or "Response A" and the like, is read.
// Anything else is a parse error: no guess.
func parsePairwise(text string) (parsed, error) {
	if ms := verdictMarkerRE.FindAllStringSubmatchIndex(text, -1); len(ms) > 0 {
		last := ms[len(ms)-1]
		inner := strings.ToLower(text[last[2]:last[3]])
		lineStart := strings.LastIndexByte(text[:last[0]], '\n') + 1
		lineEnd := len(text)
		if k := strings.IndexByte(text[last[1]:], '\n'); k >= 0 {
			lineEnd = last[1] + k
		}
		v := markerValue(inner)
		for _, m := range ms[:len(ms)-1] {
			if m[0] >= lineStart && markerValue(strings.ToLower(text[m[2]:m[3]])) != v {
				return parsed{}, fmt.Errorf("the verdict line names more than one verdict: %q", clip(strings.TrimSpace(text[lineStart:lineEnd]), 80))
			}
		}
		reason := explanation(text[:last[0]], text[last[1]:])
		return parsed{values: map[string]float64{preferenceDim.Name: v}, reason: reason}, nil
	}
	lines := splitOutputLines(text)
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if !verdictKeys[l.key] {
			continue
		}
		value := l.value
		if strings.TrimSpace(stripMarkup(value)) == "" {
			// "**Final verdict:**" with the verdict on the next line.
			for _, next := range lines[i+1:] {
				if strings.TrimSpace(next.text) != "" {
					value = next.text
					break
				}
			}
		}
		if v, ok := verdictWord(value); ok {
			return parsed{values: map[string]float64{preferenceDim.Name: v}, reason: explanation(text[:l.at], "")}, nil
		}
	}
	return parsed{}, errors.New("no verdict found: the answer should end with [[A]], [[B]] or [[C]]")
}

// verdictWord reads the value of a verdict line: the whole value when it
// names a response ("Response B", "Assistant A", "A>B", "tie"), or a
// leading A, B, C or tie that is not one of several ("A/B", "A or B").
func verdictWord(s string) (float64, bool) {
	low := strings.ToLower(strings.Join(strings.Fields(stripMarkup(s)), " "))
	low = strings.Trim(low, " .!:;,")
	switch low {
	case "a", "response a", "assistant a", "a>b", "a>>b", "a is better":
		return judge.PreferA, true
	case "b", "response b", "assistant b", "b>a", "b>>a", "b is better":
		return judge.PreferB, true
	case "c", "tie", "a=b", "b=a", "it's a tie", "it is a tie":
		return judge.PreferTie, true
	}
	t, ok := leadingToken(s)
	if !ok || t.ambiguous {
		return 0, false
	}
	switch strings.ToLower(t.text) {
	case "a":
		return judge.PreferA, true
	case "b":
		return judge.PreferB, true
	case "c", "tie":
		return judge.PreferTie, true
	}
	return 0, false
}

// stripMarkup drops the emphasis, quotes and brackets around a verdict.
func stripMarkup(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '*', '_', '`', '"', '\'', '[', ']', '(', ')', '#':
			return -1
		}
		return r
	}, s)
}

// verdictLabelRE is the label a model writes before its verdict marker,
// which is no part of the explanation.
var verdictLabelRE = regexp.MustCompile(`(?i)[\s*_#>"'` + "`" + `-]*(?:(?:my|the)\s+)?(?:final\s+)?(?:verdict|answer|decision|judge?ment|conclusion)(?:\s+is)?[\s*_]*[:：]?[\s*_"'` + "`" + `]*$`)

// labelTail is how far before a verdict its label may start.
const labelTail = 160

// explanation is the reason of a pairwise verdict: what the model wrote
// before its verdict, without the label that introduces it, or, when it
// wrote nothing before, what it wrote after.
func explanation(before, after string) string {
	// The label is short: look for it in the tail only, so that a long
	// explanation costs one pass.
	cut := max(len(before)-labelTail, 0)
	r := strings.TrimSpace(before[:cut] + verdictLabelRE.ReplaceAllString(before[cut:], ""))
	r = strings.TrimRight(r, " \t*_\"'`")
	if r == "" {
		r = strings.TrimSpace(strings.TrimLeft(after, " \t*_\"'`.:"))
	}
	return strings.TrimSpace(r)
}
