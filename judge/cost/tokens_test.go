package cost

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestEncoding(t *testing.T) {
	cases := []struct {
		model, enc string
		exact      bool
	}{
		{"gpt-4o", O200kBase, true},
		{"gpt-4o-mini-2024-07-18", O200kBase, true},
		{"GPT-4o-mini", O200kBase, true},
		{"gpt-4.1-nano", O200kBase, true},
		{"gpt-5-mini", O200kBase, true},
		{"o3", O200kBase, true},
		{"o4-mini", O200kBase, true},
		{"chatgpt-4o-latest", O200kBase, true},
		{"openai/gpt-4o-mini", O200kBase, true},
		{"ft:gpt-4o-mini-2024-07-18:acme::abc123", O200kBase, true},
		{"gpt-4", Cl100kBase, true},
		{"gpt-4-turbo", Cl100kBase, true},
		{"gpt-3.5-turbo-0125", Cl100kBase, true},
		{"gpt-35-turbo", Cl100kBase, true},
		{"o1x", Cl100kBase, false},       // not the o1 family
		{"gpt-4omni", Cl100kBase, false}, // nor gpt-4o's
		{"qwen2.5-7b-instruct", Cl100kBase, false},
		{"llama3.1:8b", Cl100kBase, false},
		{"", Cl100kBase, false},
	}
	for _, tc := range cases {
		enc, exact := Encoding(tc.model)
		if enc != tc.enc || exact != tc.exact {
			t.Errorf("Encoding(%q) = %s, %t; want %s, %t", tc.model, enc, exact, tc.enc, tc.exact)
		}
	}
}

// "hello world" is tiktoken's own example ([15339 1917] in cl100k_base);
// the other counts agree with a second implementation,
// github.com/pkoukk/tiktoken-go, compared when the library was chosen.
func TestCounterText(t *testing.T) {
	cases := []struct {
		enc, text string
		want      int
	}{
		{O200kBase, "hello world", 2},
		{Cl100kBase, "hello world", 2},
		{O200kBase, "", 0},
		{Cl100kBase, "Ünïcödé  spaces\n\n 12345 don't", 15},
		{O200kBase, "Ünïcödé  spaces\n\n 12345 don't", 12},
		{O200kBase, "日本語のテキスト", 6},
		{Cl100kBase, "日本語のテキスト", 8},
		{O200kBase, "system", 1},
		{O200kBase, "user", 1},
	}
	for _, tc := range cases {
		c, err := NewCounter(tc.enc)
		if err != nil {
			t.Fatal(err)
		}
		// Twice: the second from the memo when the text is long enough.
		for range 2 {
			if got := c.Text(tc.text); got != tc.want {
				t.Errorf("%s(%q) = %d, want %d", tc.enc, tc.text, got, tc.want)
			}
		}
	}
}

// The chat format: 3 tokens a message, its role and content, 3 to prime
// the reply.
func TestCounterChat(t *testing.T) {
	c, _ := NewCounter(O200kBase)
	cases := []struct {
		msgs []Message
		want int
	}{
		{nil, 3},
		{[]Message{{"user", "hello world"}}, 3 + 3 + 1 + 2},
		{[]Message{{"system", "hello world"}, {"user", "hello world"}}, 3 + 2*(3+1+2)},
	}
	for _, tc := range cases {
		if got := c.Chat(tc.msgs); got != tc.want {
			t.Errorf("Chat(%v) = %d, want %d", tc.msgs, got, tc.want)
		}
	}
	long := strings.Repeat(" word", 100)
	if a, b := c.Text(long), c.Text(long); a != b || a != 100 {
		t.Errorf("a repeated long text counts %d then %d, want 100", a, b)
	}
}

func post(t *Tally, body string) *http.Response {
	req, _ := http.NewRequest(http.MethodPost, "http://x/v1/chat/completions", io.NopCloser(bytes.NewReader([]byte(body))))
	resp, _ := t.RoundTrip(req)
	return resp
}

