package judge

import "strings"

// SplitThink separates a model output into its reasoning trace and its
// final answer text. The trace is everything inside <think>…</think>
// (several blocks are joined with newlines); an unclosed <think> runs to
// the end, and a closing </think> with no opening tag before it (as some
// reasoning models write) makes everything before it the trace. Tags are
// matched ASCII-case-insensitively on bytes, so any input — invalid UTF-8
// included — splits in one linear pass.
func SplitThink(s string) (think, final string) {
	const openTag, closeTag = "<think>", "</think>"
	var traces []string
	var fin strings.Builder
	i := 0
	if c := indexFold(s, closeTag, 0); c >= 0 {
		if o := indexFold(s[:c], openTag, 0); o < 0 {
			traces = append(traces, s[:c])
			i = c + len(closeTag)
		}
	}
	for i < len(s) {
		o := indexFold(s, openTag, i)
		if o < 0 {
			fin.WriteString(s[i:])
			break
		}
		fin.WriteString(s[i:o])
		start := o + len(openTag)
		c := indexFold(s, closeTag, start)
		if c < 0 {
			traces = append(traces, s[start:])
			break
		}
		traces = append(traces, s[start:c])
		i = c + len(closeTag)
	}
	return joinTraces(traces), fin.String()
}

// indexFold returns the first index at or after from where the ASCII tag
// occurs in s, ignoring ASCII case, or -1.
func indexFold(s, tag string, from int) int {
	for i := from; i+len(tag) <= len(s); {
		j := strings.IndexByte(s[i:], tag[0])
		if j < 0 || i+j+len(tag) > len(s) {
			return -1
		}
		i += j
		if strings.EqualFold(s[i:i+len(tag)], tag) {
			return i
		}
		i++
	}
	return -1
}

// joinTraces joins the non-blank trace blocks with newlines; when every
// block is blank, the first one stands for them.
func joinTraces(traces []string) string {
	var kept []string
	for _, t := range traces {
		if strings.TrimSpace(t) != "" {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 && len(traces) > 0 {
		return traces[0]
	}
	return strings.Join(kept, "\n")
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
