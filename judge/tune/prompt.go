package tune

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
)

// Markers around the instructions in a proposal's answer.
const (
	beginMarker = "BEGIN INSTRUCTIONS"
	endMarker   = "END INSTRUCTIONS"
)

// fieldCap bounds each text of an item shown in a proposal prompt: a
// long document would crowd out the other disagreements.
const (
	fieldHead = 1200
	fieldTail = 300
)

// disagreement is one calibration item the current best judge got wrong.
type disagreement struct {
	item    Labelled
	verdict judge.Verdict // the judge's verdict; not ok when it had none
}

// proposalPrompt asks the model for revised instructions. It is built
// from the current instructions, the disagreements (calibration items
// only: the caller never hands it another part) and the instructions
// already tried that did not do better.
func proposalPrompt(dim judge.Dimension, current string, ds []disagreement, tried []string) []llm.Message {
	var b strings.Builder
	b.WriteString("Here are the current instructions of an LLM judge, between the markers:\n\n")
	fmt.Fprintf(&b, "%s\n%s\n%s\n\n", beginMarker, strings.TrimSpace(current), endMarker)
	fmt.Fprintf(&b, "The judge rates %q on a %s scale. On the %d items below it disagreed with a careful human expert. "+
		"For each item: the item, the judge's answer and reason, and the human's label and note.\n", dim.Name, dim.Scale, len(ds))
	for i, d := range ds {
		fmt.Fprintf(&b, "\n### Item %d\n", i+1)
		writeItem(&b, d.item.Item)
		fmt.Fprintf(&b, "Judge's answer: %s\n", verdictText(dim, d.verdict))
		fmt.Fprintf(&b, "Human's label: %s\n", dim.Scale.Format(d.item.Label))
		note := strings.TrimSpace(d.item.Note)
		if note == "" {
			note = "(no note)"
		}
		fmt.Fprintf(&b, "Human's note: %s\n", judge.CutText(note, fieldHead, fieldTail))
	}
	if len(tried) > 0 {
		b.WriteString("\nThese revisions were tried already and did not agree with the humans more often; do not repeat them:\n")
		for _, t := range tried {
			fmt.Fprintf(&b, "\n---\n%s\n", judge.CutText(strings.TrimSpace(t), fieldHead, fieldTail))
		}
		b.WriteString("---\n")
	}
	b.WriteString("\nRewrite the instructions so that the judge agrees with the human on cases like these. " +
		"State the general rule the human applies; do not mention these particular items. " +
		"Keep what the current instructions ask about the answer's format unchanged. " +
		"Write the complete new instructions, and nothing else, between a line " + beginMarker + " and a line " + endMarker + ".")
	return []llm.Message{
		{Role: "system", Content: "You improve the instructions of an LLM judge so that its verdicts agree with human experts."},
		{Role: "user", Content: b.String()},
	}
}

func writeItem(b *strings.Builder, it judge.Item) {
	wrote := false
	field := func(name, text string) {
		if strings.TrimSpace(text) != "" {
			fmt.Fprintf(b, "%s: %s\n", name, judge.CutText(text, fieldHead, fieldTail))
			wrote = true
		}
	}
	field("Question", it.Question)
	field("Gold answer", it.Gold)
	field("Prediction", it.Prediction)
	field("Response A", it.ResponseA)
	field("Response B", it.ResponseB)
	if !wrote {
		// A judge of the row's own fields ({doc.title}…): show the row.
		field("Item", string(it.Fields))
	}
}

// verdictText is the judge's answer as the prompt shows it.
func verdictText(dim judge.Dimension, v judge.Verdict) string {
	if !v.OK() {
		if v.Status == "" {
			return "(no verdict)"
		}
		why := strings.TrimSpace(v.Error)
		if why == "" {
			why = string(v.Status)
		}
		return "(no readable verdict: " + judge.CutText(why, 200, 0) + ")"
	}
	s := "(no value)"
	if x, ok := v.Values[dim.Name]; ok {
		s = dim.Scale.Format(x)
	}
	if r := strings.TrimSpace(v.Reason); r != "" {
		s += " — " + judge.CutText(r, fieldHead, fieldTail)
	}
	return s
}

// extractInstructions reads the instructions between the markers of a
// proposal's answer (the last pair, as a model may quote the current
// ones first), without a code fence around them; "" when there are none.
func extractInstructions(answer string) string {
	answer = strings.ReplaceAll(answer, "\r\n", "\n")
	end := strings.LastIndex(answer, endMarker)
	if end < 0 {
		return ""
	}
	start := strings.LastIndex(answer[:end], beginMarker)
	if start < 0 {
		return ""
	}
	s := strings.TrimSpace(answer[start+len(beginMarker) : end])
	if strings.HasPrefix(s, "```") {
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			s = s[nl+1:]
		} else {
			s = ""
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	return s
}