func TestTallyReadsRequests(t *testing.T) {
	cases := []struct {
		name, body string
		model      string
		tokens     int64
		maxOut     int64
		unbounded  int
		unread     int
	}{
		{"string content", `{"model":"gpt-4o","messages":[{"role":"user","content":"hello world"}],"max_tokens":10}`, "gpt-4o", 9, 10, 0, 0},
		{"reasoning max", `{"model":"o3","messages":[{"role":"user","content":"hello world"}],"max_completion_tokens":500}`, "o3", 9, 500, 0, 0},
		{"parts", `{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"text","text":"hello"},{"type":"text","text":" world"}]}]}`, "gpt-4o", 9, 0, 1, 0},
		{"a name", `{"model":"gpt-4o","messages":[{"role":"user","name":"ann","content":"hello world"}]}`, "gpt-4o", 10, 0, 1, 0},
		{"not JSON", `nope`, "", 0, 0, 0, 1},
		{"no model", `{"messages":[]}`, "", 0, 0, 0, 1},
	}
	for _, tc := range cases {
		ta := NewTally()
		resp := post(ta, tc.body)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: answered %d", tc.name, resp.StatusCode)
		}
		if ta.Requests() != 1 || ta.Unread() != tc.unread {
			t.Errorf("%s: requests %d, unread %d", tc.name, ta.Requests(), ta.Unread())
		}
		if tc.model == "" {
			continue
		}
		ms := ta.Models()
		if len(ms) != 1 || ms[0].Model != tc.model || ms[0].PromptTokens != tc.tokens || ms[0].MaxOutput != tc.maxOut || ms[0].Unbounded != tc.unbounded {
			t.Errorf("%s: %+v", tc.name, ms)
		}
	}
}

// A request body is whatever the client wrote: the tally must count any
// bytes as one request without failing.
func FuzzTallyBody(f *testing.F) {
	f.Add(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"max_tokens":3}`)
	f.Add(`{"model":"x","messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}`)
	f.Add(`{"model":"x","messages":[{"content":null}]}`)
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, body string) {
		ta := NewTally()
		post(ta, body)
		if ta.Requests() != 1 {
			t.Fatalf("%q counted as %d requests", body, ta.Requests())
		}
		for _, m := range ta.Models() {
			if m.PromptTokens < perReply {
				t.Fatalf("%q: %d prompt tokens", body, m.PromptTokens)
			}
		}
	})
}

// A large run is counted on a sample: the requests stay exact, the
// tokens come close to the full count and are labelled an estimate.
func TestTallySample(t *testing.T) {
	full, sampled := NewTally(), NewTally()
	sampled.SampleEvery(10)
	words := strings.Fields("the judge reads each answer and compares it with the gold one before it says yes or no about whether")
	for i := range 2000 {
		var b strings.Builder
		for k := range 20 + i%60 {
			b.WriteString(words[(i*7+k*3)%len(words)] + " ")
		}
		body := `{"model":"gpt-4o","messages":[{"role":"system","content":"You are a careful judge."},{"role":"user","content":"` + b.String() + `"}],"max_tokens":5}`
		post(full, body)
		post(sampled, body)
	}
	f, s := full.Models()[0], sampled.Models()[0]
	if f.Requests != 2000 || s.Requests != 2000 || s.MaxOutput != 10000 {
		t.Fatalf("requests %d and %d, max output %d", f.Requests, s.Requests, s.MaxOutput)
	}
	if !f.Exact || f.Counted != 2000 || s.Exact || s.Counted < 100 || s.Counted > 300 {
		t.Errorf("full: exact %t counted %d; sampled: exact %t counted %d", f.Exact, f.Counted, s.Exact, s.Counted)
	}
	if d := float64(s.PromptTokens-f.PromptTokens) / float64(f.PromptTokens); d < -0.03 || d > 0.03 {
		t.Errorf("sampled %d tokens, full %d (%.1f%% off)", s.PromptTokens, f.PromptTokens, 100*d)
	}
	r := Render{}.Lines(Estimate{Tasks: 2000, Samples: 1, Requests: 2000, Models: []ModelCost{s}})
	if !strings.Contains(r[1], "about ") || !strings.Contains(r[1], "on "+plural(s.Counted, "prompt")+" of the 2,000, the others scaled by length") {
		t.Errorf("the sampled count is not told as one: %q", r[1])
	}
}

