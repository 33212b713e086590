package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// A 400 or 422 whose body Gavel does not know stops the run on the first
// request (the settings may be wrong for every item), but once the server
// has answered a request of the same model and settings, it fails that
// item alone with the server's message.
func TestUnknownRejectionAfterASuccess(t *testing.T) {
	// Bodies as servers write them for a problem with one request's text.
	const (
		vllmBody = `{"object":"error","message":"[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, Invalid unicode escape in message content', 'input': {'model': 'm'}}]","type":"BadRequestError","param":null,"code":400}`
		tgiBody  = "{\"error\":\"Input validation error: `inputs` cannot be empty\",\"error_type\":\"validation\"}"
	)
	tests := []struct {
		name   string
		status int
		body   string
		// badFirst: the rejected item is the first request.
		badFirst bool
		wantStop bool
	}{
		{"vLLM 400 after a success", 400, vllmBody, false, false},
		{"TGI 422 after a success", 422, tgiBody, false, false},
		{"vLLM 400 on the first request", 400, vllmBody, true, true},
		{"TGI 422 on the first request", 422, tgiBody, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
				for _, m := range req.Messages {
					if strings.Contains(m.Content, "REJECT-ME") {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(tc.status)
						fmt.Fprint(w, tc.body)
						return
					}
				}
				writeCompletion(w, req.Model, completion{content: "reason: it matches.\nresult: YES"})
			})
			j := mustJudge(t, "docqa", testConfig(fs))
			bad := testItem("bad")
			bad.Question += " REJECT-ME"
			tasks := []judge.Task{{Item: testItem("a")}, {Item: bad}, {Item: testItem("c")}}
			if tc.badFirst {
				tasks = []judge.Task{{Item: bad}, {Item: testItem("a")}, {Item: testItem("c")}}
			}
			ctx, cancel := StopOnFatal(context.Background())
			defer cancel()
			vs := runWithin(t, 20*time.Second, func() []judge.Verdict { return runAll(t, ctx, j, tasks, 1) })
			if tc.wantStop {
				f := FatalCause(ctx)
				if f == nil || !strings.Contains(f.Error(), "the server rejected the request") {
					t.Fatalf("cause %v; want the run stopped", f)
				}
				return
			}
			if f := FatalCause(ctx); f != nil {
				t.Fatalf("the run stopped: %v", f)
			}
			got := map[string]judge.Verdict{}
			for _, v := range vs {
				got[v.ItemID] = v
			}
			if len(got) != 3 || !got["a"].OK() || !got["c"].OK() {
				t.Fatalf("verdicts %+v; want a and c judged", got)
			}
			b := got["bad"]
			if b.Status != judge.StatusAPIError || !strings.Contains(b.Error, "the server rejected this item (HTTP ") || !strings.Contains(b.Error, "the same model and settings") {
				t.Errorf("the rejected item: %s %q", b.Status, b.Error)
			}
			if msg := parseErrorBody([]byte(tc.body)).message; !strings.Contains(b.Error, oneLine(msg)) {
				t.Errorf("the error %q lacks the server's message %q", b.Error, msg)
			}
		})
	}
}

