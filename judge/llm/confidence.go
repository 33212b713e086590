package llm

import "math"

// confidence is the probability the model gave the answer written at
// [start, end) of a.content: the product of the probabilities of the
// tokens that spell it. It is nil when the server sent no logprobs or its
// tokens do not spell the content.
func confidence(a answer, start, end int) *float64 {
	start -= a.contentAt
	end -= a.contentAt
	if len(a.tokens) == 0 || len(a.tokens) != len(a.logprobs) || start < 0 || end <= start {
		return nil
	}
	text := a.content[a.contentAt:]
	pos, logp, covered := 0, 0.0, false
	for i, tok := range a.tokens {
		next := pos + len(tok)
		if next > len(text) || text[pos:next] != tok {
			return nil
		}
		if next > start && pos < end {
			logp += a.logprobs[i]
			covered = true
		}
		if next >= end {
			break
		}
		pos = next
	}
	if !covered || math.IsNaN(logp) {
		return nil
	}
	p := min(math.Exp(logp), 1)
	return &p
}
