// Package judge knows items, judges, prompts, verdicts and models.
//
// An Item is one row of a dataset. A Judge turns a Task (an item, or one
// rubric criterion of an item) into a Verdict: a value per Dimension, each
// on a Scale, plus the reason, the raw output and a status. The offline
// "match" judge needs no model; the LLM judges call an OpenAI-compatible
// server. Pool runs any Judge over many tasks in the background and streams
// the verdicts as they arrive.
//
// This package does no storage and no drawing: sessions persists what it
// produces and tui shows it.
package judge
