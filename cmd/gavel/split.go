package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// splitFlags are the flags of `gavel split`.
type splitFlags struct {
	seed        uint64
	calibration float64
	replace     bool
}

// splitAnnotator is the name `gavel split` holds the session's lock under.
const splitAnnotator = "gavel split"

// The values of --split of gavel stats and gavel compare.
const (
	splitAll         = "all"
	splitEvaluation  = "evaluation"
	splitCalibration = "calibration"
)

func newSplitCmd(e env) *cobra.Command {
	var o splitFlags
	cmd := &cobra.Command{
		Use:   "split SESSION [--seed S] [--calibration 0.5]",
		Short: "Split a session's items into calibration and evaluation parts, so that a judge is tuned on one and scored on the other",
		Long: `Record a calibration / evaluation split in the session. Few-shot examples and
tuning read only calibration items (tuning chooses among candidates on the
validation third of them); gavel compare then scores on the evaluation
items, which no tuning has seen.

Every item of the session, labelled or not, has a part fixed by the seed
and its id alone: u is the first 8 bytes of SHA-256 of the seed in decimal,
a NUL byte and the item's id, read as a big-endian unsigned integer and
divided by 2^64. The item is in calibration when u < SHARE (--calibration),
else in evaluation; within calibration it is in validation when
u < SHARE/3. So labelling more items, or adding items, never moves one.

Without --seed a random seed is drawn, printed and recorded. The counts
per part and per human label are printed, with a warning for a part with
fewer than 30 labelled items (below 30 a figure is not yet stable).

A session keeps its split: running gavel split again prints it and
changes nothing. --replace draws a new one; items then change parts, so
anything tuned on the old calibration part may have seen items of the new
evaluation part, and its evaluation figures are no longer held out.`,
		Example: `  gavel split tq.gavel
  gavel split evals.gavel --seed 7 --calibration 0.6
  gavel split evals.gavel --replace --seed 8`,
		Args: sessionArgs(e),
		RunE: func(cmd *cobra.Command, a []string) error {
			f := cmd.Flags()
			return runSplit(e, sessionArg(e, a), o, f.Changed("seed"), f.Changed("calibration"))
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&o.seed, "seed", 0, "the split's `SEED` (default: a random one, printed and recorded)")
	f.Float64Var(&o.calibration, "calibration", sessions.DefaultCalibrationShare, "the calibration part's `SHARE` of the items, between 0 and 1; a third of it is the validation part")
	f.BoolVar(&o.replace, "replace", false, "replace the session's split: items change parts, so what was tuned on the old calibration part is no longer held out from the new evaluation part")
	cmd.ValidArgsFunction = first(completeExts(sessionExts))
	_ = cmd.RegisterFlagCompletionFunc("seed", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("calibration", cobra.NoFileCompletions)
	return cmd
}

func runSplit(e env, path string, o splitFlags, seedSet, shareSet bool) error {
	want := sessions.Split{Seed: o.seed, Calibration: o.calibration}
	if err := want.Valid(); err != nil {
		return usagef("--calibration %v: %v", o.calibration, err)
	}
	if err := fileOnly("split", path); err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return usagef("no session %s: make one with gavel review, gavel run or gavel import first", path)
	}
	s, err := sessions.Open(path, sessions.Options{Annotator: splitAnnotator})
	if err != nil {
		return err
	}
	defer s.Close()
	old, had, err := s.Split()
	if err != nil {
		return err
	}
	in, err := s.StatsInput()
	if err != nil {
		return err
	}
	if had && !o.replace {
		fmt.Fprintf(e.stdout, "%s already has a split, recorded %s: kept.\n", path, old.CreatedAt.Format("2006-01-02 15:04:05 UTC"))
		writeSplitCounts(e.stdout, old, in)
		differs := (seedSet && o.seed != old.Seed) || (shareSet && o.calibration != old.Calibration)
		if differs {
			return fmt.Errorf("%s keeps its split (seed %d, %s calibration): a changed split would let evaluation items into tuning; --replace draws a new one anyway", path, old.Seed, percent(old.Calibration))
		}
		fmt.Fprintf(e.stdout, "A changed split would let evaluation items into tuning; gavel split %s --replace draws a new one anyway.\n", path)
		return nil
	}
	if !seedSet {
		if want.Seed, err = randomSeed(); err != nil {
			return err
		}
	}
	sp, err := s.RecordSplit(want, o.replace)
	if err != nil {
		return err
	}
	if had {
		fmt.Fprintf(e.stderr, "gavel: replaced the split of %s (seed %d, %s calibration, recorded %s): items have changed parts, so a judge tuned or given few-shot examples on the old calibration part may have seen items now in evaluation — its evaluation figures are no longer held out. The old split stays in the session's history.\n",
			path, old.Seed, percent(old.Calibration), old.CreatedAt.Format("2006-01-02 15:04:05 UTC"))
	}
	fmt.Fprintf(e.stdout, "Recorded the split of %s.\n", path)
	writeSplitCounts(e.stdout, sp, in)
	return nil
}

// randomSeed draws a seed from the operating system.
func randomSeed() (uint64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("cannot draw a random seed (%v): pass --seed", err)
	}
	return binary.BigEndian.Uint64(b[:]), nil
}

