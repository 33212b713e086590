// Package demo holds the sample dataset that `gavel` opens when it is run
// with no arguments, so that a newcomer can see the whole tool in a minute
// without a dataset or an API key of their own.
//
// The data is one JSONL file of 60 hand-written items in four categories,
// one per kind of built-in judge: "doc-qa" (document questions, including
// "Not answerable" golds and list answers), "bbh" (BIG-Bench-Hard-style
// puzzles whose predictions carry <think> traces, \boxed{} answers and
// self-corrections), "rubric" (items with 2–4 criteria and a short
// reference answer) and "open-ended" (explanations against a reference).
// Each line has the fields id, category, question, answer (the gold) and
// prediction, plus rubric (a list of criteria) on rubric items.
//
// About 60 % of the predictions are right, 30 % wrong and 10 % borderline,
// and the offline match judge is deliberately wrong on several of them —
// a correct paraphrase or abbreviation it fails, a hedged or rule-breaking
// answer it passes — so that a reviewer has real disagreements to find.
// The names, organisations and documents are fictional.
package demo

import _ "embed"

// Name is the file name the demo dataset is shown and recorded under.
const Name = "demo.jsonl"

// JSONL is the demo dataset, one JSON object per line. Treat it as
// read-only: it is shared by everything that opens the demo.
//
//go:embed demo.jsonl
var JSONL []byte
