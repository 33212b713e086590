package cost

import (
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Encodings Gavel counts with.
const (
	O200kBase  = string(tokenizer.O200kBase)
	Cl100kBase = string(tokenizer.Cl100kBase)
)

// Chat-format overheads, as OpenAI documents them for its chat models
// (the cookbook's "How to count tokens with tiktoken", gpt-4o, gpt-4 and
// gpt-3.5-turbo since 0613): each message costs its role's and content's
// tokens plus perMessage, and every reply is primed with perReply.
const (
	perMessage = 3
	perReply   = 3
)

// openAIModels maps OpenAI's model families to their encodings. A name
// matches a family when it is the family's name or starts with it and a
// "-" (gpt-4o-mini-2024-07-18 is gpt-4o's; gpt-4 is checked after the
// longer gpt-4 families, first match wins).
var openAIModels = []struct{ family, encoding string }{
	{"gpt-5", O200kBase},
	{"gpt-4.1", O200kBase},
	{"gpt-4.5", O200kBase},
	{"gpt-4o", O200kBase},
	{"chatgpt-4o", O200kBase},
	{"o1", O200kBase},
	{"o3", O200kBase},
	{"o4", O200kBase},
	{"gpt-4", Cl100kBase},
	{"gpt-3.5-turbo", Cl100kBase},
	{"gpt-35-turbo", Cl100kBase}, // Azure's spelling
}

// Encoding returns the tokenizer encoding of model and whether it is the
// model's own: OpenAI's models by family (a fine-tuned "ft:BASE:…" and an
// "openai/" router prefix count as BASE); any other model gets
// cl100k_base, an estimate (Llama 3's vocabulary is cl100k_base's plus
// 28k tokens; other open models split text about as finely).
func Encoding(model string) (encoding string, exact bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimPrefix(m, "openai/")
	if rest, ok := strings.CutPrefix(m, "ft:"); ok {
		m, _, _ = strings.Cut(rest, ":")
	}
	for _, f := range openAIModels {
		if m == f.family || strings.HasPrefix(m, f.family+"-") {
			return f.encoding, true
		}
	}
	return Cl100kBase, false
}

// Counter counts a chat prompt's tokens in one encoding. It is safe for
// concurrent use.
type Counter struct {
	codec tokenizer.Codec
	name  string
	// memo holds the counts of texts seen before: a judge's instructions
	// repeat in every request, the items do not.
	mu   sync.Mutex
	memo map[string]int
}

// memoMax bounds the memo.
const memoMax = 1024

// memoMin is the shortest text worth remembering, memoMaxLen the longest
// (a judge's paragraphs are short; a document pasted in an item is not,
// and a thousand of them would hold gigabytes).
const (
	memoMin    = 64
	memoMaxLen = 16 << 10
)

var codecs sync.Map // encoding name → tokenizer.Codec

// NewCounter returns a counter of encoding (O200kBase or Cl100kBase).
func NewCounter(encoding string) (*Counter, error) {
	if c, ok := codecs.Load(encoding); ok {
		return &Counter{codec: c.(tokenizer.Codec), name: encoding, memo: map[string]int{}}, nil
	}
	c, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return nil, err
	}
	got, _ := codecs.LoadOrStore(encoding, c)
	return &Counter{codec: got.(tokenizer.Codec), name: encoding, memo: map[string]int{}}, nil
}

// Name is the counter's encoding.
func (c *Counter) Name() string { return c.name }

// Text counts the tokens of s: paragraph by paragraph (splitAt), each
// paragraph seen before from the memo, so that a judge's instructions,
// which every prompt repeats around its item, are tokenised about once.
func (c *Counter) Text(s string) int {
	n := 0
	for len(s) > 0 {
		i := splitAt(s)
		n += c.piece(s[:i])
		s = s[i:]
	}
	return n
}

// splitAt is where the first paragraph of s ends: after a line break
// followed by a letter or digit (ASCII), else at the end. Both
// encodings' pre-tokenisers end a piece there — a run of line breaks
// is a piece of its own or ends one (" ?[^\s\p{L}\p{N}]+[\r\n]*"), and
// a piece that starts with a letter or digit takes nothing before it —
// and byte-pair merges stay within pieces, so the paragraphs' counts add
// up to the whole's (TestCounterSplitsExactly, FuzzCounterSplit).
func splitAt(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i-1] == '\n' && isAlnum(s[i]) {
			return i
		}
	}
	return len(s)
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// piece counts one paragraph, through the memo when it is long enough to
// be worth it. A full memo is emptied: the texts that repeat come back at
// once, the items' paragraphs do not.
func (c *Counter) piece(s string) int {
	if len(s) < memoMin || len(s) > memoMaxLen {
		return c.count(s)
	}
	c.mu.Lock()
	n, ok := c.memo[s]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = c.count(s)
	c.mu.Lock()
	if len(c.memo) >= memoMax {
		clear(c.memo)
	}
	c.memo[s] = n
	c.mu.Unlock()
	return n
}

// count tokenises s.
func (c *Counter) count(s string) int {
	if s == "" {
		return 0
	}
	n, err := c.codec.Count(s)
	if err != nil {
		// The codec fails only on invalid UTF-8 in strict mode, which
		// is not set; count bytes then, the most a text can take.
		n = len(s)
	}
	return n
}

// Message is one chat message: its role and its text.
type Message struct{ Role, Content string }

// Chat counts a chat prompt's tokens as OpenAI's chat format bills them.
func (c *Counter) Chat(msgs []Message) int {
	n := perReply
	for _, m := range msgs {
		n += perMessage + c.Text(m.Role) + c.Text(m.Content)
	}
	return n
}
