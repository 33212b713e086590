package judge

import "strings"

// Span is a byte range [Start, End) of a string.
type Span struct{ Start, End int }

// ThinkRegions splits a model output into the regions outside <think>
// blocks (finals) and the regions inside them (traces), as byte ranges of
// s in order. Tags are matched ASCII-case-insensitively on bytes; an
// unclosed <think> runs to the end; a </think> with no opening tag before
// it makes everything since the previous region trace (reasoning models
// that omit the opening tag write this). It reads s once, whatever its
// bytes — invalid UTF-8 included — so that offsets can be used to
// highlight what a judge extracted.
func ThinkRegions(s string) (finals, traces []Span) {
	const openTag, closeTag = "<think>", "</think>"
	if strings.IndexByte(s, '<') < 0 {
		return []Span{{0, len(s)}}, nil
	}
	nextOpen, nextClose := -2, -2 // -2: not searched yet; -1: none left
	find := func(cached *int, tag string, from int) int {
		if *cached == -1 || *cached >= from {
			return *cached
		}
		*cached = indexFold(s, tag, from)
		return *cached
	}
	for pos := 0; ; {
		open := find(&nextOpen, openTag, pos)
		cl := find(&nextClose, closeTag, pos)
		if cl >= 0 && (open < 0 || cl < open) {
			traces = append(traces, Span{pos, cl})
			pos = cl + len(closeTag)
			continue
		}
		if open < 0 {
			return append(finals, Span{pos, len(s)}), traces
		}
		finals = append(finals, Span{pos, open})
		body := open + len(openTag)
		end := find(&nextClose, closeTag, body)
		if end < 0 {
			return finals, append(traces, Span{body, len(s)})
		}
		traces = append(traces, Span{body, end})
		pos = end + len(closeTag)
	}
}

// SplitThink separates a model output into its reasoning trace and its
// final answer text, by ThinkRegions' rules: the trace blocks are joined
// with newlines, the final text is everything outside them.
func SplitThink(s string) (think, final string) {
	finals, traces := ThinkRegions(s)
	if len(traces) == 0 {
		return "", s
	}
	var fin strings.Builder
	for _, r := range finals {
		fin.WriteString(s[r.Start:r.End])
	}
	parts := make([]string, len(traces))
	for i, r := range traces {
		parts[i] = s[r.Start:r.End]
	}
	return joinTraces(parts), fin.String()
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
