package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

func newModelsCmd(e env) *cobra.Command {
	var r runnerFlags
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the models a server serves (GET /v1/models), and the context it holds",
		Long: `List the models the OpenAI-compatible server at --base-url serves, as --model
must name them (GET /v1/models), and what the server tells of its context:
llama.cpp's per-request context (GET /props), vLLM's max_model_len. Ollama
does not tell the num_ctx it runs a model with.`,
		Example: `  gavel models --base-url http://localhost:8080/v1     # llama.cpp's llama-server
  gavel models --base-url http://localhost:8000/v1     # vLLM
  gavel models --base-url http://localhost:11434/v1    # Ollama`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var judges []string
			if err := applyConfig(e, cmd.Flags(), &judges, &r); err != nil {
				return err
			}
			return listModels(cmd.Context(), e, r.config(e.getenv))
		},
	}
	f := cmd.Flags()
	f.StringVar(&r.baseURL, "base-url", "", "the OpenAI-compatible server's `URL`, ending in /v1 (default: $GAVEL_BASE_URL, $OPENAI_BASE_URL, the config file's, else OpenAI)")
	f.StringVar(&r.apiKey, "api-key", "", "the server's API `KEY` (default: $OPENAI_API_KEY)")
	f.StringVar(&r.model, "model", "", "the `MODEL` you mean to use: said whether the server serves it, or the nearest name")
	return cmd
}

func listModels(ctx context.Context, e env, cfg llm.Config) error {
	info, err := llm.ListModels(ctx, cfg)
	if err != nil {
		fix := "check --base-url (it must end in /v1, e.g. http://localhost:8000/v1) and that the server is running"
		base := strings.TrimRight(cfg.BaseURL, "/")
		switch msg := err.Error(); {
		case strings.Contains(msg, "HTTP 401"), strings.Contains(msg, "HTTP 403"):
			fix = "check --api-key or OPENAI_API_KEY"
		case strings.Contains(msg, "HTTP 503"):
			fix = "the server is up and not ready (loading its model?): try again in a moment"
		case base != "" && !strings.HasSuffix(base, "/v1"):
			alt := cfg
			alt.BaseURL = base + "/v1"
			if _, err2 := llm.ListModels(ctx, alt); err2 == nil {
				fix = fmt.Sprintf("the server answers at %s/v1: add /v1 to --base-url", info.URL)
			}
		}
		return fmt.Errorf("cannot list the models at %s: %v: %s", info.URL, err, fix)
	}
	// Every text the server or the user gave goes through the sanitiser:
	// a model id may hold escape sequences.
	safe := safetext.SanitizeLine
	w := e.stdout
	fmt.Fprintf(w, "%s at %s", count(len(info.Models), "model"), safe(info.URL))
	if info.Kind != "" {
		fmt.Fprintf(w, " (%s)", safe(info.Kind))
	}
	fmt.Fprintln(w, ":")
	for _, m := range info.Models {
		fmt.Fprintf(w, "  %s", safe(m.ID))
		if m.Context > 0 {
			fmt.Fprintf(w, "  (context %d tokens, max_model_len)", m.Context)
		}
		fmt.Fprintln(w)
	}
	switch {
	case info.Kind == "llama.cpp" && info.Context > 0:
		fmt.Fprintf(w, "Context: %d tokens per request (%s); llama-server --ctx-size (-c) sets it (with --parallel, a slot may get a share of it: /props says what one request gets).\n", info.Context, info.ContextFrom)
		fmt.Fprintln(w, "llama-server serving one model answers whatever --model names.")
	case info.Kind == "Ollama":
		fmt.Fprintln(w, "Ollama does not tell its context (num_ctx; its default depends on the machine): set it with PARAMETER num_ctx in a Modelfile or OLLAMA_CONTEXT_LENGTH, or prompts over it are cut without an error.")
	}
	if cfg.Model != "" && len(info.Models) > 0 {
		names := make([]string, len(info.Models))
		for i, m := range info.Models {
			names[i] = m.ID
		}
		switch near := llm.NearestModel(cfg.Model, names); {
		case near == cfg.Model:
			fmt.Fprintf(w, "--model %s is served.\n", safe(cfg.Model))
		case near != "":
			fmt.Fprintf(w, "--model %s is not listed; the nearest name is %s.\n", safe(cfg.Model), safe(near))
		default:
			fmt.Fprintf(w, "--model %s is not listed.\n", safe(cfg.Model))
		}
	}
	return nil
}

