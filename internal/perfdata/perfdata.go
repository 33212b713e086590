// Package perfdata writes the generated eval rows the performance script
// and the whole-path benchmarks read: one JSONL row per item, about 590
// bytes each, shaped like the files people import (a question, a gold
// answer, a chain-of-thought prediction with escapes, two segment fields),
// optionally with a judge's verdict column and a human label column. The
// same seed gives the same bytes, so runs on different machines read the
// same file and benchmarks measure the rows the script times.
package perfdata

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

var words = strings.Fields(`the a of to and in is that for it as was with be by on not he this are
or his from at which but have an they you were her all she there would their we him been has when who
will more no if out so said what up its about into than them can only other new some could time these
two may then do first any my now such like our over man me even most made after also did many before
must through back years where much your way well down should because each just those people how too
little state good very make world still own see men work long get here between both life being under
never day same another know while last might us great old year off come since against go came right
used take three answer café naïve déjà-vu “quoted” 10% 3.14 (B) Paris 1937 12/14/1937`)

var (
	categories   = [...]string{"arithmetic", "dates", "geography", "history", "logic", "science", "sports", "language"}
	difficulties = [...]string{"easy", "medium", "hard"}
)

// Options says which rows Write writes.
type Options struct {
	// Rows is how many rows.
	Rows int
	// Labelled adds a judge verdict column (judge_verdict) and a human
	// label column (human_label) to every row.
	Labelled bool
	// Seed seeds the text (gendata's default is 1).
	Seed uint64
}

// Write writes opts.Rows rows to w, ids item-0000001 upwards.
func Write(w io.Writer, opts Options) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(opts.Seed, 2))
	for i := 1; i <= opts.Rows; i++ {
		row(bw, r, i, opts.Labelled)
	}
	return bw.Flush()
}

func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for k := 0; k < n; k++ {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// row writes one row. The judge agrees with the human on about 85 % of
// the rows, so the statistics have something to say.
func row(w *bufio.Writer, r *rand.Rand, i int, labelled bool) {
	fmt.Fprintf(w, `{"id": "item-%07d", "question": "%s?", "answer": "%s", "prediction": "Let's think step by step.\n%s.\n\"%s\"\n%s.\nSo the answer is %s.", "category": "%s", "difficulty": "%s"`,
		i, text(r, 26), text(r, 2), text(r, 32), text(r, 8), text(r, 16), text(r, 2),
		categories[r.IntN(len(categories))], difficulties[r.IntN(len(difficulties))])
	if labelled {
		human := r.IntN(10) < 7
		verdict := human
		if r.IntN(100) < 15 {
			verdict = !verdict
		}
		fmt.Fprintf(w, `, "judge_verdict": %t, "human_label": %t`, verdict, human)
	}
	w.WriteString("}\n")
}
