package match

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/gavel-dev/gavel/judge"
)

// fuzzSeeds are (gold, prediction, question) triples covering every rule
// and the awkward inputs: unclosed braces and traces, invalid UTF-8, huge
// numbers, lone cues.
var fuzzSeeds = [][3]string{
	{"(B)", "So the answer is (B).", bbhQuestion},
	{"(A)", `\boxed{\text{(A)`, ""},
	{"True", "<think>The answer is False</think>", ""},
	{"yes", "<think>unclosed", ""},
	{"42", "forty-two thousand million billion trillion", ""},
	{"10%", "−.5 per cent", ""},
	{"['Jun', 'Aug']", "['June']", seed000Ex3Question},
	{"[\"a\\", "[", ""},
	{"Not answerable.", seed000Ex1Pred, seed000Ex1Question},
	{"N/A", "n/", ""},
	{"NASA", "National Aeronautics", ""},
	{"", "The answer is", ""},
	{"x", "Answer:\n\n\n", ""},
	{"x", "Wait, no, it is", "The answer is (B). Wait, no,"},
	{"\xff\xfe", "\xffanswer is \xc3", "Options:\n(\xff) x"},
	{"99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999", "-9e999", ""},
	{"] ) }", "**", ""},
	{"(Z)", "option", "Options:\n(Z)"},
}

// FuzzJudge checks that any gold, prediction and question give a verdict
// that is ok or parse_error, never a panic, with the extracted answer where
// its span says.
func FuzzJudge(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[0], s[1], s[2])
	}
	j := New()
	f.Fuzz(func(t *testing.T, gold, pred, question string) {
		v := j.Judge(context.Background(), judge.Task{Item: judge.Item{
			ID: "it-1", Gold: gold, Prediction: pred, Question: question,
		}})
		checkVerdict(t, v, pred)
	})
}

// FuzzExtract checks that Extract's span always lies inside the prediction
// and holds exactly the answer.
func FuzzExtract(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[1])
	}
	f.Fuzz(func(t *testing.T, pred string) {
		ex := Extract(pred)
		if ex.Start < 0 || ex.End < ex.Start || ex.End > len(pred) {
			t.Fatalf("span [%d,%d) outside %d bytes", ex.Start, ex.End, len(pred))
		}
		if ex.End > ex.Start && pred[ex.Start:ex.End] != ex.Answer {
			t.Fatalf("span holds %q, answer %q", pred[ex.Start:ex.End], ex.Answer)
		}
		if (ex.Answer == "") != (ex.Rule == "none") {
			t.Fatalf("answer %q with rule %q", ex.Answer, ex.Rule)
		}
	})
}

// FuzzNormalize checks that normalisation never panics and is idempotent
// on valid UTF-8: normalising a normal form changes nothing, so the rules
// compare like with like.
func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[0])
		f.Add(s[1])
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := normText(s)
		if !utf8.ValidString(s) {
			return
		}
		if again := normText(n); again != n {
			t.Fatalf("normText(%q) = %q, but normText of that = %q", s, n, again)
		}
	})
}

// FuzzParseList checks the list reader on any input.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"['Jun', 'Aug']", `["a\"b", 'c']`, "[1, 2,]", "[,]", "['x", "[\\]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, ok := parseList(s)
		if ok && items == nil {
			t.Fatalf("parseList(%q) ok with nil items", s)
		}
	})
}

// FuzzFinalText checks finalView against judge.FinalAnswerText, the
// definition it follows, on ASCII text (where judge.SplitThink's offsets
// are sound), and that every piece of the view is where it says it is in
// the prediction for any input.
func FuzzFinalText(f *testing.F) {
	for _, s := range []string{
		"<think>a</think>b", "x</think>y<think>z", "<think>p\n\nq</think>", "<THINK>a</Think> b <think>c</think>d",
		"</think></think><think><think></think>", "<think> </think>\n<think>a\n\n\n\nb\n\n</think>", "a<think>b",
		"<think>x</think>\n\n", "\xe3<think>", "İ<think>x</think>y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, fromTrace := finalView(s)
		for _, sg := range v.segs {
			if sg.at < 0 || sg.at+sg.n > len(v.text) || sg.orig < 0 || sg.orig+sg.n > len(s) ||
				v.text[sg.at:sg.at+sg.n] != s[sg.orig:sg.orig+sg.n] {
				t.Fatalf("segment %+v of view %q does not match %q", sg, v.text, s)
			}
		}
		ascii := []byte(s)
		for i, c := range ascii {
			if c >= 0x80 {
				ascii[i] = '?'
			}
		}
		if string(ascii) != s {
			return
		}
		want, wantTrace := judge.FinalAnswerText(s)
		if v.text != want || fromTrace != wantTrace {
			t.Fatalf("finalView(%q) = %q, %v; judge.FinalAnswerText = %q, %v", s, v.text, fromTrace, want, wantTrace)
		}
	})
}
