package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge/catalog"
)

func newJudgesCmd(e env) *cobra.Command {
	return &cobra.Command{
		Use:   "judges [NAME]",
		Short: "List the judges, or show one judge's prompt, inputs and scale",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			entries := catalog.Builtins()
			if len(a) == 0 {
				return listJudges(e, entries)
			}
			entry, err := catalog.Find(a[0], entries)
			if err != nil {
				return usageError{err}
			}
			return showJudge(e, entry)
		},
	}
}

func listJudges(e env, entries []catalog.Entry) error {
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSCALE\tMODEL\tDESCRIPTION")
	for _, en := range entries {
		model := "offline"
		if en.NeedsModel {
			model = "LLM"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", en.Name, scales(en), model, en.Description)
	}
	return w.Flush()
}

func showJudge(e env, en catalog.Entry) error {
	out := e.stdout
	fmt.Fprintf(out, "%s — %s\n\n", en.Name, en.Description)
	fmt.Fprintf(out, "source:     %s\n", en.Source)
	fmt.Fprintf(out, "inputs:     %s\n", strings.Join(en.Inputs, ", "))
	fmt.Fprintf(out, "scale:      %s\n", scales(en))
	if en.PerCriterion {
		fmt.Fprintln(out, "verdicts:   one per rubric criterion; the item's score is their mean")
	}
	if !en.NeedsModel {
		fmt.Fprintln(out, "model:      none (offline, deterministic)")
		return nil
	}
	fmt.Fprintf(out, "\nprompt:\n%s\n", en.Prompt)
	return nil
}

func scales(en catalog.Entry) string {
	parts := make([]string, len(en.Dimensions))
	for i, d := range en.Dimensions {
		parts[i] = fmt.Sprintf("%s (%s)", d.Name, d.Scale)
	}
	return strings.Join(parts, ", ")
}