func percent(share float64) string {
	return strconv.FormatFloat(share*100, 'g', 4, 64) + "%"
}

// splitRows are the rows of the counts table, with the test each uses.
var splitRows = []struct {
	name string
	in   func(sessions.Part) bool
}{
	{"calibration", sessions.Part.InCalibration},
	{"  validation", func(p sessions.Part) bool { return p == sessions.PartValidation }},
	{"evaluation", func(p sessions.Part) bool { return p == sessions.PartEvaluation }},
	{"all", func(sessions.Part) bool { return true }},
}

// writeSplitCounts prints the split, then per part its items and, per
// labelled dimension, its labelled units by reference label (the single
// label or the annotators' majority, as the statistics read it), and a
// warning for each part with fewer than stats.MinReliableItems labelled.
func writeSplitCounts(w io.Writer, sp sessions.Split, in stats.Input) {
	fmt.Fprintf(w, "Seed %d, %s calibration (its first third, u < %.4g, is validation), %s evaluation.\n",
		sp.Seed, percent(sp.Calibration), sp.Calibration/3, percent(1-sp.Calibration))
	fmt.Fprintln(w, "Each item's part is fixed by the seed and its id: labelling or adding items never moves one.")
	parts := make([]sessions.Part, len(in.Units))
	for u, unit := range in.Units {
		parts[u] = sp.PartOf(unit.ItemID)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\titems\t")
	for _, r := range splitRows {
		n := 0
		for u, unit := range in.Units {
			if unit.Criterion == 0 && r.in(parts[u]) {
				n++
			}
		}
		fmt.Fprintf(tw, "%-14s\t%d\t\n", r.name, n)
	}
	tw.Flush()
	var warnings []string
	for _, d := range splitDimensions(in) {
		refs := stats.References(in, d)
		if !slices.ContainsFunc(refs, func(r stats.Reference) bool { return r.Labelled }) {
			continue
		}
		fmt.Fprintf(w, "\nHuman labels on %s (%s):\n", d.Name, d.Scale)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		vals := d.Scale.Values()
		head := []string{"", "labelled"}
		for _, v := range vals {
			head = append(head, d.Scale.Format(v))
		}
		head = append(head, "tied", "")
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, r := range splitRows {
			counts := make([]int, len(vals))
			labelled, ties := 0, 0
			for u, ref := range refs {
				if !ref.Labelled || !r.in(parts[u]) {
					continue
				}
				labelled++
				if ref.Tie {
					ties++
					continue
				}
				if i := d.Scale.Index(ref.Value); i >= 0 {
					counts[i]++
				}
			}
			row := []string{fmt.Sprintf("%-14s", r.name), strconv.Itoa(labelled)}
			for _, c := range counts {
				row = append(row, strconv.Itoa(c))
			}
			row = append(row, strconv.Itoa(ties), "")
			fmt.Fprintln(tw, strings.Join(row, "\t"))
			if name := strings.TrimSpace(r.name); name != "all" && labelled-ties < stats.MinReliableItems {
				warnings = append(warnings, fmt.Sprintf("warning: the %s part has %d items with a human label on %s: below %d a figure is not yet stable; label more items (gavel review)",
					name, labelled-ties, d.Name, stats.MinReliableItems))
			}
		}
		tw.Flush()
	}
	if len(warnings) > 0 {
		fmt.Fprintln(w)
	}
	for _, m := range warnings {
		fmt.Fprintln(w, m)
	}
}

// splitDimensions lists the input's dimensions, each name and scale once,
// in the order they first appear among the judges, then the others.
func splitDimensions(in stats.Input) []judge.Dimension {
	var out []judge.Dimension
	add := func(d judge.Dimension) {
		if !slices.ContainsFunc(out, func(e judge.Dimension) bool { return e.Name == d.Name && e.Scale == d.Scale }) {
			out = append(out, d)
		}
	}
	for _, j := range in.Judges {
		for _, d := range j.Dimensions {
			add(d)
		}
	}
	for _, d := range in.Dimensions {
		add(d)
	}
	return out
}

// readSplitInput opens the session at path read-only, says its notice,
// and reads its statistics input kept to the part of the split named by
// which (selectSplit): what `gavel stats` and `gavel compare` start from.
// The caller closes the store.
func readSplitInput(e env, path, which string) (*sessions.Store, stats.Input, stats.SplitUsed, error) {
	s, err := openRead(path)
	if err != nil {
		return nil, stats.Input{}, stats.SplitUsed{}, err
	}
	if n := s.Notice(); n != "" {
		fmt.Fprintln(e.stderr, n)
	}
	in, err := s.StatsInput()
	if err == nil {
		var used stats.SplitUsed
		planID := planOf(in)
		if in, used, err = selectSplit(s, in, which); err == nil {
			for _, n := range planNotes(path, planID, used, in) {
				fmt.Fprintln(e.stderr, n)
			}
			return s, in, used, nil
		}
	}
	s.Close()
	return nil, stats.Input{}, stats.SplitUsed{}, namingTeam(err, s.Path(), path)
}

// noSplitError is the refusal of --split evaluation or calibration on a
// session without a split: an ErrNoSplit, so that namingTeam says what a
// team session does instead (gavel split works on files).
type noSplitError struct{ path string }

func noSplit(path string) error { return noSplitError{path} }

func (e noSplitError) Error() string {
	return fmt.Sprintf("%s has no calibration / evaluation split: record one with `gavel split %s`", e.path, e.path)
}

func (e noSplitError) Is(target error) bool { return target == sessions.ErrNoSplit }

// selectSplit keeps the units of in in the part named by which (all,
// evaluation or calibration, validation included; "" picks evaluation
// when the session has a split, all otherwise) and says what it kept. The
// stats package stays pure: it only ever sees the kept units.
func selectSplit(s *sessions.Store, in stats.Input, which string) (stats.Input, stats.SplitUsed, error) {
	which = strings.ToLower(strings.TrimSpace(which))
	sp, has, err := s.Split()
	if err != nil {
		return in, stats.SplitUsed{}, err
	}
	switch which {
	case "":
		which = splitAll
		if has {
			which = splitEvaluation
		}
	case splitAll, splitEvaluation, splitCalibration:
	default:
		return in, stats.SplitUsed{}, usagef("unknown --split %q: use evaluation, calibration or all", which)
	}
	used := stats.SplitUsed{Part: which}
	if has {
		seed, share := sp.Seed, sp.Calibration
		used.Seed, used.Calibration = &seed, &share
	}
	if which != splitAll {
		if !has {
			return in, stats.SplitUsed{}, usageError{noSplit(s.Path())}
		}
		keep := func(p sessions.Part) bool { return p.InCalibration() == (which == splitCalibration) }
		units := make([]stats.Unit, 0, len(in.Units))
		lastID, kept := "", false
		for i, u := range in.Units {
			// A rubric item's criteria follow it: one hash per item.
			if i == 0 || u.ItemID != lastID {
				lastID, kept = u.ItemID, keep(sp.PartOf(u.ItemID))
			}
			if kept {
				units = append(units, u)
			}
		}
		in.Plan = planDomain(in.Plan, in.Units, units)
		in.Units = units
	}
	for _, u := range in.Units {
		if u.Criterion == 0 {
			used.Items++
		}
	}
	return in, used, nil
}

// planDomain keeps the rows of a plan (drawn over every item) whose item
// is among kept, the units of one part of the split, pointing at their
// place there. The plan's estimates then describe the part: a domain of
// the plan's population, estimated with the plan's own probabilities
// (Horvitz–Thompson and PPI stay unbiased for a domain whose size is
// known; the number of planned items in it is random).
func planDomain(p *stats.PlanInput, all, kept []stats.Unit) *stats.PlanInput {
	if p == nil {
		return nil
	}
	at := make(map[string]int, len(kept))
	for i, u := range kept {
		if u.Criterion == 0 {
			at[u.ItemID] = i
		}
	}
	d := *p
	d.Units = make([]stats.PlanUnit, 0, len(kept))
	for _, pu := range p.Units {
		id := pu.ItemID
		if id == "" && pu.Unit >= 0 && pu.Unit < len(all) {
			id = all[pu.Unit].ItemID
		}
		if k, ok := at[id]; ok {
			pu.Unit, pu.ItemID = k, id
			d.Units = append(d.Units, pu)
		}
	}
	return &d
}

// planNotes are the notes, for stderr, on the plan (id, 0 for none) the
// figures in read: on one part of a split, its estimates cover that
// part's items only; items that came after the plan was drawn (a dataset
// that grew) are outside its estimates.
func planNotes(path string, id int, used stats.SplitUsed, in stats.Input) []string {
	if id == 0 || in.Plan == nil {
		return nil
	}
	var out []string
	if used.Part != splitAll && used.Part != "" {
		out = append(out, fmt.Sprintf("gavel: labelling plan %d was drawn over every item; its estimates here cover the %s part's %d items only, with the plan's probabilities (--split all estimates over every item, e.g. gavel stats %s --split all)",
			id, used.Part, used.Items, shellArg(path)))
	}
	items := 0
	for _, u := range in.Units {
		if u.Criterion == 0 {
			items++
		}
	}
	if after := items - len(in.Plan.Units); after > 0 {
		draw := "gavel plan " + shellArg(path) + " -n N draws a plan over them all"
		if pg.IsURL(path) {
			draw = "a plan drawn anew covers them all: " + drawPlanHint(path)
		}
		out = append(out, fmt.Sprintf("gavel: %d of these %d items came after labelling plan %d was drawn: its estimates cover the %d items it was drawn over (%s)",
			after, items, id, len(in.Plan.Units), draw))
	}
	return out
}

// splitLine says which items a report covers, for text and Markdown; empty
// when it covers all of a session without a split.
func splitLine(u stats.SplitUsed) string {
	switch {
	case u.Seed == nil:
		return ""
	case u.Part == splitAll:
		return fmt.Sprintf("On all items, both parts of the split (seed %d): %d items.", *u.Seed, u.Items)
	}
	return fmt.Sprintf("On the %s split (seed %d): %d items.", u.Part, *u.Seed, u.Items)
}

// planOf is the id of the plan in, 0 for none.
func planOf(in stats.Input) int {
	if in.Plan == nil {
		return 0
	}
	return in.Plan.ID
}
