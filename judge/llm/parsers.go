package llm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// parsed is what a parser read from a model's final text.
type parsed struct {
	values map[string]float64
	reason string
	extra  map[string]any
	// span, when hasSpan, is where the binary answer (YES, NO, true,
	// false) stands in the text parsed, for its confidence.
	start, end int
	hasSpan    bool
}

func (p *parsed) setSpan(start, end int) {
	p.start, p.end, p.hasSpan = start, end, true
}

// readOutput reads a model's whole output with parse: the text after any
// <think> trace is what counts. The answer's span is moved to offsets in
// raw where the final text is raw's tail, and dropped where it is not.
func readOutput(parse func(string) (parsed, error), raw string) (parsed, error) {
	think, final := splitThink(raw)
	if strings.TrimSpace(final) == "" {
		if strings.TrimSpace(think) != "" {
			return parsed{}, errors.New("the output holds a <think> trace and no answer after it")
		}
		return parsed{}, errors.New("the output is empty")
	}
	p, err := parse(final)
	if err != nil {
		return parsed{}, err
	}
	if p.hasSpan {
		if off := len(raw) - len(final); strings.HasSuffix(raw, final) {
			p.start += off
			p.end += off
		} else {
			p.hasSpan = false
		}
	}
	return p, nil
}

// splitThink is judge.SplitThink, which is safe for any bytes.
func splitThink(raw string) (think, final string) { return judge.SplitThink(raw) }

// parseDocQA reads seed 000's format: a "reason: …" line and a
// "result: YES/NO" line, the last result line winning. An output that is
// only the word YES or NO is read too.
func parseDocQA(text string) (parsed, error) {
	lines := splitOutputLines(text)
	i := lastKey(lines, "result")
	if i < 0 {
		if t, ok := leadingToken(text); ok && !t.ambiguous && onlyToken(text, t) {
			if v, ok := yesNo(t.text); ok {
				p := parsed{values: map[string]float64{"correct": v}}
				p.setSpan(t.start, t.end)
				return p, nil
			}
		}
		return parsed{}, errors.New(`no "result:" line found`)
	}
	l := lines[i]
	t, ok := leadingToken(l.value)
	if !ok {
		return parsed{}, errors.New(`the "result:" line is empty`)
	}
	v, isYesNo := yesNo(t.text)
	if !isYesNo || t.ambiguous {
		return parsed{}, fmt.Errorf("the result line says %q, not YES or NO", clip(strings.TrimSpace(l.value), 60))
	}
	p := parsed{values: map[string]float64{"correct": v}, reason: keyText(lines, "reason", i)}
	p.setSpan(l.valueAt+t.start, l.valueAt+t.end)
	return p, nil
}

// answerKeys are the labels a model may put before a bare answer word.
var answerKeys = []string{"answer", "final answer", "result", "label", "output", "verdict", "reply"}

// parseWord reads a bare answer word, as same-event's "YES"/"NO": the
// first word of the output ("**YES**", "No. They differ…"), else the value
// of an "Answer: …" line, else a last line that holds only the word. read
// maps the word to a value.
func parseWord(text string, read func(string) (float64, bool)) (float64, int, int, error) {
	if t, ok := leadingToken(text); ok && !t.ambiguous {
		if v, ok := read(t.text); ok {
			return v, t.start, t.end, nil
		}
	}
	lines := splitOutputLines(text)
	for _, key := range answerKeys {
		if i := lastKey(lines, key); i >= 0 {
			l := lines[i]
			if t, ok := leadingToken(l.value); ok && !t.ambiguous {
				if v, ok := read(t.text); ok {
					return v, l.valueAt + t.start, l.valueAt + t.end, nil
				}
			}
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if strings.TrimSpace(l.text) == "" || l.fence {
			continue
		}
		if t, ok := leadingToken(l.text); ok && !t.ambiguous && onlyToken(l.text, t) {
			if v, ok := read(t.text); ok {
				return v, l.at + t.start, l.at + t.end, nil
			}
		}
		break
	}
	return 0, 0, 0, errors.New("no answer word found")
}

func parseSameEvent(text string) (parsed, error) {
	v, start, end, err := parseWord(text, yesNo)
	if err != nil {
		return parsed{}, err
	}
	p := parsed{values: map[string]float64{"correct": v}}
	p.setSpan(start, end)
	return p, nil
}

// parseRubric reads seed 001's JSON: {"score": 1.0 | 0.5 | 0.0, "reason"}.
func parseRubric(text string) (parsed, error) {
	obj, err := findJSONObject(text, "score")
	if err != nil {
		return parsed{}, err
	}
	raw, _ := field(obj.fields, "score")
	score, err := scaleValue(raw, judge.Ternary)
	if err != nil {
		return parsed{}, fmt.Errorf(`"score" %w`, err)
	}
	return parsed{values: map[string]float64{"score": score}, reason: textValue(obj.fields, "reason")}, nil
}

// parseBBH reads seed 002's JSON. is_correct decides; reasoning_score is
// kept only when it is an integer from 1 to 5, and the other fields as
// written.
func parseBBH(text string) (parsed, error) {
	obj, err := findJSONObject(text, "is_correct")
	if err != nil {
		return parsed{}, err
	}
	raw, _ := field(obj.fields, "is_correct")
	ok, err := boolValue(raw)
	if err != nil {
		return parsed{}, fmt.Errorf(`"is_correct" %w`, err)
	}
	p := parsed{values: map[string]float64{"correct": b2f(ok)}, extra: map[string]any{}}
	if s := textValue(obj.fields, "extracted_answer"); s != "" {
		p.extra[ExtraExtractedAnswer] = s
	}
	if rs, ok := field(obj.fields, "reasoning_score"); ok {
		if x, err := scaleValue(rs, judge.Likert); err == nil {
			p.extra[ExtraReasoningScore] = x
		}
	}
	if s := strings.ToLower(textValue(obj.fields, "error_type")); s != "" {
		p.extra[ExtraErrorType] = s
	}
	if s := textValue(obj.fields, "comment"); s != "" {
		p.extra[ExtraComment] = s
		p.reason = s
	}
	if start, end, ok := valueSpan(text[obj.start:obj.end], "is_correct"); ok {
		p.setSpan(obj.start+start, obj.start+end)
	}
	return p, nil
}

// parseQuality reads seed 003's JSON: two scores from 1 to 5, their
// reasonings and the lists of missing points and factual errors.
func parseQuality(text string) (parsed, error) {
	obj, err := findJSONObject(text, "completeness_score", "correctness_score")
	if err != nil {
		return parsed{}, err
	}
	p := parsed{values: map[string]float64{}, extra: map[string]any{}}
	for _, d := range []string{"completeness", "correctness"} {
		raw, _ := field(obj.fields, d+"_score")
		v, err := scaleValue(raw, judge.Likert)
		if err != nil {
			return parsed{}, fmt.Errorf("%q %w", d+"_score", err)
		}
		p.values[d] = v
	}
	var reasons []string
	for _, k := range []string{"completeness_reasoning", "correctness_reasoning"} {
		if s := textValue(obj.fields, k); s != "" {
			p.extra[k] = s
			reasons = append(reasons, strings.ToUpper(k[:1])+strings.TrimSuffix(k[1:], "_reasoning")+": "+s)
		}
	}
	p.reason = strings.Join(reasons, "\n")
	for _, k := range []string{ExtraKeyMissingInfo, ExtraFactualErrors} {
		if l := listValue(obj.fields, k); l != nil {
			p.extra[k] = l
		}
	}
	return p, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
