package judge

import (
	"strings"
	"testing"
)

func TestSplitThink(t *testing.T) {
	tests := []struct {
		name, in, think, final string
	}{
		{"no trace", "The answer is 4.", "", "The answer is 4."},
		{"closed trace", "<think>2+2=4</think>The answer is 4.", "2+2=4", "The answer is 4."},
		{"upper case tags", "<THINK>x</THINK>y", "x", "y"},
		{"unclosed trace", "<think>still thinking", "still thinking", ""},
		{"missing opening tag", "reasoning here</think>\nFinal: B", "reasoning here", "\nFinal: B"},
		{"two blocks", "<think>a</think>b<think>c</think>d", "a\nc", "bd"},
		{"text before trace", "Sure. <think>t</think> Done", "t", "Sure.  Done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			think, final := SplitThink(tc.in)
			if think != tc.think || final != tc.final {
				t.Errorf("SplitThink(%q) = %q, %q; want %q, %q", tc.in, think, final, tc.think, tc.final)
			}
		})
	}
}

func TestFinalAnswerText(t *testing.T) {
	tests := []struct {
		in, want  string
		fromTrace bool
	}{
		{"<think>work</think>\n\nThe answer is (B).", "The answer is (B).", false},
		{"<think>first step\n\nso the answer is (C)</think>   ", "so the answer is (C)", true},
		{"", "", false},
		{"<think></think>", "", false},
	}
	for _, tc := range tests {
		got, fromTrace := FinalAnswerText(tc.in)
		if got != tc.want || fromTrace != tc.fromTrace {
			t.Errorf("FinalAnswerText(%q) = %q, %v; want %q, %v", tc.in, got, fromTrace, tc.want, tc.fromTrace)
		}
	}
}

func TestSplitThinkHostileInput(t *testing.T) {
	tests := []struct{ in, think, final string }{
		{"\xe3<think>x</think>y", "x", "\xe3y"},
		{"İİİİ<think>x</think>y", "x", "İİİİy"},
		{"<THINK>a</Think>b", "a", "b"},
		{"<<think>a</think>", "a", "<"},
		{"</think", "", "</think"},
	}
	for _, tc := range tests {
		think, final := SplitThink(tc.in)
		if think != tc.think || final != tc.final {
			t.Errorf("SplitThink(%q) = %q, %q; want %q, %q", tc.in, think, final, tc.think, tc.final)
		}
	}
}

func FuzzSplitThink(f *testing.F) {
	for _, s := range []string{"", "<think>a</think>b", "a</think>b", "<think>open", "\xe3<think>x</think>", "İ<think>x</think>y", strings.Repeat("<think>a</think>b", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		think, final := SplitThink(s)
		if len(final) > len(s) || len(think) > len(s)+strings.Count(s, "<") {
			t.Fatalf("SplitThink(%q) grew: %q, %q", s, think, final)
		}
		FinalAnswerText(s)
	})
}

func BenchmarkSplitThinkManyBlocks(b *testing.B) {
	s := strings.Repeat("<think>step</think>text ", 15000) // ~340 KB
	for b.Loop() {
		SplitThink(s)
	}
}
