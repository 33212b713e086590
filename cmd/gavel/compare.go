package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// compareFlags are the flags of `gavel compare`.
type compareFlags struct {
	judges    []string
	format    string
	dimension string
	items     bool
	seed      uint64
	resamples int
	split     string
	// includeTrunc scores truncated verdicts like ok ones.
	includeTrunc bool
}

// compareSchemaVersion is the version of `gavel compare --format json`.
const compareSchemaVersion = 1

func newCompareCmd(e env) *cobra.Command {
	var o compareFlags
	cmd := &cobra.Command{
		Use:   "compare SESSION --judge A --judge B",
		Short: "Compare two judges of a session on the same human-labelled items: which agrees more, and which items each fixed and broke",
		Long: `Compare two judges (runs) of one session on the items people labelled.

For each judge: n, percent agreement with the humans (Wilson 95%), Cohen's
kappa (bootstrap 95%), and on binary dimensions the false-pass and
false-fail rates — the figures gavel stats gives, with the same seed.

Then the paired comparison, on every item with a human label (the single
label, or the annotators' majority; tied items are left out): a judge is
right on an item when its value equals the humans' label (on a binary
dimension its YES or NO; on ordinal, nominal and pairwise scales the exact
value, so a near miss is wrong), and a judge with no ok verdict on the item
(not judged, parse or API error, or truncated: the server cut the prompt to
its context; --include-truncated scores those like ok ones) is wrong there,
so both are scored on the same items. The 2×2 table (both right, only A,
only B, both wrong), the difference in accuracy B − A with Newcombe's
(1998, method 10) interval, McNemar's exact two-sided p, and the items B
fixed (A wrong, B right) and broke (A right, B wrong). Below 30 items the figures are not yet stable.

--judge takes the names gavel stats --judge takes: the label the report
shows ("docqa · gpt-4o", "imported · GPT-4"), or, ignoring case, the run's
variant NAME@K (the K-th run of that judge, oldest first: docqa@2 is the
first variant of docqa's prompt, model or parameters), the part after
" · " or the judge's name. The first --judge is A, the baseline.
With several shared dimensions each is compared; --dimension keeps one.

When the session has a calibration / evaluation split (gavel split), the
comparison is on its evaluation items, which no few-shot example or tuning
has seen, and says so; --split calibration or --split all chooses
otherwise. Without a split every item counts.`,
		Example: `  gavel compare tq.gavel --judge EM --judge GPT-4
  gavel compare evals.gavel --judge "docqa · gpt-4o-mini" --judge "docqa · gpt-4o" --items
  gavel compare evals.gavel --judge docqa@1 --judge docqa@2 --format markdown > compare.md
  gavel compare evals.gavel --judge A --judge B --format json | jq '.dimensions[0].paired.fixed'`,
		Args: sessionArgs(e),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runCompare(e, sessionArg(e, a), o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.judges, "judge", nil, "a judge to compare, twice: A (the baseline) then B; its label as gavel stats shows it, or, ignoring case, its variant (\"docqa@2\"), the `NAME` after \" · \" or the judge's name")
	f.StringVar(&o.format, "format", "text", "the `FORMAT`: text, json or markdown")
	f.StringVar(&o.dimension, "dimension", "", "compare on this `DIMENSION` only (default: every dimension both judges rate)")
	f.BoolVar(&o.items, "items", false, "list every item fixed and broken (text and markdown show the first few)")
	f.Uint64Var(&o.seed, "seed", statsSeed, "the `SEED` of the kappa's bootstrap interval (gavel stats' default)")
	f.IntVar(&o.resamples, "resamples", stats.DefaultResamples, "`N` bootstrap resamples for the kappa's interval; 0 turns the bootstrap off")
	f.BoolVar(&o.includeTrunc, "include-truncated", false, "score truncated verdicts (answers to a prompt the server cut to its context) like ok ones; by default a judge is wrong there")
	f.StringVar(&o.split, "split", "", "the `PART` of the session's split (gavel split) to compare on: evaluation, calibration or all (default: evaluation when the session has a split, all otherwise)")
	// Completions as gavel stats has them: a session, then its judges.
	cmd.ValidArgsFunction = first(completeExts(sessionExts))
	_ = cmd.RegisterFlagCompletionFunc("judge", completeRunLabels(e))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "markdown"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("dimension", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("split", cobra.FixedCompletions([]string{splitEvaluation, splitCalibration, splitAll}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// compareOutput is `gavel compare --format json`.
type compareOutput struct {
	SchemaVersion int    `json:"schema_version"`
	Seed          uint64 `json:"seed"`
	Resamples     int    `json:"resamples"`
	// Split says which items were compared (gavel compare --split).
	Split stats.SplitUsed `json:"split"`
	stats.Comparison
}

func runCompare(e env, path string, o compareFlags) error {
	o.format = strings.ToLower(strings.TrimSpace(o.format))
	switch o.format {
	case "text", "json", "markdown", "md":
	default:
		return usagef("unknown --format %q: use text, json or markdown", o.format)
	}
	if len(o.judges) != 2 {
		return usagef("gavel compare needs two judges, --judge A --judge B (got %d); gavel stats %s lists the session's judges", len(o.judges), shellArg(path))
	}
	if o.resamples < 0 || o.resamples > maxResamples {
		return usagef("--resamples %d is out of range: use 0 (no bootstrap) to %d", o.resamples, maxResamples)
	}
	s, in, used, err := readSplitInput(e, path, o.split)
	if err != nil {
		return err
	}
	defer s.Close()
	labels := make([]string, 0, len(in.Judges))
	for _, j := range in.Judges {
		labels = append(labels, j.Key)
	}
	if len(labels) < 2 {
		have := "no judge"
		if len(labels) == 1 {
			have = fmt.Sprintf("one judge (%q)", labels[0])
		}
		if pg.IsURL(path) {
			return usagef("%s has %s: gavel compare needs two — run another judge on it (gavel run %s --judge NAME)", shownPath(path), have, shellArg(path))
		}
		return usagef("%s has %s: gavel compare needs two — run another judge on its dataset (gavel run DATASET --judge NAME --session %s) or import a file with two verdict columns", path, have, shellArg(path))
	}
	runs, err := s.Runs()
	if err != nil {
		return err
	}
	var keys [2]string
	for i, want := range o.judges {
		if keys[i], err = matchJudge(runs, labels, want, shownPath(path)); err != nil {
			return err
		}
	}
	if keys[0] == keys[1] {
		return usagef("both --judge name %q: name two different judges; the session's judges are %s", keys[0], strings.Join(quoteAll(labels), ", "))
	}
	opts := stats.Options{Seed: o.seed, Resamples: o.resamples, IncludeTruncated: o.includeTrunc}
	if o.resamples == 0 {
		opts.Resamples = -1 // stats.Options reads 0 as the default
	}
	cmp, err := stats.Compare(in, keys[0], keys[1], strings.TrimSpace(o.dimension), opts)
	if err != nil {
		return usageError{err}
	}
	labelled := 0
	for _, d := range cmp.Dimensions {
		labelled += d.Paired.N
	}
	if labelled == 0 {
		if used.Part != splitAll {
			return fmt.Errorf("no item of the %s split of %s has a human label on what %q and %q rate: label more items (gavel review), or compare on --split all", used.Part, path, keys[0], keys[1])
		}
		return fmt.Errorf("no item of %s has a human label on what %q and %q rate: label some (gavel review), or import a file with a human column, then compare again", path, keys[0], keys[1])
	}
	var out []byte
	switch o.format {
	case "json":
		b, err := json.MarshalIndent(compareOutput{SchemaVersion: compareSchemaVersion, Seed: o.seed, Resamples: o.resamples, Split: used, Comparison: cmp}, "", "  ")
		if err != nil {
			return fmt.Errorf("cannot write the comparison as JSON (a bug in this build): %w", err)
		}
		out = append(b, '\n')
	case "markdown", "md":
		out = []byte(render.CompareMarkdown(cmp, o.items))
		if line := splitLine(used); line != "" {
			out = append([]byte("_"+line+"_\n\n"), out...)
		}
	default:
		out = []byte(render.CompareText(cmp, textWidth(e.stdout), o.items))
		if line := splitLine(used); line != "" {
			out = append([]byte(line+"\n\n"), out...)
		}
	}
	if _, err := e.stdout.Write(out); err != nil {
		return fmt.Errorf("cannot write the comparison: %w", err)
	}
	return nil
}