// A URL whose scheme or port does not match what answers there stops the
// run at once, with advice, instead of pausing for --wait: no HTTP answer
// was ever had from it.
func TestNotHTTPStopsAtOnce(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeCompletion(w, "m", completion{content: "reason: ok\nresult: YES"})
	}))
	defer plain.Close()
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeCompletion(w, "m", completion{content: "reason: ok\nresult: YES"})
	}))
	// Its complaints about the handshakes this test fails on purpose.
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	// Something else on the port: a Redis server, which answers the
	// request line with its own error and closes on the Host: line.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(2 * time.Second))
				buf := make([]byte, 4096)
				if n, _ := c.Read(buf); n > 0 {
					fmt.Fprint(c, "-ERR unknown command 'POST', with args beginning with: '/v1/chat/completions' 'HTTP/1.1' \r\n")
				}
			}()
		}
	}()
	// A server that speaks first: an SSH server's banner.
	ssh, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ssh.Close()
	go func() {
		for {
			c, err := ssh.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// Over a network the request is written a round trip
				// before the banner comes; on loopback the banner can
				// win, reach net/http's connection before its request
				// ("Unsolicited response") and drop it, the judge then
				// pausing as for any dropped connection. CI under -race
				// lost that race four times in a row (14 s). The pause
				// models the round trip (the client writes its request
				// at once on connecting), so the banner answers the
				// request, as it does off loopback.
				time.Sleep(100 * time.Millisecond)
				fmt.Fprint(c, "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13.5\r\n")
				c.SetReadDeadline(time.Now().Add(2 * time.Second))
				buf := make([]byte, 4096)
				c.Read(buf)
				fmt.Fprint(c, "Invalid SSH identification string.\r\n")
			}()
		}
	}()
	tests := []struct {
		name, url string
		says      []string
		// mayPause: a banner that arrives before the request is written
		// reaches an idle connection (net/http closes it: "Unsolicited
		// response"), so the first try may fail as a dropped connection
		// and pause before the next one reads the banner; which happens
		// depends on scheduling (it did under -race). The run must still
		// stop at once with the advice.
		mayPause bool
	}{
		{"a server that speaks first", "http://" + ssh.Addr().String(), []string{"did not answer in HTTP", "scheme and port"}, true},
		{"https:// to a plain HTTP server", strings.Replace(plain.URL, "http://", "https://", 1), []string{"use http://: the server does not speak TLS"}, false},
		{"an untrusted certificate", tlsSrv.URL, []string{"cannot verify the server's TLS certificate", "the certificate is not trusted"}, false},
		{"http:// to a TLS server", strings.Replace(tlsSrv.URL, "https://", "http://", 1), []string{"the server speaks TLS", "use https://"}, false},
		{"another protocol on the port", "http://" + l.Addr().String(), []string{"did not answer in HTTP", "scheme and port"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := &healthLog{}
			cfg := Config{BaseURL: tc.url + "/v1", APIKey: testKey, Model: "judge-model", Concurrency: 1, OnHealth: log.add}
			j := mustJudge(t, "docqa", cfg)
			ctx, cancel := StopOnFatal(context.Background())
			defer cancel()
			start := time.Now()
			runWithin(t, 15*time.Second, func() []judge.Verdict { return runAll(t, ctx, j, manyTasks(6), 1) })
			f := FatalCause(ctx)
			if f == nil {
				t.Fatalf("not stopped; health %+v", log.all())
			}
			for _, s := range tc.says {
				if !strings.Contains(f.Error(), s) {
					t.Errorf("%q lacks %q", f.Error(), s)
				}
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("stopped after %s; want at once", d)
			}
			for _, h := range log.all() {
				if h.NotAnswering && !tc.mayPause {
					t.Errorf("the run paused: %s", h)
				}
			}
		})
	}
}

// prefixCacheServer answers like an Ollama whose runner reports only the
// prompt tokens it processed (ollama/ollama#8008, before #16428): a prompt
// sharing a prefix with one it served reports only the rest, with no
// prompt_tokens_details. Its context holds every prompt.
func prefixCacheServer(t *testing.T) *fakeServer {
	var mu sync.Mutex
	var seen [][]string
	return newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
		var words []string
		for _, m := range req.Messages {
			words = append(words, strings.Fields(m.Content)...)
		}
		mu.Lock()
		shared := 0
		for _, p := range seen {
			n := 0
			for n < len(p) && n < len(words) && p[n] == words[n] {
				n++
			}
			shared = max(shared, n)
		}
		seen = append(seen, words)
		mu.Unlock()
		// 1.3 tokens a word, as realTokens; at least one token is processed.
		read := max((len(words)-shared)*13/10, 1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-512","object":"chat.completion","created":1732609000,"model":%q,"system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"reason: the document says so.\nresult: YES"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":12,"total_tokens":%d}}`,
			req.Model, read, read+12)
	})
}

