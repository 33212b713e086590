// Command gendata writes the generated JSONL file the performance script
// measures (see internal/perfdata for the rows): one eval row per line,
// about 590 bytes each, optionally with a judge's verdict column and a
// human label column. The same seed gives the same bytes, so runs on
// different machines read the same file.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gavel-dev/gavel/internal/perfdata"
)

func main() {
	n := flag.Int("n", 100_000, "how many rows")
	out := flag.String("o", "", "the file to write (default standard output)")
	labelled := flag.Bool("labelled", false, "add a judge verdict column (judge_verdict) and a human label column (human_label), every row filled")
	seed := flag.Uint64("seed", 1, "the random seed")
	flag.Parse()
	if *n < 0 {
		fail(fmt.Errorf("-n %d: the row count cannot be negative", *n))
	}
	f := os.Stdout
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			fail(err)
		}
	}
	if err := perfdata.Write(f, perfdata.Options{Rows: *n, Labelled: *labelled, Seed: *seed}); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gendata:", err)
	os.Exit(1)
}
