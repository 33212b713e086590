package main

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

func newConfigCmd(e env) *cobra.Command {
	var pathOnly bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the defaults gavel uses and where each comes from",
		Long: `Show the effective defaults of review and run — base URL, model, concurrency,
annotator, judges, API key — and where each comes from. The first found wins:
a flag on the command line, a GAVEL_* variable (GAVEL_BASE_URL, GAVEL_MODEL,
GAVEL_CONCURRENCY, GAVEL_ANNOTATOR, GAVEL_JUDGES with commas between names),
OPENAI_BASE_URL for the base URL, the config file, the built-in default.

The config file is config.yaml in your configuration directory
($XDG_CONFIG_HOME/gavel, else ~/.config/gavel on Linux), or the file
GAVEL_CONFIG names. Its keys: base_url, model, concurrency, annotator,
judges (a list) and api_key_env; for review, guidelines (a Markdown file,
relative to the config file's folder), tags (a list), retest and
blind_share (shares such as 5%); prices, each model's price in dollars
per million tokens (input, output, and batch_input, batch_output for the
Batch API), so that gavel run --dry-run and the review screen's R tell
what a run will cost. It never holds an API key: the key comes
from --api-key or OPENAI_API_KEY, or from the variable api_key_env names
(then from that variable alone). The key's value is never shown.`,
		Example: `  gavel config                 # the effective defaults and their sources
  gavel config --path          # where the config file is read from
  GAVEL_MODEL=qwen2.5-7b gavel config

  # ~/.config/gavel/config.yaml
  base_url: http://localhost:8000/v1
  model: qwen2.5-7b
  concurrency: 16
  judges: [docqa, match]
  guidelines: guidelines.md
  tags: [too strict, format, hallucinated gold]
  retest: 5%
  prices:
    gpt-4o-mini: {input: 0.15, output: 0.60, batch_input: 0.075, batch_output: 0.30}`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pathOnly {
				p := e.configPath()
				if p == "" {
					return errors.New("no configuration directory: set XDG_CONFIG_HOME or HOME, or name a file with GAVEL_CONFIG")
				}
				fmt.Fprintln(e.stdout, safetext.SanitizeLine(p))
				return nil
			}
			return showConfig(e)
		},
	}
	cmd.Flags().BoolVar(&pathOnly, "path", false, "print only the config file's path")
	return cmd
}

// showConfig prints each setting, its effective value and its source; for
// the API key only whether it is set and the variable it comes from.
func showConfig(e env) error {
	s, err := resolveSettings(e, nil)
	if err != nil {
		return err
	}
	file := s.path
	switch {
	case file == "":
		file = "none (no configuration directory; GAVEL_CONFIG names one)"
	case !s.loaded:
		file += " (not found)"
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "config file\t%s\n\n", safetext.SanitizeLine(file))
	fmt.Fprintln(w, "SETTING\tVALUE\tSOURCE")
	row := func(name, value, key string) {
		fmt.Fprintf(w, "%s\t%s\t%s\n", name, safetext.SanitizeLine(value), safetext.SanitizeLine(s.source[key]))
	}
	base := s.baseURL
	if base == "" {
		base = llm.DefaultBaseURL
	}
	row("base_url", base, "base_url")
	model := s.model
	if model == "" {
		model = "(none: LLM judges need --model)"
	}
	row("model", model, "model")
	row("concurrency", strconv.Itoa(s.concurrency), "concurrency")
	annotator := s.annotator
	if annotator == "" {
		annotator = e.defaultAnnotator() + " (your OS user name)"
	}
	row("annotator", annotator, "annotator")
	row("judges", strings.Join(s.judges, ", "), "judges")
	key := "not set"
	if e.getenv(s.keyEnv) != "" {
		key = "set"
	}
	row("api_key", fmt.Sprintf("%s (%s)", key, s.keyEnv), "api_key_env")
	l := s.labelling
	row("guidelines", cmp.Or(l.guidelines, "(none)"), "guidelines")
	row("tags", cmp.Or(strings.ReplaceAll(l.tags, ",", ", "), "(none)"), "tags")
	ratio := func(x float64) string { return strconv.FormatFloat(x*100, 'f', -1, 64) + "%" }
	row("retest", ratio(l.retest), "retest")
	row("blind_share", ratio(l.blindShare), "blind_share")
	row("prices", pricesText(s.prices), "prices")
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\nA flag on the command line wins over all of these; --api-key over the variable.")
	return nil
}
