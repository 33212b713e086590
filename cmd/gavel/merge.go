package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions"
)

func newMergeCmd(e env) *cobra.Command {
	return &cobra.Command{
		Use:   "merge OUT.gavel IN1.gavel IN2.gavel...",
		Short: "Combine several annotators' sessions of one dataset into a new session",
		Long: `Write a new session OUT.gavel that holds everything the input sessions
hold: their items (the same dataset: the same item ids), every judge run and
verdict, and every annotator's whole history of labels, notes and undos —
so that ` + "`gavel stats OUT.gavel`" + ` reports agreement between annotators.

A verdict found in several inputs (the same judge's same answer at the same
place in an item's history, whenever it was made) is kept once, so sessions
that each ran the same judge do not look re-judged; a real re-judge is kept.
An action found in several inputs (sessions copied from one another) is kept
once. Each person's current label is the latest they gave
in any input. The inputs are only read (one from an older Gavel is
upgraded first); OUT.gavel must not exist yet.`,
		Example: `  gavel merge team.gavel ana.gavel bo.gavel
  gavel merge team.gavel ana.gavel bo.gavel && gavel stats team.gavel`,
		Args: func(_ *cobra.Command, a []string) error {
			if len(a) < 3 {
				return usagef("merge needs the new session's file and at least two sessions to merge: gavel merge OUT.gavel IN1.gavel IN2.gavel")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, a []string) error {
			return runMerge(e, a[0], a[1:])
		},
	}
}

func runMerge(e env, out string, inputs []string) error {
	sum, err := sessions.Merge(out, inputs)
	if err != nil {
		return err
	}
	for _, n := range sum.Notes {
		fmt.Fprintln(e.stderr, n)
	}
	actions := count(sum.Actions, "action")
	if len(sum.Annotators) > 0 {
		actions += " by " + strings.Join(sum.Annotators, ", ")
	}
	fmt.Fprintf(e.stdout, "%s: %s merged, %s, %s, %s, %s\n", out, count(len(inputs), "session"), count(sum.Items, "item"),
		count(sum.Runs, "run"), count(sum.Verdicts, "verdict"), actions)
	if sum.DuplicateVerdicts+sum.DuplicateActions > 0 {
		fmt.Fprintf(e.stdout, "  kept once: %s and %s found in more than one input\n", count(sum.DuplicateVerdicts, "verdict"), count(sum.DuplicateActions, "action"))
	}
	return nil
}