// A server that reports only the uncached part of a prompt gives no
// truncated verdict once it has shown it reads prompts that long whole:
// questions on one long document, and the same prompt sampled twice.
func TestPrefixCacheCountsAreNotTruncation(t *testing.T) {
	fs := prefixCacheServer(t)
	cfg := testConfig(fs)
	cfg.Samples = 2
	j := mustJudge(t, "docqa", cfg)
	var tasks []judge.Task
	for i := range 4 {
		it := longItem(fmt.Sprint("q", i), 3000)
		// The same document, then each item's own question.
		it.Question = strings.Repeat("The telescope was carried into orbit by the shuttle Discovery. ", 300) + fmt.Sprintf("Question %d: when was it launched?", i)
		tasks = append(tasks, judge.Task{Item: it})
	}
	for _, v := range runAll(t, context.Background(), j, tasks, 1) {
		if v.Status != judge.StatusOK {
			t.Errorf("%s: %s %q", v.ItemID, v.Status, v.Error)
		}
	}
	if n := fs.hits.Load(); n != 8 {
		t.Errorf("%d requests, want 8", n)
	}
}

// The estimate stays under what tokenizers give: white space and runs of
// one character are not counted as text. lowest is a count no tokenizer in
// use goes under (the pieces tiktoken's cl100k pattern splits the text
// into before any merge, each at least one token; for Chinese, two thirds
// of a token a character, under the most compact tokenizers' rate);
// atLeast keeps the estimate from saying nothing. tiktoken is the fewer
// tokens of cl100k_base and o200k_base for the text (counted with
// js-tiktoken 1.x when the test was written), which the estimate must not
// exceed either; before white space and runs were left out, the estimate
// was above it for the spaces, the rule, the runs and the JSON.
func TestPromptEstimateIsLow(t *testing.T) {
	code := strings.Repeat(`class Cache:
    def __init__(self, size):
        self.size = size
        self.items = {}

    def get(self, key):
        if key in self.items:
            value = self.items.pop(key)
            self.items[key] = value
            return value
        return None
`, 20)
	var nested any = map[string]any{"id": 7, "name": "Ada", "tags": []string{"a", "b"}}
	for range 6 {
		nested = map[string]any{"level": nested, "ok": true, "n": 1}
	}
	pretty, _ := json.MarshalIndent(nested, "", "        ")
	chinese := strings.Repeat("哈勃空间望远镜于一九九零年由发现号航天飞机送入轨道，至今仍在运行。", 40)
	prose := strings.Repeat("The Hubble Space Telescope was launched into low Earth orbit in 1990 and remains in operation. ", 40)
	tests := []struct {
		name     string
		text     string
		lowest   int
		tiktoken int
		atLeast  int
	}{
		{"30,000 spaces", strings.Repeat(" ", 30000), 1, 235, 0},
		{"tabs and newlines", strings.Repeat("\t\t\n", 5000), 1, 2500, 0},
		{"a rule of = and -", strings.Repeat("=", 3000) + "\n" + strings.Repeat("-", 3000), 2, 96, 1},
		{"repeated runs in text", strings.Repeat("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!!!!!!!!!!!!!!!! ", 100), pieces(strings.Repeat("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!!!!!!!!!!!!!!!! ", 100)), 699, 100},
		{"indented code", code, pieces(code), 1220, pieces(code) / 4},
		{"pretty-printed JSON", string(pretty), pieces(string(pretty)), 151, pieces(string(pretty)) / 4},
		{"Chinese", chinese, len([]rune(chinese)) * 2 / 3, 1160, len([]rune(chinese)) / 3},
		{"English prose", prose, pieces(prose), 801, len(strings.Fields(prose))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := promptEstimate([]Message{{Role: "user", Content: tc.text}})
			if got > tc.lowest || got > tc.tiktoken {
				t.Errorf("estimate %d, above what tokenizers give: at least %d, tiktoken %d", got, tc.lowest, tc.tiktoken)
			}
			if got < tc.atLeast {
				t.Errorf("estimate %d, below %d: it says too little", got, tc.atLeast)
			}
		})
	}
}

