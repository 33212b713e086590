// Package match is Gavel's offline, deterministic judge: it needs no model,
// no network and no key, so it is the demo's judge, the default when no API
// is configured, and the baseline every LLM judge should beat.
//
// Judging is two steps, taken from the seed prompts the LLM judges use:
//
//  1. Extract (seed 002, step 1) finds the answer in the prediction: it
//     ignores <think> traces (falling back to the end of the trace when the
//     final text is empty) and takes the last definitive statement —
//     \boxed{…}, "the answer is …", "Answer: …", a self-correction such as
//     "Wait, no, it is B" — before weaker cues ("So, …", **bold**) and, last
//     of all, the final line.
//  2. The gold answer's kind picks the rule that compares (seed 002's
//     equivalence table and seed 000's rules): "Not answerable", lists,
//     option letters, booleans, yes/no and plausibility words, numbers,
//     percentages, then normalised text (case, punctuation, articles,
//     whitespace, number words, months), acronyms ("NASA") and, lowest, a
//     "contains" baseline that is deliberately lenient.
//
// Every verdict names the rule that decided in its reason and in
// Extra["rule"], so a reviewer can see why and a statistic can count by
// rule; Extra also holds the extracted answer and its byte span in the
// prediction, for highlighting. An item without a gold answer gets a
// parse_error verdict. The judge holds no state and compiles nothing per
// call, so one value serves a worker pool over millions of items.
package match
