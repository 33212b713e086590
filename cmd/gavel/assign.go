package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

// assignFlags are the flags of `gavel assign`.
type assignFlags struct {
	annotators   string
	overlap      float64
	seed         int64
	claimTimeout time.Duration
	replace      bool
	blind        bool
}

// assignAnnotator is the name `gavel assign` holds a session file's lock
// under.
const assignAnnotator = "gavel assign"

func newAssignCmd(e env) *cobra.Command {
	var o assignFlags
	cmd := &cobra.Command{
		Use:   "assign SESSION --annotators ana,bo,cy [--overlap 0.2] [--seed S] [--claim-timeout 30m] [--blind] [--replace]",
		Short: "Deal a session's items to a team: each item to one person, a seeded share of them to two",
		Long: `Make the work queue of a team labelling SESSION together: a session file,
or a PostgreSQL session URL (postgres://USER@HOST:PORT/DB?session=NAME) that
several people review at once.

Every item goes to one annotator; a share of them (--overlap, e.g. 0.2 for
a fifth) goes to two different people, so that the statistics can tell how
far people agree with each other. Which items are shared, and the order in
which each person meets their items, follow from the seed and the items'
ids alone (SHA-256, as gavel plan's numbers). The shares are balanced: the
shared items first, each to the two people with the fewest items so far
(then the pair that shares the fewest), then the rest to whoever has the
fewest, so that nobody has more than one item more than another.

A review then hands each person their own items in order, a few at a time
(a claim); when their own are done, items of others nobody has claimed yet,
so that nobody waits while work is left — never an item they have decided
or one whose other place they hold. A claim not decided within
--claim-timeout returns the item to the queue.

A blind queue (--blind) keeps each person's labels from the others until
adjudication: their reviews show nobody else's labels, can't judges or
disagreements, only the team's progress and the agreement figures of the
statistics; the adjudicator (gavel review --adjudicate) sees them all. It
is a convention of the review screen, not a permission: the session holds
everyone's labels for gavel stats and gavel export.

Without --annotators, the session's queue and each person's progress
(assigned, claimed now, done) are printed. A session keeps its queue:
--replace deals again (a new team, overlap or seed), keeping every item
already done by whoever did it; it keeps the queue blind or not unless
--blind or --blind=false says otherwise. Without --seed a random seed is
drawn, printed and recorded.`,
		Example: `  gavel assign evals.gavel --annotators ana,bo,cy --overlap 0.2
  gavel assign 'postgres://lead@db.example.com/evals?session=triviaqa' --annotators ana,bo,cy --overlap 0.2 --seed 7
  gavel assign evals.gavel
  gavel assign evals.gavel --annotators ana,bo,cy --overlap 0.2 --blind
  gavel assign evals.gavel --annotators ana,bo,cy,dan --overlap 0.2 --replace`,
		Args: sessionArgs(e),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runAssign(cmd.Context(), e, sessionArg(e, a), o, cmd.Flags().Changed)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.annotators, "annotators", "", "the team, as `NAMES` separated by commas (ana,bo,cy)")
	f.Float64Var(&o.overlap, "overlap", 0, "the `SHARE` of items two people label, between 0 and 1 (0.2: a fifth)")
	f.Int64Var(&o.seed, "seed", 0, "the deal's `SEED` (default: a random one, printed and recorded)")
	f.DurationVar(&o.claimTimeout, "claim-timeout", sessions.DefaultClaimTimeout, "how long a claimed item stays with its claimant undecided before it returns to the queue, a `DURATION` such as 45m or 2h")
	f.BoolVar(&o.replace, "replace", false, "deal the session's queue again, keeping the items already done")
	f.BoolVar(&o.blind, "blind", false, "a blind queue: nobody sees the others' labels on the review screen until adjudication (with --replace: --blind=false lifts it; left out, kept)")
	cmd.ValidArgsFunction = first(completeExts(sessionExts))
	for _, name := range []string{"annotators", "overlap", "seed", "claim-timeout"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

func runAssign(ctx context.Context, e env, arg string, o assignFlags, set func(string) bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !set("annotators") {
		for _, name := range []string{"overlap", "seed", "claim-timeout", "blind", "replace"} {
			if set(name) {
				return usagef("--%s deals a queue: name the team with --annotators ana,bo,…", name)
			}
		}
	}
	opts := sessions.AssignOptions{Overlap: o.overlap, Seed: o.seed, ClaimTimeout: o.claimTimeout, Replace: o.replace,
		Blind: o.blind, KeepBlind: o.replace && !set("blind")}
	if set("annotators") {
		for _, a := range strings.Split(o.annotators, ",") {
			if a = strings.TrimSpace(a); a != "" {
				opts.Annotators = append(opts.Annotators, a)
			}
		}
		var err error
		if opts, err = sessions.CheckAssign(opts); err != nil {
			return usageError{err}
		}
		if !set("seed") {
			seed, err := randomSeed()
			if err != nil {
				return err
			}
			opts.Seed = int64(seed >> 1)
		}
	}

	q, where, err := openAssignQueue(ctx, arg)
	if err != nil {
		return err
	}
	defer q.Close()
	if !set("annotators") {
		return showQueue(e.stdout, q, where)
	}
	sum, err := q.Assign(opts)
	if err != nil {
		return err
	}
	writeAssigned(e.stdout, where, sum, set("blind"))
	return nil
}

// openAssignQueue opens the queue of a session file or URL, and says how
// messages name it.
func openAssignQueue(ctx context.Context, arg string) (sessions.QueueStore, string, error) {
	if pg.IsURL(arg) {
		q, err := pg.OpenQueue(ctx, arg)
		if err != nil {
			return nil, "", err
		}
		return q, q.Store().Target().Shown, nil
	}
	if _, err := os.Stat(arg); errors.Is(err, fs.ErrNotExist) {
		return nil, "", usagef("no session %s: make one with gavel import or gavel review first, or give a postgres:// session URL", arg)
	}
	s, err := sessions.Open(arg, sessions.Options{Annotator: assignAnnotator})
	if err != nil {
		return nil, "", err
	}
	return s, arg, nil
}

// writeAssigned prints what a deal gave each annotator; saidBlind: --blind
// was given (so that --blind=false is answered).
func writeAssigned(w io.Writer, where string, sum sessions.AssignSummary, saidBlind bool) {
	st := sum.Settings
	fmt.Fprintf(w, "Assigned the %d items of %s to %s (seed %d; a claim lasts %s).\n",
		sum.Items, safetext.SanitizeLine(where), plural(len(st.Annotators), "annotator", "annotators"), st.Seed, claimTimeout(st.ClaimTimeout))
	if sum.Overlap > 0 {
		fmt.Fprintf(w, "%s two people label (overlap %s), for agreement between people.\n",
			plural(sum.Overlap, "item", "items"), strconv.FormatFloat(st.Overlap, 'g', -1, 64))
	} else {
		fmt.Fprintln(w, "No item goes to two people (overlap 0): agreement between people will not be measured.")
	}
	if sum.Kept > 0 {
		fmt.Fprintf(w, "Kept the %s already done, each with the person who decided it.\n", plural(sum.Kept, "place", "places"))
	}
	if st.Blind {
		fmt.Fprintln(w, blindQueueLine)
	} else if saidBlind {
		fmt.Fprintln(w, "Not a blind queue: each person's review shows the others' labels beside the verdict.")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "annotator\titems\tshared\t")
	for _, a := range sum.Annotators {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", safetext.SanitizeLine(a.Annotator), a.Slots, a.Shared)
	}
	tw.Flush()
}

// showQueue prints a session's queue and each person's progress.
func showQueue(w io.Writer, q sessions.QueueStore, where string) error {
	st, err := q.QueueSettings()
	if err != nil {
		return err
	}
	slots, err := q.QueueSlots()
	if err != nil {
		return err
	}
	progress, err := q.Progress()
	if err != nil {
		return err
	}
	per := map[string]int{}
	for _, s := range slots {
		per[s.ItemID]++
	}
	two := 0
	for _, n := range per {
		if n == 2 {
			two++
		}
	}
	names := make([]string, len(st.Annotators))
	for i, a := range st.Annotators {
		names[i] = safetext.SanitizeLine(a)
	}
	fmt.Fprintf(w, "The queue of %s, assigned %s: %d items to %s (%s), %d of them to two people (overlap %s); seed %d; a claim lasts %s.\n",
		safetext.SanitizeLine(where), st.CreatedAt.Format("2006-01-02 15:04 UTC"), len(per), plural(len(st.Annotators), "annotator", "annotators"),
		strings.Join(names, ", "), two, strconv.FormatFloat(st.Overlap, 'g', -1, 64), st.Seed, claimTimeout(st.ClaimTimeout))
	if st.Blind {
		fmt.Fprintln(w, blindQueueLine)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "annotator\tassigned\tclaimed\tdone\t")
	for _, p := range progress {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", safetext.SanitizeLine(p.Annotator), p.Assigned, p.Claimed, p.Done)
	}
	return tw.Flush()
}

// blindQueueLine is what gavel assign says of a blind queue.
const blindQueueLine = "Blind queue: nobody sees the others' labels on the review screen until adjudication (gavel review --adjudicate shows them all)."

// claimTimeout writes a duration as people do: 30m, 1h, 1h30m, 45s.
func claimTimeout(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strings.TrimSuffix(d.String(), "0s")
	}
	return d.String()
}