// pieces is how many pieces tiktoken's cl100k pattern splits s into
// before merging (letters with one leading mark or space, up to three
// digits, punctuation with a leading space, runs of white space): each is
// at least one token. Go's regexp has no look-ahead, which only moves a
// space from a run of them to the word after.
func pieces(s string) int {
	return len(piecesRe.FindAllString(s, -1))
}

var piecesRe = regexp.MustCompile(`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+`)

// vLLMServer answers like vLLM serving one model with max_model_len
// ctx: GET /v1/models, and chat completions.
func vLLMServer(t *testing.T, ctx int) *fakeServer {
	fs := newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
		writeCompletion(w, req.Model, completion{content: "reason: it matches.\nresult: YES"})
	})
	chat := fs.Config.Handler
	fs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"object":"list","data":[{"id":"judge-model","object":"model","created":1732609000,"owned_by":"vllm","root":"/models/judge-model","parent":null,"max_model_len":%d,"permission":[]}]}`, ctx)
			return
		}
		chat.ServeHTTP(w, r)
	})
	return fs
}

// Where the server told its context (vLLM's max_model_len), an answer's
// room (--max-tokens) that alone fills it stops the run before any
// request, saying to lower it; a smaller one judges as usual.
func TestMaxTokensOverTheKnownContext(t *testing.T) {
	tests := []struct {
		maxTokens int
		stops     bool
	}{
		{8000, true},
		{4096, true},
		{1000, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.maxTokens), func(t *testing.T) {
			fs := vLLMServer(t, 4096)
			cfg := testConfig(fs)
			cfg.MaxTokens = tc.maxTokens
			j := mustJudge(t, "docqa", cfg)
			if _, err := j.Client().Probe(context.Background()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := StopOnFatal(context.Background())
			defer cancel()
			vs := runWithin(t, 20*time.Second, func() []judge.Verdict { return runAll(t, ctx, j, manyTasks(5), 2) })
			f := FatalCause(ctx)
			if !tc.stops {
				if f != nil || len(vs) != 5 || !vs[0].OK() {
					t.Fatalf("cause %v, %d verdicts (%s %q)", f, len(vs), vs[0].Status, vs[0].Error)
				}
				return
			}
			if f == nil || !strings.Contains(f.Error(), "lower --max-tokens below 4096") {
				t.Fatalf("cause %v; want a stop saying to lower --max-tokens", f)
			}
			if n := fs.hits.Load(); n != 0 {
				t.Errorf("%d chat requests, want none", n)
			}
		})
	}
}

// The advice for a truncated prompt names a context that holds it and the
// answer (the next power of two), not one fixed size.
func TestTruncatedAdviceIsSized(t *testing.T) {
	tests := []struct {
		words int
		want  string
	}{
		{2000, "num_ctx 4096"},
		{3000, "num_ctx 8192"},
		{9000, "num_ctx 16384"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.words), func(t *testing.T) {
			srv := newOllamaServer(t, 1024, false)
			v := mustJudge(t, "docqa", testConfig(srv.fakeServer)).Judge(context.Background(), judge.Task{Item: longItem("long", tc.words)})
			if v.Status != judge.StatusTruncated {
				t.Fatalf("%s %q, want truncated", v.Status, v.Error)
			}
			for _, s := range []string{tc.want, "OLLAMA_CONTEXT_LENGTH=" + strings.TrimPrefix(tc.want, "num_ctx "), "--ctx-size", "--max-model-len"} {
				if !strings.Contains(v.Error, s) {
					t.Errorf("%q lacks %q", v.Error, s)
				}
			}
		})
	}
}

// A fatal error's fix that carries server text (the model names it
// lists) has the API key taken out, as its problem has.
func TestFatalFixIsRedacted(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {})
	fs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
			// A proxy that names its routes after the caller's key.
			fmt.Fprintf(w, `{"object":"list","data":[{"id":"judge-model-%s","object":"model","owned_by":"proxy"}]}`, testKey)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "{\"error\":{\"message\":\"The model `judge-model` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}")
	})
	j := mustJudge(t, "docqa", testConfig(fs))
	ctx, cancel := StopOnFatal(context.Background())
	defer cancel()
	v := j.Judge(ctx, judge.Task{Item: testItem("1")})
	f := FatalCause(ctx)
	if f == nil || !strings.Contains(f.Fix, "judge-model-[api key]") {
		t.Fatalf("cause %v", f)
	}
	if strings.Contains(f.Fix, testKey) || strings.Contains(v.Error, testKey) {
		t.Errorf("the key is shown: %q", f.Fix)
	}
}

// A refused connection (the server down) whose request was sent before
// the last success does not start the pause; it is then an ordinary try,
// not a free one that is retried at once, over and over.
func TestDownBeforeTheLastSuccessIsNotFree(t *testing.T) {
	clk := &stepClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	h := newHealth(Config{Clock: clk, Wait: time.Minute, Retry: RetryPolicy{Attempts: 3, BaseDelay: time.Second, MaxDelay: 10 * time.Second}})
	sent := clk.Now()
	clk.advance(time.Second)
	a, b := new(int), new(int)
	h.report(a, false, clk.Now(), nil) // a success after sent
	if free := h.report(b, false, sent, &failure{msg: downMsg, retry: true, silent: true, down: true}); free {
		t.Error("a refused connection sent before the last success was free")
	}
	// One sent after it starts the pause, and is free.
	if free := h.report(b, false, clk.Now(), &failure{msg: downMsg, retry: true, silent: true, down: true}); !free {
		t.Error("a refused connection after the last success was not free")
	}
}

// stepClock moves only when told.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time                         { return c.now }
func (c *stepClock) After(d time.Duration) <-chan time.Time { return make(chan time.Time) }
func (c *stepClock) advance(d time.Duration)                { c.now = c.now.Add(d) }

// The length a server is trusted to read whole is the larger of its two
// counts, not their sum: one fully cached prompt counted as 1900 + 1900
// must not let a later prompt cut to 1024 of about 3000 tokens pass.
func TestSurelyReadIsNotTheSum(t *testing.T) {
	cached := answer{promptTokens: 1900, cachedTokens: 1900}
	if got := cached.surelyRead(); got != 1900 {
		t.Errorf("surely read %d of a 1900-token prompt counted twice", got)
	}
	later := answer{promptTokens: 1024, estimate: 3000, seen: cached.surelyRead()}
	if !later.truncated() {
		t.Error("a prompt cut to 1024 of about 3000 tokens is not truncated after a cached 1900")
	}
}

// A server that took the first item and then refuses every item — a
// proxy's spent budget, a policy — stops the run: at once when it says
// the budget is spent (LiteLLM's 400, BerriAI/litellm#4139), after a few
// refusals in a row otherwise, instead of a request per remaining item.
func TestEveryItemRefusedStopsTheRun(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantSent int64 // requests sent before the stop, the first success included
		want     string
	}{
		{"LiteLLM budget", `{"error":{"message":"Budget has been exceeded! Current cost: 10.02, Max budget: 10.0","type":"budget_exceeded","param":null,"code":"400"}}`, 2, "budget is spent"},
		{"unknown refusal", `{"error":{"message":"Request blocked by policy","type":"invalid_request_error","param":null,"code":null}}`, 1 + rejectedInARow, "requests in a row"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int64
			fs := newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
				if served.Add(1) == 1 {
					writeCompletion(w, req.Model, completion{content: "reason: it matches.\nresult: YES"})
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, tc.body)
			})
			j := mustJudge(t, "docqa", testConfig(fs))
			var tasks []judge.Task
			for i := range 12 {
				tasks = append(tasks, judge.Task{Item: testItem(fmt.Sprint("i", i))})
			}
			ctx, cancel := StopOnFatal(context.Background())
			defer cancel()
			runWithin(t, 20*time.Second, func() []judge.Verdict { return runAll(t, ctx, j, tasks, 1) })
			f := FatalCause(ctx)
			if f == nil || !strings.Contains(f.Error(), tc.want) {
				t.Fatalf("cause %v; want the run stopped (%q)", f, tc.want)
			}
			if n := served.Load(); n != tc.wantSent {
				t.Errorf("%d requests sent, want %d", n, tc.wantSent)
			}
		})
	}
}
