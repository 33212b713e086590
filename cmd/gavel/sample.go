package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// sampleFlags are the flags of `gavel sample`.
type sampleFlags struct {
	datasetFlags
	n        int
	stratify string
	seed     uint64
	output   string
}

// defaultSampleSeed makes a sample drawn without --seed reproducible too.
const defaultSampleSeed = 1

func newSampleCmd(e env) *cobra.Command {
	var o sampleFlags
	cmd := &cobra.Command{
		Use:   "sample DATASET -n N",
		Short: "Draw a reproducible random sample of a dataset's rows, to label as a calibration set",
		Long: `Draw N rows of DATASET at random and write them as JSONL, each row as it
was in the file (CSV rows become objects of their columns), in file order.
The same file, N, --stratify and --seed always give the same rows.

--stratify FIELD draws from each value of FIELD (a segment such as category,
or any field, dotted paths included) in proportion to its size, with at
least one row from every value when N allows, so that small groups are not
left out. How many rows came from each value is printed on stderr.`,
		Example: `  gavel sample evals.jsonl -n 200 --output calibration.jsonl
  gavel sample evals.csv -n 200 --stratify category --seed 7 > sample.jsonl
  gavel sample evals.jsonl -n 200 --output s.jsonl && gavel review s.jsonl`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runSample(e, a[0], o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.n, "n", "n", 0, "draw `N` rows (required)")
	f.StringVar(&o.stratify, "stratify", "", "a `FIELD` to stratify by, e.g. category or doc.task")
	f.Uint64Var(&o.seed, "seed", defaultSampleSeed, "the random `SEED`: the same seed gives the same rows")
	f.StringVarP(&o.output, "output", "o", "", "the JSONL `FILE` to write (default: standard output)")
	o.datasetFlags.add(f)
	return cmd
}

func runSample(e env, path string, o sampleFlags) error {
	if o.n <= 0 {
		return usagef("say how many rows to draw with -n N (N at least 1)")
	}
	ds, err := o.loadAny(path)
	if err != nil {
		return err
	}
	picked, strata, err := sessions.Sample(ds.Items, sessions.SampleOptions{N: o.n, Stratify: strings.TrimSpace(o.stratify), Seed: o.seed})
	if err != nil {
		return err
	}
	// Rows without an id field are known by their row number: the sample
	// keeps it as each row's id, or labels given to the sample could not
	// be joined back to the dataset.
	_, numbered := ds.Mapping[dataset.RoleID]
	numbered = !numbered
	idKey := ""
	err = writeOutput(e, o.output, func(w io.Writer) error {
		for _, i := range picked {
			it := ds.Items[i]
			if numbered {
				var key string
				it.Fields, key = withRowID(it.Fields, it.ID)
				if idKey == "" {
					idKey = key
				}
			}
			if err := writeRow(w, it); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if ds.Skipped > 0 {
		fmt.Fprintf(e.stderr, "%s skipped.\n", count(ds.Skipped, "bad row"))
	}
	fmt.Fprintf(e.stderr, "Drew %d of %s (seed %d)", len(picked), count(len(ds.Items), "row"), o.seed)
	if len(strata) > 0 {
		parts := make([]string, len(strata))
		for i, s := range strata {
			v := s.Value
			if v == "" {
				v = "(none)"
			}
			parts[i] = fmt.Sprintf("%s %d/%d", strconv.Quote(v), s.Drawn, s.Rows)
		}
		fmt.Fprintf(e.stderr, ", by %s: %s", o.stratify, strings.Join(parts, ", "))
	}
	fmt.Fprintln(e.stderr, ".")
	switch {
	case idKey == "id":
		fmt.Fprintln(e.stderr, "The rows have no id field: each sampled row keeps its row number in the dataset as \"id\".")
	case idKey != "":
		fmt.Fprintf(e.stderr, "The rows' own \"id\" field is not their id here: each sampled row keeps its row number in the dataset as %s (review the sample with --map id=%s).\n",
			strconv.Quote(idKey), idKey)
	}
	if o.n > len(ds.Items) {
		if len(ds.Items) == 1 {
			fmt.Fprintln(e.stderr, "The dataset has only 1 row: it was written.")
		} else {
			fmt.Fprintf(e.stderr, "The dataset has only %s: all of them were written.\n", count(len(ds.Items), "row"))
		}
	}
	return nil
}

// rowNumberKey holds a sampled row's number when the row already has an
// "id" field that was not its id.
const rowNumberKey = "gavel_row"

// withRowID returns a JSON object row with its row number added first, as
// "id" (or rowNumberKey when the row already has an "id" field), and the
// key used; a row that is not an object is returned as it is ("" key):
// writeRow then writes the item's id with its texts.
func withRowID(fields json.RawMessage, id string) (json.RawMessage, string) {
	var obj map[string]json.RawMessage
	trimmed := bytes.TrimSpace(fields)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &obj) != nil {
		return fields, ""
	}
	key := "id"
	if _, ok := obj[key]; ok {
		key = rowNumberKey
		if _, ok := obj[key]; ok {
			return fields, ""
		}
	}
	num := []byte(strconv.Quote(id))
	if _, err := strconv.ParseUint(id, 10, 64); err == nil {
		num = []byte(id)
	}
	var b bytes.Buffer
	b.WriteString(`{"` + key + `":`)
	b.Write(num)
	rest := bytes.TrimSpace(trimmed[1:])
	if len(rest) > 0 && rest[0] != '}' {
		b.WriteByte(',')
	}
	b.Write(rest)
	return b.Bytes(), key
}

// writeRow writes an item's original row as one JSON line.
func writeRow(w io.Writer, it judge.Item) error {
	row := []byte(it.Fields)
	if len(row) == 0 || !json.Valid(row) {
		var err error
		row, err = json.Marshal(map[string]string{"id": it.ID, "question": it.Question, "gold": it.Gold, "prediction": it.Prediction})
		if err != nil {
			return err
		}
	}
	// Rows of a JSON document may span lines; a JSONL row may not.
	if bytes.ContainsAny(row, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, row); err == nil {
			row = b.Bytes()
		}
	}
	if _, err := w.Write(row); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