// Counting paragraph by paragraph gives the whole text's count.
func TestCounterSplitsExactly(t *testing.T) {
	texts := []string{
		"Instructions:\nRead the answer.\n\nThen judge it.\n1. first\n2. second",
		"end.\n\n/path/x\nnext line\n\n\n  indented\nA\r\nB",
		"word\n\nword\n\n12345\n678 and more\n",
		"日本語\nテキスト\nok\n\n\tx\n y\nz",
		"don't\n's stuff\n'll\nQ: \"quoted\"\n(a) b\n[c]\n",
		strings.Repeat("You are a careful judge of answers to questions about documents.\n", 30),
	}
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, _ := NewCounter(enc)
		for _, s := range texts {
			whole, _ := c.codec.Count(s)
			for range 2 { // the second from the memo
				if got := c.Text(s); got != whole {
					t.Errorf("%s: %q counts %d by paragraphs, %d whole", enc, s, got, whole)
				}
			}
		}
	}
}

func FuzzCounterSplit(f *testing.F) {
	f.Add("a\nb\n\nc")
	f.Add(".\n\n/x\n1\n")
	f.Add(" \n\n x\ny")
	f.Add("\n\n\nA\r\n\r\nB")
	f.Add("x\n\u00e9\nY")
	o, _ := NewCounter(O200kBase)
	c, _ := NewCounter(Cl100kBase)
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range []*Counter{o, c} {
			whole, err := k.codec.Count(s)
			if err != nil {
				return
			}
			if got := k.Text(s); got != whole {
				t.Fatalf("%s: %q counts %d by paragraphs, %d whole", k.name, s, got, whole)
			}
		}
	})
}

// Ids and bodies that end alike are sampled as often as any: FNV-1a's low
// bits alone chose none of "q5-q5"-like ids, or all of them at k = 2.
func TestPickSpreadsRepeatingIDs(t *testing.T) {
	styles := map[string]func(int) string{
		"%d":      func(i int) string { return fmt.Sprint(i) },
		"row-%d":  func(i int) string { return fmt.Sprintf("row-%d", i) },
		"%08d":    func(i int) string { return fmt.Sprintf("%08d", i) },
		"q%d-q%d": func(i int) string { return fmt.Sprintf("q%d-q%d", i, i) },
	}
	for name, f := range styles {
		for _, k := range []uint64{2, 4, 8, 40} {
			for _, crits := range []int{1, 2} {
				n, hit := 20_000, 0
				for i := range n {
					for c := range crits {
						if pick(fmt.Appendf(nil, "%s\x00%d\x00%t", f(i), c, false), k) {
							hit++
						}
					}
				}
				want := float64(n*crits) / float64(k)
				if d := (float64(hit) - want) / want; d < -0.1 || d > 0.1 {
					t.Errorf("ids %s, k=%d, %d criteria: %d chosen, want about %.0f", name, k, crits, hit, want)
				}
			}
		}
	}
}

// A tally sampling one request in k still counts a model whose requests
// the hash all missed: its first request is counted.
func TestTallySampleNeverEmpty(t *testing.T) {
	ta := NewTally()
	ta.SampleEvery(1 << 40)
	post(ta, `{"model":"gpt-4o","messages":[{"role":"user","content":"hello there, judge"}],"max_tokens":5}`)
	post(ta, `{"model":"gpt-4o","messages":[{"role":"user","content":"hello there, judge, again"}],"max_tokens":5}`)
	m := ta.Models()[0]
	if m.Counted != 1 || m.Requests != 2 {
		t.Errorf("counted %d of %d", m.Counted, m.Requests)
	}
}
