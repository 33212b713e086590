package tui

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// maxShownBytes caps how much of one field is wrapped for display: a 10 MB
// field must not make every frame slow. The rest is announced, not drawn.
const maxShownBytes = 256 << 10

// renderCache keeps the wrapped lines of the panes whose content depends
// only on the item and the width, so that scrolling and labelling do not
// re-wrap long predictions on every frame.
type renderCache struct {
	entries map[cacheKey][]string
}

type cacheKey struct {
	item, width int
	p           pane
	think       bool
	hidden      bool // blind mode hides the highlight too
	run         int  // the highlight is the active judge's
}

func (c *renderCache) clear() { c.entries = nil }

func (c *renderCache) get(k cacheKey, build func() []string) []string {
	if lines, ok := c.entries[k]; ok {
		return lines
	}
	if c.entries == nil || len(c.entries) > 64 {
		c.entries = map[cacheKey][]string{}
	}
	lines := build()
	c.entries[k] = lines
	return lines
}

// paneLines returns a pane's content as styled lines of at most inner
// cells.
func (s *reviewScreen) paneLines(p pane, inner int) []string {
	if len(s.items) == 0 || inner < 1 {
		return nil
	}
	if p == paneVerdict {
		return s.verdictLines(inner)
	}
	k := cacheKey{item: s.cur, width: inner, p: p, think: s.showThink, hidden: s.hidden(s.cur), run: s.act}
	return s.cache.get(k, func() []string {
		it := s.items[s.cur]
		switch p {
		case paneQuestion:
			return s.textLines(it.Question, inner)
		case paneGold:
			return s.goldLines(it, inner)
		case paneResponseB:
			return s.answerLines(it.ResponseB, inner, false)
		case panePrediction:
			if it.Pairwise() {
				return s.answerLines(it.ResponseA, inner, false)
			}
		}
		return s.answerLines(it.Prediction, inner, true)
	})
}

// shown sanitises a field and cuts it to maxShownBytes.
func shown(field string) (string, int) {
	return shownUpTo(field, maxShownBytes)
}

// shownUpTo sanitises at most n bytes of a field and says how many bytes
// were left out.
func shownUpTo(field string, n int) (string, int) {
	c := Clip(field, n)
	return Sanitize(c), len(field) - len(c)
}

func (s *reviewScreen) textLines(field string, inner int) []string {
	text, cut := shown(field)
	if strings.TrimSpace(text) == "" {
		return []string{s.styles.Muted.Render("(empty)")}
	}
	lines := wrapPlain(text, inner)
	if cut > 0 {
		lines = append(lines, s.styles.Muted.Render(fmt.Sprintf("… %s more not shown", byteSize(cut))))
	}
	return lines
}

func (s *reviewScreen) goldLines(it judge.Item, inner int) []string {
	lines := s.textLines(it.Gold, inner)
	if len(it.Rubric) == 0 {
		return lines
	}
	lines = append(lines, "", s.styles.Strong.Render("Rubric"))
	for k, c := range it.Rubric {
		prefix := fmt.Sprintf("%d. ", k+1)
		for j, l := range wrapPlain(Sanitize(c), max(inner-len(prefix), 1)) {
			if j == 0 {
				lines = append(lines, prefix+l)
			} else {
				lines = append(lines, strings.Repeat(" ", len(prefix))+l)
			}
		}
	}
	return lines
}

// answerLines draws a prediction or one response of a pair: <think>
// traces dimmed and, unless unfolded, folded into one line; in a
// prediction (highlight set), the answer the judge extracted highlighted
// where it appears in the final text.
func (s *reviewScreen) answerLines(answer string, inner int, highlight bool) []string {
	think, final := judge.SplitThink(answer)
	var lines []string
	if strings.TrimSpace(think) != "" {
		t, cut := shown(strings.TrimSpace(think))
		wrapped := wrapPlain(t, inner)
		if s.showThink {
			for _, l := range wrapped {
				lines = append(lines, s.styles.Think.Render(l))
			}
			if cut > 0 {
				lines = append(lines, s.styles.Muted.Render(fmt.Sprintf("… %s more not shown", byteSize(cut))))
			}
			lines = append(lines, s.styles.Muted.Render("──── end of <think> (t folds it) ────"))
		} else {
			lines = append(lines, s.styles.Think.Render(fmt.Sprintf("▸ <think> %d lines folded — t unfolds", len(wrapped))))
		}
	}
	text, cut := shown(strings.TrimSpace(final))
	if text == "" && len(lines) == 0 {
		return []string{s.styles.Muted.Render("(empty)")}
	}
	if text == "" {
		lines = append(lines, s.styles.Muted.Render("(no final answer after the trace)"))
		return lines
	}
	hl := span{}
	if highlight {
		hl = s.highlightSpan(text)
	}
	for _, sp := range wrapSpans(text, inner) {
		lines = append(lines, s.highlightLine(text, sp, hl))
	}
	if cut > 0 {
		lines = append(lines, s.styles.Muted.Render(fmt.Sprintf("… %s more not shown", byteSize(cut))))
	}
	return lines
}

// highlightSpan finds the extracted answer of the active judge's verdict
// in the final text: its last occurrence, since judges take the last
// definitive statement. Returns an empty span when there is none.
func (s *reviewScreen) highlightSpan(text string) span {
	r := s.run()
	if r == nil || s.hidden(s.cur) {
		return span{}
	}
	v, ok := r.verdict(s.cur, 0)
	if !ok {
		return span{}
	}
	v = s.detailed(r, s.cur, v)
	ans, _ := v.Extra["extracted_answer"].(string)
	ans = strings.TrimSpace(Sanitize(ans))
	if ans == "" {
		return span{}
	}
	hay, needle := strings.ToLower(text), strings.ToLower(ans)
	if len(hay) != len(text) || len(needle) != len(ans) {
		// Case folding changed byte lengths: offsets would not line up.
		hay, needle = text, ans
	}
	i := strings.LastIndex(hay, needle)
	if i < 0 {
		return span{}
	}
	return span{i, i + len(ans)}
}

// highlightLine renders one wrapped line, styling the part that overlaps
// the highlight.
func (s *reviewScreen) highlightLine(text string, sp, hl span) string {
	a, b := max(sp.start, hl.start), min(sp.end, hl.end)
	if hl.end <= hl.start || a >= b {
		return text[sp.start:sp.end]
	}
	return text[sp.start:a] + s.styles.Highlight.Render(text[a:b]) + text[b:sp.end]
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
