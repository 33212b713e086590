package cost

import (
	"strings"
	"testing"
)

func TestGroupAndMoney(t *testing.T) {
	cases := []struct{ got, want string }{
		{Group(0), "0"},
		{Group(999), "999"},
		{Group(1000), "1,000"},
		{Group(1234567), "1,234,567"},
		{Group(-1234), "-1,234"},
		{Money(0), "$0.00"},
		{Money(0.004), "$0.0040"},
		{Money(0.00004), "<$0.0001"},
		{Money(0.00006), "$0.0001"},
		{Money(12.345), "$12.35"},
		{Money(1234.5), "$1,234.50"},
		{plural(1, "request"), "1 request"},
		{plural(1200, "request"), "1,200 requests"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestPricesFor(t *testing.T) {
	p := Prices{"gpt-4o-mini": {Input: 0.15, Output: 0.6, BatchInput: 0.075, BatchOutput: 0.3, HasBatch: true}, "local": {}}
	cases := []struct {
		model   string
		batch   bool
		in, out float64
		ok      bool
	}{
		{"gpt-4o-mini", false, 0.15, 0.6, true},
		{"gpt-4o-mini", true, 0.075, 0.3, true},
		{"local", false, 0, 0, true},
		{"local", true, 0, 0, false},
		{"gpt-4o", false, 0, 0, false},
	}
	for _, tc := range cases {
		in, out, ok := p.For(tc.model, tc.batch)
		if in != tc.in || out != tc.out || ok != tc.ok {
			t.Errorf("For(%s, %t) = %g, %g, %t", tc.model, tc.batch, in, out, ok)
		}
	}
}

func TestRenderLines(t *testing.T) {
	exact := Estimate{Judge: "docqa", Tasks: 1000, Samples: 3, Requests: 2400, Cached: 600,
		Models: []ModelCost{{Model: "gpt-4o-mini", Requests: 2400, Counted: 2400, PromptTokens: 1_200_000, Encoding: O200kBase, Exact: true, MaxOutput: 240_000}}}
	guess := Estimate{Judge: "docqa", Tasks: 10, Samples: 1, Requests: 8, Skipped: 2,
		Models: []ModelCost{{Model: "qwen2.5-7b", Requests: 8, Counted: 8, PromptTokens: 4000, Encoding: Cl100kBase, Unbounded: 8}}}
	prices := Prices{"gpt-4o-mini": {Input: 0.15, Output: 0.6, BatchInput: 0.075, BatchOutput: 0.3, HasBatch: true}}
	cases := []struct {
		name  string
		r     Render
		e     Estimate
		want  []string
		short string
	}{
		{"exact, priced", Render{Prices: prices}, exact, []string{
			"requests: 2,400 for 1,000 tasks (3 samples each; 600 answers from the session's cache, not sent); retries of failed requests come on top",
			"prompt tokens: 1,200,000 (gpt-4o-mini's tokenizer, o200k_base; chat format included)",
			"output tokens: at most 240,000 (each request's max tokens; the model may stop sooner)",
			"price: $0.18 for the prompts + at most $0.14 for the answers",
		}, "2,400 requests · 1,200,000 prompt tokens · ≤ 240,000 output tokens · $0.18 in + ≤ $0.14 out"},
		{"batch", Render{Prices: prices, Batch: true}, exact, []string{
			"requests: 2,400 for 1,000 tasks (3 samples each; 600 answers from the session's cache, not sent); retries of failed requests come on top",
			"prompt tokens: 1,200,000 (gpt-4o-mini's tokenizer, o200k_base; chat format included)",
			"output tokens: at most 240,000 (each request's max tokens; the model may stop sooner)",
			"price: $0.09 for the prompts + at most $0.07 for the answers, at batch prices",
		}, "2,400 requests · 1,200,000 prompt tokens · ≤ 240,000 output tokens · $0.09 in + ≤ $0.07 out (batch)"},
		{"estimate, no price", Render{Prices: prices}, guess, []string{
			"requests: 8 for 10 tasks (2 tasks skipped: the item lacks what the prompt needs); retries of failed requests come on top",
			"prompt tokens: about 4,000, an estimate (qwen2.5-7b's tokenizer is not known to Gavel: counted with cl100k_base; chat format included)",
			"output tokens: not bounded (no max tokens: the server's default applies; --max-tokens sets one)",
			"price: unknown — the config gives no price for qwen2.5-7b (prices in config.yaml: see gavel config --help)",
		}, "8 requests · about 4,000 prompt tokens (estimated) · no price for qwen2.5-7b"},
		{"nothing to send", Render{}, Estimate{Tasks: 5, Samples: 1, Cached: 5}, []string{
			"requests: 0 for 5 tasks (5 answers from the session's cache, not sent); retries of failed requests come on top",
		}, "0 requests"},
		{"repeats and paid", Render{}, Estimate{Tasks: 6, Samples: 1, Requests: 1, Repeated: 3, Paid: 2,
			Models: []ModelCost{{Model: "gpt-4o-mini", Requests: 1, Counted: 1, PromptTokens: 100, Encoding: O200kBase, Exact: true, MaxOutput: 10}}}, []string{
			"requests: 1 for 6 tasks (3 requests repeat another task's prompt: sent once, answered from the cache; 2 requests in batches still running, paid when sent); retries of failed requests come on top",
			"prompt tokens: 100 (gpt-4o-mini's tokenizer, o200k_base; chat format included)",
			"output tokens: at most 10 (each request's max tokens; the model may stop sooner)",
			"price: unknown — the config gives no price for gpt-4o-mini (prices in config.yaml: see gavel config --help)",
		}, "1 request · 100 prompt tokens · ≤ 10 output tokens · no price for gpt-4o-mini"},
		{"offline", Render{}, Estimate{Tasks: 5, Offline: true}, []string{
			"5 tasks to do; the judge calls no model: no request, no cost.",
		}, "no model call"},
	}
	for _, tc := range cases {
		got := tc.r.Lines(tc.e)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if tc.short != "" {
			if s := tc.r.Short(tc.e); s != tc.short {
				t.Errorf("%s: Short\n got %q\nwant %q", tc.name, s, tc.short)
			}
		}
	}
}
