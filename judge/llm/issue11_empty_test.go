package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// writeRawContent answers with content written as is in the JSON
// (null, "", "  \n").
func writeRawContent(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}`, content)
}

func TestIssue11EmptyAnswersRetriedThenParseError(t *testing.T) {
	for name, content := range map[string]string{"empty": `""`, "null": `null`, "white space": `" \n\t "`, "no content": ``} {
		t.Run(name, func(t *testing.T) {
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
				if content == "" {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant"},"finish_reason":"stop"}]}`)
					return
				}
				writeRawContent(w, content)
			})
			cfg := testConfig(fs)
			cache := newMapCache()
			cfg.Cache = cache
			j := mustJudge(t, "docqa", cfg)
			v := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
			if v.Status != judge.StatusParseError || v.Error != "empty answer" {
				t.Fatalf("verdict %s %q, want parse_error \"empty answer\"", v.Status, v.Error)
			}
			if got := fs.hits.Load(); got != 1+emptyRetries {
				t.Errorf("%d requests, want %d", got, 1+emptyRetries)
			}
			if v.Retries != emptyRetries || v.Extra[ExtraTries] != 1+emptyRetries {
				t.Errorf("retries %d, tries %v", v.Retries, v.Extra[ExtraTries])
			}
			cache.mu.Lock()
			stored := len(cache.m)
			cache.mu.Unlock()
			if stored != 0 {
				t.Errorf("an empty answer was cached (%d entries)", stored)
			}
			// Judged again, the server is asked again.
			j.Judge(context.Background(), judge.Task{Item: testItem("1")})
			if got := fs.hits.Load(); got != 2*(1+emptyRetries) {
				t.Errorf("%d requests after judging twice, want %d", got, 2*(1+emptyRetries))
			}
		})
	}
}

func TestIssue11EmptyAnswerThenAnAnswer(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		if n < emptyRetries {
			writeRawContent(w, `null`)
			return
		}
		writeCompletion(w, req.Model, completion{content: "reason: fine\nresult: YES"})
	})
	cfg := testConfig(fs)
	cfg.Cache = newMapCache()
	j := mustJudge(t, "docqa", cfg)
	v := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() || v.Values["correct"] != 1 || v.Retries != emptyRetries {
		t.Fatalf("verdict %s %q, %d retries; want YES after %d empty answers", v.Status, v.Error, v.Retries, emptyRetries)
	}
	// The answer was cached, the empty ones were not.
	v = j.Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() || v.Extra[ExtraCached] != true || fs.hits.Load() != 1+emptyRetries {
		t.Errorf("second judging: %s, cached %v, %d requests", v.Status, v.Extra[ExtraCached], fs.hits.Load())
	}
}

// emptyCache serves an empty answer for every key, as a version that
// cached them left behind.
type emptyCache struct{ *mapCache }

func (c emptyCache) Get(string) (string, bool) {
	return `{"content":"","finish_reason":"stop"}`, true
}

func TestIssue11CachedEmptyAnswerIsNotServed(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		writeCompletion(w, req.Model, completion{content: "reason: fine\nresult: NO"})
	})
	cfg := testConfig(fs)
	cfg.Cache = emptyCache{newMapCache()}
	v := mustJudge(t, "docqa", cfg).Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() || v.Values["correct"] != 0 || v.Extra[ExtraCached] == true || fs.hits.Load() != 1 {
		t.Fatalf("verdict %s %q cached=%v after %d requests; want the server's NO", v.Status, v.Error, v.Extra[ExtraCached], fs.hits.Load())
	}
}

func TestIssue11RedactText(t *testing.T) {
	key := hostileKey
	cases := []string{
		key,
		"Bearer " + key,
		strings.ReplaceAll(key, "/", `\u002f`),
		strings.ReplaceAll(key, "/", `\u002F`),
		strings.ReplaceAll(key, "/", `\/`),
		strings.ReplaceAll(key, "/", `\\\/`),
		strings.ReplaceAll(key, "/", `\\u002f`),
		jsonEscapedKey(key),
		strings.ReplaceAll(strings.ReplaceAll(key, "/", "%2F"), "+", "%2b"),
		strings.ReplaceAll(key, "/", "&#47;"),
		strings.ReplaceAll(key, "/", "&#x2F;"),
		"Bearer " + key[:10] + "…",
		`Bearer\u0020` + key[:9],
		"BEARER\n" + strings.ReplaceAll(key[:12], "-", `\u002d`),
	}
	for _, c := range cases {
		in := "before " + c + " after"
		out := redactText(in, key)
		if !strings.Contains(out, redacted) || !strings.HasPrefix(out, "before ") || !strings.HasSuffix(out, " after") {
			t.Errorf("redactText(%q) = %q", in, out)
		}
		assertKeyNowhere(t, c, []byte(out), key)
	}
	for _, keep := range []string{"Bearer tokens are sent in a header", "use a Bearer skeleton", "sk-live is a prefix", "50% & 20%"} {
		if out := redactText(keep, key); out != keep {
			t.Errorf("redactText(%q) = %q, want it unchanged", keep, out)
		}
	}
	if out := redactText("EMPTY and Bearer EMPTY", "EMPTY"); out != "EMPTY and Bearer EMPTY" {
		t.Errorf("a short key was redacted: %q", out)
	}
}
