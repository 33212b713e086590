package match

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// Name is the judge's name in sessions and on the command line.
const Name = "match"

// Dimension is the one thing the judge rates.
const Dimension = "correct"

// Version is the version of the rules. It is part of the judge's Params,
// so a session re-judges when the rules change instead of mixing verdicts
// of two rule sets under one run.
const Version = "1"

// Extra keys of every verdict this judge writes.
const (
	// ExtraAnswer is the extracted answer text (string).
	ExtraAnswer = "extracted_answer"
	// ExtraRule is the id of the rule that decided (string, Rule* constants).
	ExtraRule = "rule"
	// ExtraExtraction is how the answer was found (string, Extraction.Rule).
	ExtraExtraction = "extraction"
	// ExtraFromTrace is true when the answer came from the end of the
	// <think> trace (bool).
	ExtraFromTrace = "from_trace"
	// ExtraStart and ExtraEnd are the answer's byte offsets in the
	// prediction (int), for highlighting; equal when there is nothing to
	// highlight.
	ExtraStart = "answer_start"
	ExtraEnd   = "answer_end"
)

type matcher struct{}

// New returns the offline match judge. It holds no state, so one value
// serves any number of goroutines.
func New() judge.Judge { return matcher{} }

// Info describes the judge: one binary dimension, no model.
func (matcher) Info() judge.Info {
	return judge.Info{
		Name:        Name,
		Description: "Offline rule-based matcher: extracts the final answer and compares it with the gold answer (no model needed).",
		Dimensions: []judge.Dimension{{
			Name:        Dimension,
			Scale:       judge.Binary,
			Description: "The prediction's final answer matches the gold answer.",
		}},
		Params: map[string]any{"version": Version},
	}
}

// Judge extracts the answer from the task's prediction and compares it
// with the gold answer. An item without a gold answer gets a parse_error
// verdict, since there is nothing to match against.
func (matcher) Judge(_ context.Context, t judge.Task) judge.Verdict {
	it := t.Item
	ex, final := extract(it.Prediction)
	v := judge.Verdict{
		ItemID:    it.ID,
		Criterion: t.Criterion,
		At:        time.Now(),
		Extra: map[string]any{
			ExtraAnswer:     ex.Answer,
			ExtraExtraction: ex.Rule,
			ExtraFromTrace:  ex.FromTrace,
			ExtraStart:      ex.Start,
			ExtraEnd:        ex.End,
		},
	}
	if strings.TrimSpace(it.Gold) == "" {
		v.Status = judge.StatusParseError
		v.Error = "the item has no gold answer to match against: fill its gold field, or map another field to gold with --map gold=FIELD"
		return v
	}
	o := decide(input{gold: it.Gold, question: it.Question, gt: tokens(it.Gold), ex: ex, final: final})
	v.Status = judge.StatusOK
	v.Values = map[string]float64{Dimension: 0}
	if o.correct {
		v.Values[Dimension] = 1
	}
	v.Extra[ExtraRule] = o.rule
	v.Reason = reason(o, ex)
	return v
}

// reason is the verdict's one-sentence reason: the rule that decided, what
// was extracted and how, and the comparison.
func reason(o outcome, ex Extraction) string {
	if o.rule == RuleNoAnswer {
		return fmt.Sprintf("rule %q: %s.", o.rule, o.detail)
	}
	return fmt.Sprintf("rule %q: extracted %s %s; %s.", o.rule, quote(ex.Answer), how(ex), o.detail)
}

// how says in words where the answer was found.
func how(ex Extraction) string {
	var s string
	switch ex.Rule {
	case "boxed":
		s = `from \boxed{}`
	case "answer-is":
		s = `after "the answer is"`
	case "answer-label":
		s = `after "Answer:"`
	case "self-correction":
		s = "from the last self-correction"
	case "conclusion":
		s = `from the concluding sentence ("So, …")`
	case "bold":
		s = "from the last **bold** text"
	case "last-line":
		s = "from the last line (no answer cue)"
	default:
		s = "from the whole text (no answer cue)"
	}
	if ex.FromTrace {
		s += " at the end of the <think> trace"
	}
	return s
}