// serverNote asks the server what it is and how long a context it holds
// before a run (llm.Client.Probe), and says so on stderr when it told a
// context: an item whose prompt cannot fit is then not sent. Nothing is
// said when the server does not answer: the run's first request says why.
func serverNote(ctx context.Context, w io.Writer, client *llm.Client, wait time.Duration) {
	if client == nil {
		return
	}
	info, err := client.Probe(ctx)
	// A server loading its model (503) tells nothing yet: wait for it, as
	// the run would, so that its context is known before the first item.
	// A 503 that does not say it is loading (a proxy's, or a server that
	// answers 503 on GET /v1/models alone) is asked a couple of times,
	// then left to the run's own pause.
	start, pause := time.Now(), time.Second
	for tries := 1; err != nil && strings.Contains(err.Error(), "HTTP 503") && time.Since(start) < wait; tries++ {
		if tries >= notReadyTries && !strings.Contains(strings.ToLower(err.Error()), "loading") {
			break
		}
		if pause == time.Second {
			fmt.Fprintf(w, "The server at %s is not ready (loading its model?): waiting for it, up to %s (--wait).\n", info.URL, wait)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 10*time.Second)
		info, err = client.Probe(ctx)
	}
	if text := serverText(info, "named at the end"); text != "" {
		fmt.Fprintln(w, text)
	}
}

// notReadyTries is how many times serverNote asks a server answering 503
// without saying it is loading.
const notReadyTries = 3

// serverText says what the server told of its context, "" when nothing;
// named says where the items that cannot fit are named.
func serverText(info llm.ServerInfo, named string) string {
	switch {
	case info.Context > 0:
		return fmt.Sprintf("The server at %s is %s, with a context of %d tokens per request (%s): an item whose prompt cannot fit is not sent, and is %s.",
			info.URL, info.Kind, info.Context, info.ContextFrom, named)
	case info.Kind == "Ollama":
		return fmt.Sprintf("The server at %s is Ollama, which does not tell its context (num_ctx, whose default depends on the machine): a prompt over it may be cut without an error.", info.URL)
	}
	return ""
}

// serverCheck is the review screen's twin of serverNote: a check run off
// the screen's goroutine once it is drawn (tui.Options.Checks), so that
// opening the screen never waits for the server. Items judged before it
// returns are sent as they are, and a server that refuses one as too long
// fails that item alone; a server that does not answer is left to the
// run's own pause and advice.
func serverCheck(ctx context.Context, client *llm.Client) func() (string, error) {
	return func() (string, error) {
		if client == nil {
			return "", nil
		}
		info, err := client.Probe(ctx)
		if err != nil {
			return "", nil
		}
		return serverText(info, "failed with its token counts (the filter \"parse or API errors\" lists them)"), nil
	}
}

// tooLongNote names the run's items whose prompt is over the server's
// context (found before sending, or told by the server), with their token
// counts, and how to give them room: the lines to write, each apart; none
// when there are none.
func tooLongNote(st *sessions.Store, runID int64) []string {
	vs, err := st.ReviewVerdicts(runID)
	if err != nil {
		return nil
	}
	var lines []string
	fix, most := "", -1
	for _, v := range vs {
		if v.Status != judge.StatusAPIError || !strings.HasPrefix(v.Error, llm.TooLongPrefix) {
			continue
		}
		counts, rest, _ := strings.Cut(strings.TrimPrefix(v.Error, llm.TooLongPrefix), "; ")
		counts = strings.TrimPrefix(counts, ": ")
		if counts == "" {
			counts = "over the context"
		}
		lines = append(lines, fmt.Sprintf("  %s: %s", v.ItemID, counts))
		// The fix of the longest prompt holds them all.
		if n := firstNumber(counts); n > most {
			most = n
			rest = strings.TrimPrefix(rest, "not sent: ")
			if i := strings.Index(rest, " (HTTP "); i >= 0 {
				rest = rest[:i]
			}
			fix = rest
		}
	}
	if len(lines) == 0 {
		return nil
	}
	head := "1 item is too long for the server's context, not judged (the next run tries it again):"
	if len(lines) > 1 {
		head = fmt.Sprintf("%d items are too long for the server's context, not judged (the next run tries them again):", len(lines))
	}
	return append(append([]string{head}, lines...), "To judge them: "+fix+".")
}

// firstNumber is the first whole number in s, 0 when there is none.
func firstNumber(s string) int {
	n, seen := 0, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			n, seen = n*10+int(r-'0'), true
		case seen:
			return n
		}
	}
	return n
}
