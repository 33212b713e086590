package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/catalog"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

func newJudgesCmd(e env) *cobra.Command {
	var data, save string
	var force bool
	var df datasetFlags
	cmd := &cobra.Command{
		Use:   "judges [NAME | FILE] [--dataset DATA | --save PATH [--force]]",
		Short: "List the judges, or show one judge's prompt, inputs and scale",
		Long: `With no argument, list every judge Gavel knows. With a judge's name, or the
path of a custom judge file (YAML or JSON), show its inputs, output format,
scale and prompt.

With --save PATH, write the judge as a judge file instead (- is standard
output): a built-in's file names its parser (output.parser) and keeps its
prompt in instructions, system and user, so that an edited copy runs beside
the built-in as a variant of it; a custom judge's file is copied. An
existing PATH is kept unless --force.

A judge file's placeholders other than {id}, {question}, {gold},
{prediction}, {response_a}, {response_b}, {criterion} and {rubric} name
fields of the dataset's rows.
With --dataset, each is checked against the dataset as ` + "`gavel run`" + ` and
` + "`gavel review`" + ` check it before any request: a field no row has is refused
(exit 2), a field some rows lack is a warning.`,
		Example: `  gavel judges
  gavel judges docqa
  gavel judges docqa --save judges/docqa.yaml
  gavel judges pairwise
  gavel judges ./judges/polite.yaml
  gavel judges ./judges/polite.yaml --dataset evals.jsonl`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			cat := catalog.New()
			if len(a) == 0 {
				if data != "" {
					return usagef("--dataset checks a judge's fields against a dataset: name the judge or judge file too, e.g. gavel judges ./judges/polite.yaml --dataset %s", data)
				}
				if save != "" {
					return usagef("--save writes one judge's file: name the judge too, e.g. gavel judges docqa --save %s", save)
				}
				if force {
					return usagef("--force goes with --save PATH: it lets the file replace an existing PATH")
				}
				return listJudges(e, cat.List())
			}
			if save != "" {
				if data != "" {
					return usagef("--save writes the judge's file and --dataset checks its fields: run them one at a time")
				}
				return saveJudge(e, cat, a[0], save, force)
			}
			if force {
				return usagef("--force goes with --save PATH: it lets the file replace an existing PATH")
			}
			entry, err := cat.Find(a[0])
			if err != nil {
				return usageError{err}
			}
			prompt, err := cat.Prompt(a[0])
			if err != nil {
				return err
			}
			if err := showJudge(e, entry, prompt); err != nil {
				return err
			}
			if data == "" {
				showRowFields(e, entry)
				return nil
			}
			ds, err := df.load(data)
			if err != nil {
				return err
			}
			warnings, err := checkJudgeFields([]catalog.Entry{entry}, ds)
			for _, w := range warnings {
				fmt.Fprintln(e.stderr, w)
			}
			if err != nil {
				return err
			}
			if fields := llm.RowPlaceholders(entry.Inputs); len(fields) > 0 && len(warnings) == 0 {
				fmt.Fprintf(e.stdout, "\nfields:   every item of %s has %s\n", ds.Name, braced(fields))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "dataset", "", "check the judge's template fields against the dataset `DATA`, as gavel run does before any request")
	f.StringVar(&save, "save", "", "write the judge as a judge file to `PATH` (- for standard output) instead of showing it")
	f.BoolVar(&force, "force", false, "with --save, replace PATH when it exists")
	df.add(f)
	return cmd
}

// saveJudge writes a judge's judge file to path ("-": standard output),
// refusing to replace an existing file unless force.
func saveJudge(e env, cat *catalog.Catalog, name, path string, force bool) error {
	text, err := cat.Definition(name)
	if err != nil {
		return usageError{err}
	}
	if path == "-" {
		_, err := io.WriteString(e.stdout, text)
		return err
	}
	// The file must load where it goes: a .json path is read as JSON.
	if _, err := llm.ParseCustom([]byte(text), path); err != nil {
		if _, errHere := llm.ParseCustom([]byte(text), "judge.yaml"); errHere == nil && strings.EqualFold(filepath.Ext(path), ".json") {
			return usagef("%s: a .json judge file is read as JSON, and %s's file is YAML: save it with a .yaml extension", path, name)
		}
		return fmt.Errorf("%s: the judge file would not load there: %w", path, err)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usagef("%s exists: choose another path, or add --force to replace it", path)
	}
	if err != nil {
		return fmt.Errorf("cannot write the judge file: %w", err)
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return fmt.Errorf("cannot write the judge file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write the judge file %s: %w", path, err)
	}
	fmt.Fprintf(e.stderr, "Saved %s to %s: edit it, then run it with --judge %s\n", name, path, path)
	return nil
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
	fmt.Fprintln(e.stdout, "\n`gavel judges NAME` shows a judge's prompt, `gavel judges NAME --save FILE` writes it as a judge file to edit; a YAML or JSON judge file can be given wherever a name can.")
	return nil
}

func showJudge(e env, en catalog.Entry, prompt string) error {
	out := e.stdout
	fmt.Fprintf(out, "%s — %s\n\n", en.Name, en.Description)
	fmt.Fprintf(out, "source:   %s\n", en.Source)
	inputs := strings.Join(en.Inputs, ", ")
	if len(en.Optional) > 0 {
		inputs += "; and " + strings.Join(en.Optional, ", ") + " when the item has it"
	}
	fmt.Fprintf(out, "inputs:   %s\n", inputs)
	fmt.Fprintf(out, "output:   %s\n", en.Output)
	for i, d := range en.Dimensions {
		label := "scale:    "
		if i > 0 {
			label = "          "
		}
		fmt.Fprintf(out, "%s%s: %s\n", label, d.Name, describeScale(d.Scale))
	}
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

// describeScale names a scale's values and then its kind, for a reader
// who has not learned the spellings: "A / B / tie (pairwise)", "1–10
// (ordinal:1-10)", "1 poor, 2 fair, 3 good, 4 excellent (ordinal)".
func describeScale(s judge.Scale) string {
	if labels := s.Labels(); len(labels) > 0 {
		parts := make([]string, len(labels))
		for i, l := range labels {
			parts[i] = s.Names()[i] + " " + l
		}
		return strings.Join(parts, ", ") + " (ordinal)"
	}
	switch s.Kind() {
	case judge.KindNominal:
		return s.Describe() + " (nominal)"
	case judge.KindPairwise:
		if !s.AllowsTie() {
			return s.Describe() + " (pairwise, no tie)"
		}
		return s.Describe() + " (pairwise)"
	}
	return s.Describe() + " (" + string(s) + ")"
}

func scales(en catalog.Entry) string {
	parts := make([]string, len(en.Dimensions))
	for i, d := range en.Dimensions {
		parts[i] = fmt.Sprintf("%s (%s)", d.Name, d.Scale)
	}
	return strings.Join(parts, ", ")
}

// showRowFields tells, without a dataset, which of a judge's placeholders
// are row fields that every dataset it runs on must have, and suggests the
// standard field a mistyped one most likely meant.
func showRowFields(e env, en catalog.Entry) {
	fields := llm.RowPlaceholders(en.Inputs)
	if len(fields) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "\nfields:   %s are not standard fields (%s): each row of the dataset must have them; --dataset DATA checks a dataset\n", braced(fields), braced(llm.StandardFields()))
	for _, f := range fields {
		if s := llm.SuggestField(strings.TrimPrefix(f, "fields."), llm.StandardFields()); s != "" {
			fmt.Fprintf(e.stderr, "%s: {%s} is not a standard field: did you mean {%s}? As written, every row needs a field called %q.\n", judgeWhere(en), f, s, f)
		}
	}
}

// maxFieldsShown bounds the dataset fields a message lists.
const maxFieldsShown = 20

// checkJudgeFields checks, before any request, every field the judges'
// templates name against the dataset, as rendering would look it up. A
// field that no item has is refused (a usage error naming the field, the
// judge file and the dataset's fields, with a close name when there is
// one): every one of its items would end api_error. A field some items
// lack, and a standard field that is empty on every item, are warnings,
// returned one line each.
func checkJudgeFields(entries []catalog.Entry, ds *dataset.Dataset) (warnings []string, err error) {
	var rowFields, candidates []string
	for _, en := range entries {
		if w := pairWarning(en, ds); w != "" {
			warnings = append(warnings, w)
		}
		if en.Source == "built-in" {
			continue
		}
		for _, std := range []struct{ field, role, what string }{
			{"question", "question", "a question"},
			{"gold", "gold", "a gold answer"},
		} {
			if slices.Contains(en.Inputs, std.field) && !anyItemHas(ds, std.field) {
				warnings = append(warnings, fmt.Sprintf("%s: the template uses {%s}, but no item of %s has %s (mapped %s): it is empty in every prompt; --map %s=FIELD names the field that holds it", judgeWhere(en), std.field, ds.Name, std.what, dataset.FormatMap(ds.Mapping), std.role))
			}
		}
		checks := llm.CheckFields(en.Inputs, ds.Items)
		if len(checks) == 0 {
			continue
		}
		if rowFields == nil {
			rowFields = llm.RowFields(ds.Items, false)
			candidates = append(llm.RowFields(ds.Items, true), llm.StandardFields()...)
		}
		var refused []string
		for _, c := range checks {
			if c.Missing < c.Items {
				warnings = append(warnings, fmt.Sprintf("%s: {%s} is missing on %d of %d items of %s (the first: %s): those items will end api_error, the others are judged", judgeWhere(en), c.Field, c.Missing, c.Items, ds.Name, c.FirstMissing))
				continue
			}
			msg := "{" + c.Field + "}"
			if s := llm.SuggestField(strings.TrimPrefix(c.Field, "fields."), candidates); s != "" {
				msg += fmt.Sprintf(" (did you mean {%s}?)", s)
			}
			refused = append(refused, msg)
		}
		if len(refused) > 0 {
			return warnings, usagef("%s: the template uses %s, which no row of %s has (its fields: %s); fix the template or the dataset — nothing was sent to the model", judgeWhere(en), strings.Join(refused, " and "), ds.Name, listFields(rowFields))
		}
	}
	return warnings, nil
}

// checkFields is checkJudgeFields for a command that shows the dataset's
// warnings itself (the review screen): the warnings join ds.Warnings.
func (js judgeSet) checkFields(ds *dataset.Dataset) error {
	warnings, err := checkJudgeFields(js.entries, ds)
	ds.Warnings = append(ds.Warnings, warnings...)
	return err
}

// pairWarning warns when a judge compares two responses and no item of the
// dataset has a pair: every item would be skipped, nothing sent.
func pairWarning(en catalog.Entry, ds *dataset.Dataset) string {
	if !slices.Contains(en.Inputs, "response_a") && !slices.Contains(en.Inputs, "response_b") {
		return ""
	}
	if slices.ContainsFunc(ds.Items, judge.Item.Pairwise) {
		return ""
	}
	return fmt.Sprintf("%s compares two responses, but no item of %s has them (mapped %s): every item is skipped, nothing is sent; --map response_a=FIELD,response_b=FIELD names the fields that hold them", judgeWhere(en), ds.Name, dataset.FormatMap(ds.Mapping))
}

func anyItemHas(ds *dataset.Dataset, field string) bool {
	for _, it := range ds.Items {
		if field == "question" && it.Question != "" || field == "gold" && it.Gold != "" {
			return true
		}
	}
	return false
}

// judgeWhere names a judge in messages: its file, or its name.
func judgeWhere(en catalog.Entry) string {
	if en.Source == "" || en.Source == "built-in" {
		return "judge " + en.Name
	}
	return "judge file " + en.Source
}

func braced(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "{" + n + "}"
	}
	return strings.Join(out, ", ")
}

func listFields(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) > maxFieldsShown {
		return strings.Join(names[:maxFieldsShown], ", ") + fmt.Sprintf(", … %d more", len(names)-maxFieldsShown)
	}
	return strings.Join(names, ", ")
}
