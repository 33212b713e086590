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
		Use:   "judges [NAME | FILE]",
		Short: "List the judges, or show one judge's prompt, inputs and scale",
		Long: `With no argument, list every judge Gavel knows. With a judge's name, or the
path of a custom judge file (YAML or JSON), show its inputs, output format,
scale and prompt.`,
		Example: `  gavel judges
  gavel judges docqa
  gavel judges ./judges/polite.yaml`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			cat := catalog.New()
			if len(a) == 0 {
				return listJudges(e, cat.List())
			}
			entry, err := cat.Find(a[0])
			if err != nil {
				return usageError{err}
			}
			prompt, err := cat.Prompt(a[0])
			if err != nil {
				return err
			}
			return showJudge(e, entry, prompt)
		},
	}
}

func listJudges(e env, entries []catalog.Entry) error {
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSCALE\tMODEL\tDESCRIPTION")
	for _, en := range entries {
		model := "none"
		if en.NeedsModel {
			model = "LLM"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", en.Name, scales(en), model, en.Description)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\n`gavel judges NAME` shows a judge's prompt; a YAML or JSON judge file can be given wherever a name can.")
	return nil
}

func showJudge(e env, en catalog.Entry, prompt string) error {
	out := e.stdout
	fmt.Fprintf(out, "%s — %s\n\n", en.Name, en.Description)
	fmt.Fprintf(out, "source:   %s\n", en.Source)
	fmt.Fprintf(out, "inputs:   %s\n", strings.Join(en.Inputs, ", "))
	fmt.Fprintf(out, "output:   %s\n", en.Output)
	fmt.Fprintf(out, "scale:    %s\n", scales(en))
	if en.PerCriterion {
		fmt.Fprintln(out, "verdicts: one per rubric criterion; the item's score is their mean")
	}
	if !en.NeedsModel {
		fmt.Fprintln(out, "model:    none (offline and deterministic)")
		return nil
	}
	fmt.Fprintln(out, "model:    any, on an OpenAI-compatible server (--model, --base-url)")
	fmt.Fprintf(out, "\nprompt:\n%s\n", strings.TrimRight(prompt, "\n"))
	return nil
}

func scales(en catalog.Entry) string {
	parts := make([]string, len(en.Dimensions))
	for i, d := range en.Dimensions {
		parts[i] = fmt.Sprintf("%s (%s)", d.Name, d.Scale)
	}
	return strings.Join(parts, ", ")
}
