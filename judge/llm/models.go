package llm

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// notFound sorts a 404: a model the server does not have (the message then
// lists the server's models and the nearest name), or a route it does not
// have (a base URL without /v1 gets told to add it). Nothing is refused
// before sending: llama.cpp serving one model answers whatever the name.
func (c *Client) notFound(ctx context.Context, e serverError, x *exchange, detail string) *failure {
	model := c.modelOf(x)
	base := strings.TrimRight(c.cfg.BaseURL, "/")
	fatal := func(problem, fix string) *failure {
		return &failure{fatal: &FatalError{StatusCode: http.StatusNotFound, Problem: problem + " (" + detail + ")", Fix: fix}}
	}
	if !e.aboutModel() {
		if !hasV1(base) {
			fix := "add /v1 to --base-url (it must end in /v1, e.g. http://localhost:8000/v1)"
			if c.answersAt(ctx, base+"/v1") {
				fix = fmt.Sprintf("add /v1 to --base-url: the server answers at %s/v1 (the base URL must end in /v1)", displayURL(base))
			}
			return fatal(fmt.Sprintf("the server has no chat endpoint at %s/chat/completions", displayURL(base)), fix)
		}
		return fatal(fmt.Sprintf("the server has no model %q or no chat endpoint at %s/chat/completions", model, displayURL(base)),
			c.checkModel(x, "check --model and --base-url (it must end in /v1, e.g. http://localhost:8000/v1)"))
	}
	problem := fmt.Sprintf("the server has no model %q", model)
	fix := c.checkModel(x, "check --model and --base-url (it must end in /v1, e.g. http://localhost:8000/v1)")
	if names := c.modelNames(ctx); len(names) > 0 {
		flag := "--model"
		if model != c.cfg.Model {
			flag = "the judge file's model:"
		}
		fix = fmt.Sprintf("the server serves %s (gavel models lists them)", nameList(names, 10))
		if near := nearestModel(model, names); near != "" {
			fix = fmt.Sprintf("use %s %s: %s", flag, near, fix)
		} else {
			fix = fmt.Sprintf("name one of them with %s: %s", flag, fix)
		}
		if e.kind == serverOllama || c.serverKind() == serverOllama {
			fix += fmt.Sprintf("; or fetch it: ollama pull %s", model)
		}
	} else if e.kind == serverOllama {
		fix = fmt.Sprintf("fetch it with `ollama pull %s`, or %s (ollama list shows what is there)", model, fix)
	}
	return fatal(problem, fix)
}

// modelNames lists the server's models once per client (GET /v1/models).
func (c *Client) modelNames(ctx context.Context) []string {
	s := &c.server
	s.listOnce.Do(func() {
		hc := &http.Client{Transport: c.cfg.Transport, Timeout: probeTimeout}
		s.list, _, s.listErr = getModels(ctx, hc, c.cfg)
	})
	var names []string
	for _, m := range s.list {
		names = append(names, m.ID)
	}
	return names
}

// answersAt reports whether GET {base}/models answers a model list; asked
// once per client.
func (c *Client) answersAt(ctx context.Context, base string) bool {
	s := &c.server
	s.v1Once.Do(func() {
		cfg := c.cfg
		cfg.BaseURL = base
		hc := &http.Client{Transport: c.cfg.Transport, Timeout: probeTimeout}
		_, _, err := getModels(ctx, hc, cfg)
		s.v1OK = err == nil
	})
	return s.v1OK
}

// quoteList writes at most n names, then how many more.
func nameList(names []string, n int) string {
	shown := names
	if len(shown) > n {
		shown = shown[:n]
	}
	s := strings.Join(shown, ", ")
	if len(names) > n {
		s += fmt.Sprintf(" and %d more", len(names)-n)
	}
	return s
}

// ollamaName is a model name as Ollama resolves it: no tag means :latest,
// and names are not case-sensitive.
func ollamaName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(s, '/'); !strings.Contains(s[i+1:], ":") {
		s += ":latest"
	}
	return s
}

// NearestModel is the served name nearest to asked, as the advice after a
// 404 gives it (see nearestModel); "" when none is near.
func NearestModel(asked string, names []string) string { return nearestModel(asked, names) }

// nearestModel is the served name closest to the one asked for: the same
// name up to case or Ollama's :latest, else the one fewest edits away
// when that is at most a third of the name (a typo), else one that
// contains it or that it contains (llama3 for llama3:8b); "" when none is
// near.
func nearestModel(asked string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	a := ollamaName(asked)
	for _, n := range names {
		if ollamaName(n) == a {
			return n
		}
	}
	best, bestD := "", -1
	for _, n := range names {
		d := editDistance(strings.ToLower(asked), strings.ToLower(n))
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD*3 <= len(asked) {
		return best
	}
	la := strings.ToLower(asked)
	for _, n := range names {
		ln := strings.ToLower(n)
		// A path's last part: vLLM serves Qwen/Qwen2.5-7B-Instruct.
		if i := strings.LastIndexByte(ln, '/'); i >= 0 && ln[i+1:] == la {
			return n
		}
	}
	for _, n := range names {
		ln := strings.ToLower(n)
		if len(la) >= 3 && (strings.Contains(ln, la) || strings.Contains(la, strings.TrimSuffix(ln, ":latest"))) {
			return n
		}
	}
	return ""
}

// hasV1 reports whether a base URL's path ends in /v1.
func hasV1(base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1")
}
