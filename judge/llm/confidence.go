package llm

import (
	"fmt"
	"math"

	openai "github.com/sashabaranov/go-openai"
)

// topLogprobs is how many alternatives per token a request asks for, when
// it asks for logprobs: enough to see the most likely one, few enough to
// keep answers small (llama.cpp sends 20 per token when not told).
const topLogprobs = 5

// withheldRatio bounds how much less likely than the top alternative the
// answer's token may be for its logprobs to describe it: sampling at a
// temperature of 1 or less almost never picks a token a thousand times
// less likely than the best, while a server that constrains its output
// (llama.cpp under a grammar) reports the model's logprobs from before the
// constraint, where the answer's token can be far below the top.
var withheldRatio = math.Log(1000)

// ExtraConfidenceWithheld is the key of Verdict.Extra that says why a
// verdict has no confidence although the server sent logprobs: they
// cannot describe the answer that was written (a text).
const ExtraConfidenceWithheld = "confidence_withheld"

// confidence is the probability the model gave the answer written at
// [start, end) of a.content: the product of the probabilities of the
// tokens that spell it. It is nil when the server sent no logprobs or its
// tokens do not spell the content; nil with withheld set when one of the
// answer's tokens is under a thousandth as likely as the top alternative
// the server listed for it (withheldRatio).
func confidence(a answer, start, end int) (p *float64, withheld string) {
	start -= a.contentAt
	end -= a.contentAt
	if len(a.tokens) == 0 || len(a.tokens) != len(a.logprobs) || start < 0 || end <= start {
		return nil, ""
	}
	hasTop := len(a.topLogprobs) == len(a.tokens) && len(a.topTokens) == len(a.tokens)
	text := a.content[a.contentAt:]
	pos, logp, covered := 0, 0.0, false
	for i, tok := range a.tokens {
		next := pos + len(tok)
		if next > len(text) || text[pos:next] != tok {
			return nil, ""
		}
		if next > start && pos < end {
			logp += a.logprobs[i]
			covered = true
			if hasTop && withheld == "" && a.topLogprobs[i]-a.logprobs[i] > withheldRatio {
				withheld = fmt.Sprintf("the server's logprobs cannot describe the answer: its token %q has probability %.2g, under a thousandth of the most likely one listed, %q (%.2g) — a server that constrains its output (llama.cpp under a grammar) reports the model's logprobs from before the constraint",
					tok, math.Exp(a.logprobs[i]), a.topTokens[i], math.Exp(a.topLogprobs[i]))
			}
		}
		if next >= end {
			break
		}
		pos = next
	}
	if !covered || math.IsNaN(logp) {
		return nil, ""
	}
	if withheld != "" {
		return nil, withheld
	}
	c := min(math.Exp(logp), 1)
	return &c, ""
}

// topAlternatives returns, per token, the most likely alternative among
// its top_logprobs and its logprob ("" and NaN where there is none), or
// nils when no token lists any.
func topAlternatives(content []openai.LogProb) ([]string, []float64) {
	listed := false
	for _, t := range content {
		if len(t.TopLogProbs) > 0 {
			listed = true
			break
		}
	}
	if !listed {
		return nil, nil
	}
	toks, lps := make([]string, len(content)), make([]float64, len(content))
	for i, t := range content {
		lps[i] = math.NaN()
		for _, alt := range t.TopLogProbs {
			if math.IsNaN(lps[i]) || alt.LogProb > lps[i] {
				toks[i], lps[i] = alt.Token, alt.LogProb
			}
		}
	}
	return toks, lps
}

// nullNaN turns NaN into nil, for JSON.
func nullNaN(xs []float64) []*float64 {
	if xs == nil {
		return nil
	}
	out := make([]*float64, len(xs))
	for i := range xs {
		if !math.IsNaN(xs[i]) {
			out[i] = &xs[i]
		}
	}
	return out
}

// nanNull turns nil into NaN.
func nanNull(xs []*float64) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.NaN()
		if x != nil {
			out[i] = *x
		}
	}
	return out
}
