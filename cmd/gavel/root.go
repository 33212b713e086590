package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/spf13/cobra"
)

// execute runs gavel with the given arguments and returns the exit code.
func execute(ctx context.Context, e env, argv []string) int {
	root := newRootCmd(e)
	root.SetArgs(argv)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && !errors.Is(err, syscall.EPIPE) { // a reader gone says nothing (pipe_unix.go)
		fmt.Fprintf(e.stderr, "gavel: %s\n", redactURLs(err.Error()))
		if exitCode(err) == exitUsage {
			fmt.Fprintf(e.stderr, "Run `%s --help` for usage.\n", cmd.CommandPath())
		}
	}
	return exitCode(err)
}

func newRootCmd(e env) *cobra.Command {
	var o reviewFlags
	root := &cobra.Command{
		Use:   "gavel",
		Short: "Audit an LLM judge by hand",
		Long: `Gavel audits LLM-as-a-judge evaluators by hand. It loads a dataset of model
outputs, runs a judge over them in the background, and shows each item's
question, gold answer, prediction and verdict side by side, so that you can
accept the verdict or override it with one key. Every decision is saved in a
SQLite session file, and Gavel reports how far the judge can be trusted.

With no command, gavel opens its built-in demo: document QA, BIG-Bench-Hard,
rubric and open-ended items judged by the offline "match" judge, its session
kept in your state directory.`,
		Example: `  gavel                                   # the demo
  gavel --judge docqa --base-url http://localhost:8080/v1 --model m   # the demo with an LLM judge
  gavel review evals.jsonl                # review a file with the match judge
  gavel review evals.jsonl --map gold=target,prediction=output
  gavel run evals.jsonl --judge docqa --model gpt-4o-mini   # judge without a screen
  gavel stats evals.gavel                 # how far the judge agrees with people
  gavel judges                            # the judges Gavel knows`,
		Args:          args(cobra.NoArgs),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The server and model may come from the environment or the
			// config file, as for gavel review; the judges only from
			// --judge, so that a configured judge list does not turn the
			// offline demo into one that needs a server.
			var configured []string
			if err := applyConfig(e, cmd.Flags(), &configured, &o.runner); err != nil {
				return err
			}
			if err := applyLabellingConfig(e, cmd.Flags(), &o.label); err != nil {
				return err
			}
			if err := o.checkAdjudicate(cmd.Flags().Changed("plan")); err != nil {
				return err
			}
			return runDemo(cmd.Context(), e, o)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.Flags().StringVar(&o.annotator, "annotator", "", "your `NAME` in the session (default: your OS user name)")
	root.Flags().StringVar(&o.session, "session", "", "the demo's session `FILE` (default: in your state directory)")
	root.Flags().BoolVar(&o.blind, "blind", false, "hide each verdict until you have labelled the item (b toggles)")
	root.Flags().StringArrayVar(&o.judges, "judge", nil, "judge the demo with this `NAME` or judge file instead of the offline match judge (an LLM judge needs --model and a server: try E on it to edit its prompt); repeat for several")
	o.label.add(root)
	o.plan.add(root.Flags())
	addAdjudicate(root.Flags(), &o.adjudicate)
	o.runner.add(root.Flags())
	root.AddCommand(newReviewCmd(e), newRunCmd(e), newJudgesCmd(e), newStatsCmd(e), newCompareCmd(e), newSplitCmd(e), newTuneCmd(e),
		newImportCmd(e), newExportCmd(e), newMergeCmd(e), newSampleCmd(e), newLabelCmd(e),
		newCompletionCmd(e), newVersionCmd(e))
	root.AddCommand(newConfigCmd(e))
	root.AddCommand(newAssignCmd(e), newCopyCmd(e))
	root.AddCommand(newReportCmd(e))
	root.AddCommand(newModelsCmd(e))
	root.AddCommand(newPlanCmd(e))
	root.Version = version()
	root.Flags().BoolP("version", "v", false, "print gavel's version and the commit it was built from")
	root.SetVersionTemplate(versionTemplate)
	root.SuggestionsMinimumDistance = 2
	addCompletions(e, root)
	return root
}
