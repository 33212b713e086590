package judge

import "strings"

// SplitThink separates a model output into its reasoning trace and its
// final answer text. The trace is everything inside <think>…</think>
// (several blocks are joined); an unclosed <think> runs to the end, and a
// closing </think> with no opening tag (as some reasoning models write)
// makes everything before it the trace. Tags are matched case-insensitively.
func SplitThink(s string) (think, final string) {
	lower := strings.ToLower(s)
	open := strings.Index(lower, "<think>")
	closeTag := strings.Index(lower, "</think>")
	if closeTag >= 0 && (open < 0 || closeTag < open) {
		// A trace with its opening tag missing.
		t, rest := s[:closeTag], s[closeTag+len("</think>"):]
		more, fin := SplitThink(rest)
		return joinTrace(t, more), fin
	}
	if open < 0 {
		return "", s
	}
	before := s[:open]
	after := s[open+len("<think>"):]
	end := strings.Index(strings.ToLower(after), "</think>")
	if end < 0 {
		return after, before
	}
	more, fin := SplitThink(after[end+len("</think>"):])
	return joinTrace(after[:end], more), before + fin
}

func joinTrace(a, b string) string {
	switch {
	case strings.TrimSpace(b) == "":
		return a
	case strings.TrimSpace(a) == "":
		return b
	}
	return a + "\n" + b
}

// FinalAnswerText returns the text a judge should read for the answer: the
// output outside <think> blocks, or, when that is empty, the end of the
// trace (the last non-empty paragraph), as seed 002 asks.
func FinalAnswerText(s string) (text string, fromTrace bool) {
	think, final := SplitThink(s)
	if strings.TrimSpace(final) != "" {
		return strings.TrimSpace(final), false
	}
	t := strings.TrimSpace(think)
	if t == "" {
		return "", false
	}
	paras := strings.Split(t, "\n\n")
	for i := len(paras) - 1; i >= 0; i-- {
		if p := strings.TrimSpace(paras[i]); p != "" {
			return p, true
		}
	}
	return t, true
}
