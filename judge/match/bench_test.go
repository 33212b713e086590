package match

import (
	"context"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// bbhTask is a typical BBH item: a few-shot question with options and a
// chain-of-thought prediction that ends with its answer.
var bbhTask = judge.Task{Item: judge.Item{
	ID:         "date_understanding-17",
	Question:   strings.Repeat(bbhQuestion+"\nIf today is Christmas Eve of 1937, then tomorrow is 12/25/1937. So the answer is (B).\n\n", 3) + bbhQuestion,
	Gold:       "(B)",
	Prediction: "If today is Christmas Eve of 1937, then today's date is December 24, 1937. The date tomorrow is December 25, 1937, that is 12/25/1937. So the answer is (B).",
}}

func BenchmarkJudge(b *testing.B) {
	j := New()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		j.Judge(ctx, bbhTask)
	}
}

// BenchmarkJudgeThink is a reasoning model's output: a long <think> trace,
// then a boxed answer.
func BenchmarkJudgeThink(b *testing.B) {
	t := bbhTask
	t.Item.Prediction = "<think>" + strings.Repeat("Let me check the date again. ", 60) + "</think>\n\nThe final answer is $\\boxed{B}$."
	j := New()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		j.Judge(ctx, t)
	}
}

// BenchmarkJudgeProse is a document QA item judged by the text rules.
func BenchmarkJudgeProse(b *testing.B) {
	t := judge.Task{Item: judge.Item{
		ID:         "docqa-3",
		Question:   seed000Ex1Question,
		Gold:       "Democratic/Lean Democratic",
		Prediction: seed000Ex1Pred,
	}}
	j := New()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		j.Judge(ctx, t)
	}
}

func BenchmarkExtract(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Extract(bbhTask.Item.Prediction)
	}
}
