package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// labelFlags are the flags of `gavel label`.
type labelFlags struct {
	dimension  string
	criterion  int
	annotator  string
	note       string
	tags       []string
	untags     []string
	cantJudge  string
	undo       bool
	guidelines string
	via        string
	// set says which flags were given (an empty --note clears the note).
	set func(name string) bool
}

// The values of gavel label --via: how the item was reached. Statistics
// take "script" like a filter (outside the unbiased random sample).
const (
	viaOrder  = "order"
	viaRandom = "random"
	viaScript = "script"
)

func newLabelCmd(e env) *cobra.Command {
	var o labelFlags
	cmd := &cobra.Command{
		Use:   "label SESSION ID [VALUE]",
		Short: "Label one item of a session from a script: the headless twin of every decision on the review screen",
		Long: `Record one decision on the item ID of SESSION, exactly as the review screen
records it (the same actions in the session, one group per call, which u on
the screen or --undo here takes back as one):

  VALUE                 a label on the item's scale: YES/NO, a score, a category,
                        A/B/tie. An item with several rows (per-criterion judges,
                        several dimensions) needs --criterion K and/or
                        --dimension D; the rows are those the screen offers
  --cant-judge REASON   the item cannot be judged: gold-wrong, ambiguous,
                        unreadable, or other (with --note saying why). It counts
                        as reviewed and is left out of every agreement figure
  --note TEXT           a note on the item (--note "" removes yours)
  --tag NAME            put a failure tag on the item (repeat for several); a new
                        name joins the session's tag set. --untag takes one off
  --undo                take back your latest decision on the item

Labels record the guidelines version in force: --guidelines FILE (stored
as a new version when the session lacks it), else the config's guidelines,
else the session's latest version. --via says how the item was reached
(default script, which statistics keep outside the random sample); --via
plan:ID labels an item of labelling plan ID (gavel plan), which the
statistics weight by the item's probability in the plan; --via adjudication
settles a row where people's labels differ (gavel review --adjudicate's
twin): the label becomes the item's reference for the judge's statistics
and counts in no agreement between people. It is refused on a row where
no two people's labels differ.

A value off the item's scale, an unknown id, and a session open on the
review screen for the same annotator are refused with what to do.

SESSION may be a team session's URL (postgres://…?session=NAME): the
decision is written to PostgreSQL, as the team's review screens write
theirs, and shows on them within seconds.`,
		Example: `  gavel label evals.gavel tq_17 YES
  gavel label evals.gavel tq_17 NO --note "the gold answer is outdated" --tag "hallucinated gold"
  gavel label evals.gavel rubric_3 4 --criterion 2 --dimension score --annotator ana
  gavel label evals.gavel tq_18 --cant-judge gold-wrong
  gavel label evals.gavel tq_19 --cant-judge other --note "the question is cut off"
  gavel label evals.gavel tq_17 --undo
  gavel label evals.gavel tq_17 NO --via adjudication --annotator lead`,
		Args: args(cobra.RangeArgs(2, 3)),
		RunE: func(cmd *cobra.Command, a []string) error {
			f := cmd.Flags()
			o.set = f.Changed
			if !f.Changed("guidelines") {
				s, err := resolveSettings(e, f)
				if err != nil {
					return err
				}
				o.guidelines = s.labelling.guidelines
			}
			var value *string
			if len(a) == 3 {
				value = &a[2]
			}
			return runLabel(e, a[0], a[1], value, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dimension, "dimension", "", "the `DIMENSION` VALUE labels, when the item has several")
	f.IntVar(&o.criterion, "criterion", 0, "the rubric criterion `K` (from 1) VALUE labels, for judges that rate criteria one by one")
	f.StringVar(&o.annotator, "annotator", "", "who labels, your `NAME` in the session (default: $GAVEL_ANNOTATOR, the config's, else your OS user name)")
	f.StringVar(&o.note, "note", "", "a note on the item, `TEXT` (\"\" removes yours); with --cant-judge other, why")
	f.StringArrayVar(&o.tags, "tag", nil, "put the failure tag `NAME` on the item; repeat for several")
	f.StringArrayVar(&o.untags, "untag", nil, "take the failure tag `NAME` off the item; repeat for several")
	f.StringVar(&o.cantJudge, "cant-judge", "", "the item cannot be judged, for `REASON`: "+strings.Join(sessions.CantJudgeReasons, ", ")+" (with --note)")
	f.BoolVar(&o.undo, "undo", false, "take back your latest decision on the item")
	f.StringVar(&o.guidelines, "guidelines", "", "the guidelines `FILE` the decision is made under (default: the config's, else the session's latest version)")
	f.StringVar(&o.via, "via", viaScript, "how the item was reached, `HOW`: order, random, script, plan:ID when following labelling plan ID (gavel plan), or adjudication to settle a disagreement between people")
	cmd.ValidArgsFunction = first(completeExts(sessionExts))
	_ = cmd.RegisterFlagCompletionFunc("cant-judge", cobra.FixedCompletions(sessions.CantJudgeReasons, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("via", cobra.FixedCompletions([]string{viaOrder, viaRandom, viaScript, viaAdjudication}, cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"dimension", "criterion", "note", "tag", "untag"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

// check refuses a call that cannot make one decision, before the session
// is opened.
func (o *labelFlags) check(value *string) error {
	given := func(names ...string) []string {
		var out []string
		for _, n := range names {
			if o.set(n) {
				out = append(out, "--"+n)
			}
		}
		return out
	}
	if o.undo {
		others := given("dimension", "criterion", "note", "tag", "untag", "cant-judge")
		if value != nil {
			others = append([]string{"VALUE"}, others...)
		}
		if len(others) > 0 {
			return usagef("--undo takes back your latest decision on the item and records nothing else: leave out %s, and record the new decision in a second call", strings.Join(others, ", "))
		}
		return nil
	}
	if value == nil && !o.set("note") && len(o.tags) == 0 && len(o.untags) == 0 && o.cantJudge == "" {
		return usagef("nothing to record: give a VALUE, --cant-judge REASON, --note TEXT, --tag NAME or --undo")
	}
	if value == nil {
		if g := given("dimension", "criterion"); len(g) > 0 {
			return usagef("%s says which row VALUE labels, and no VALUE was given", strings.Join(g, " and "))
		}
	}
	if o.set("criterion") && o.criterion < 1 {
		return usagef("--criterion %d: rubric criteria are numbered from 1", o.criterion)
	}
	if o.set("cant-judge") {
		if value != nil {
			return usagef("--cant-judge says the item cannot be judged, and VALUE judges it: give one of them")
		}
		if !slices.Contains(sessions.CantJudgeReasons, o.cantJudge) {
			return usagef("--cant-judge %q: the reasons are %s", o.cantJudge, strings.Join(sessions.CantJudgeReasons, ", "))
		}
		if o.cantJudge == sessions.ReasonOther && strings.TrimSpace(o.note) == "" {
			return usagef(`--cant-judge other needs --note saying why the item cannot be judged, e.g. --note "the question is cut off"`)
		}
	}
	switch o.via {
	case viaOrder, viaRandom, viaScript:
	case viaAdjudication:
		if value == nil {
			return usagef("--via adjudication settles a row with a label: give the VALUE (--cant-judge, --note and --tag alone adjudicate nothing)")
		}
	default:
		if _, ok := sessions.ParsePlanVia(o.via); !ok {
			return usagef("--via %q: how the item was reached is order, random or script, or plan:ID when following labelling plan ID (or adjudication, to settle a disagreement between people)", o.via)
		}
	}
	for i, list := range [][]string{o.tags, o.untags} {
		for k, name := range list {
			name = strings.TrimSpace(name)
			if err := sessions.CheckTagName(name); err != nil {
				return usagef("--%s: %v", []string{"tag", "untag"}[i], err)
			}
			list[k] = name
		}
	}
	for _, name := range o.tags {
		if slices.Contains(o.untags, name) {
			return usagef("--tag %q and --untag %q: put the tag on or take it off, not both", name, name)
		}
	}
	return nil
}

func runLabel(e env, path, id string, value *string, o labelFlags) error {
	if err := o.check(value); err != nil {
		return err
	}
	if pg.IsURL(path) {
		return runLabelTeam(e, path, id, value, o) // a team session (label_team.go)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return usagef("no session %s: make one with gavel review, gavel run or gavel import first", path)
	}
	annotator := strings.TrimSpace(o.annotator)
	if annotator == "" {
		var err error
		if annotator, err = e.annotatorDefault(); err != nil {
			return err
		}
	}
	s, err := sessions.Open(path, sessions.Options{Annotator: annotator})
	if err != nil {
		return err
	}
	defer s.Close()
	return labelOn(e, s, s, path, annotator, id, value, o)
}

// labelOn records the decision in the session s reads (a file, or a team
// session's local copy), writing through w (the file itself, or the team
// session first: label_team.go); path is the session as given (the file,
// or the team session's URL), for messages: shownPath in words, shellArg
// on command lines.
func labelOn(e env, s *sessions.Store, w labelWriter, path, annotator, id string, value *string, o labelFlags) error {
	it, ok, err := s.Item(id)
	if err != nil {
		return err
	}
	if !ok {
		return unknownItem(s, id, path)
	}
	if planID, ok := sessions.ParsePlanVia(o.via); ok && !o.undo {
		if err := checkInPlan(s, planID, id, path); err != nil {
			return err
		}
	}
	if o.undo {
		undone, err := w.UndoItem(id)
		if err != nil {
			return err
		}
		if len(undone) == 0 {
			return fmt.Errorf("%s has no decision of %q on %s left to undo", shownPath(path), annotator, id)
		}
		fmt.Fprintf(e.stderr, "Undone on %s for %s: %s.\n", id, annotator, describeActions(s, undone))
		return nil
	}
	acts, err := o.actions(s, it, value)
	if err != nil {
		return err
	}
	if o.via == viaAdjudication {
		if err := checkAdjudication(s, acts[0], path); err != nil {
			return err
		}
	}
	g, fileErr, err := pickGuidelines(s, o.guidelines)
	switch {
	case err != nil:
		return err
	case fileErr != nil && o.set("guidelines"):
		return fileErr
	case fileErr != nil:
		fmt.Fprintf(e.stderr, "gavel: %v (the config's guidelines); the decision records the session's latest version, if any.\n", fileErr)
	}
	for i := range acts {
		acts[i].Via = o.via
		if g != nil {
			acts[i].Guidelines = g.version.ID
		}
	}
	acts, repeated, err := dropRepeats(s, annotator, id, o.via, acts)
	if err != nil {
		return err
	}
	if len(acts) == 0 {
		fmt.Fprintf(e.stderr, "Nothing recorded on %s for %s, already so: %s.\n", id, annotator, describeActions(s, repeated))
		return nil
	}
	if _, err := w.Record(acts); err != nil {
		return err
	}
	if len(repeated) > 0 {
		fmt.Fprintf(e.stderr, "Left out on %s for %s, already so: %s.\n", id, annotator, describeActions(s, repeated))
	}
	adjudged := ""
	if o.via == viaAdjudication {
		adjudged = " (an adjudication: the item's reference for the judge's statistics)"
	}
	fmt.Fprintf(e.stderr, "Recorded on %s for %s: %s%s.\n", id, annotator, describeActions(s, acts), adjudged)
	return nil
}

// actions are the decision's actions, in the order the screen would
// make them: the label or can't-judge, then the note, then the tags.
func (o *labelFlags) actions(s *sessions.Store, it judge.Item, value *string) ([]sessions.Action, error) {
	var acts []sessions.Action
	noteTaken := false
	if value != nil {
		a, err := o.label(s, it, *value)
		if err != nil {
			return nil, err
		}
		acts = append(acts, a)
	}
	if o.cantJudge != "" {
		a := sessions.Action{Kind: sessions.KindCantJudge, ItemID: it.ID, Reason: o.cantJudge}
		if o.cantJudge == sessions.ReasonOther {
			a.Note, noteTaken = strings.TrimSpace(o.note), true
		}
		acts = append(acts, a)
	}
	if o.set("note") && !noteTaken {
		acts = append(acts, sessions.Action{Kind: sessions.KindNote, ItemID: it.ID, Note: strings.TrimSpace(o.note)})
	}
	if len(o.untags) > 0 {
		known, err := s.TagSet()
		if err != nil {
			return nil, err
		}
		for _, name := range o.untags {
			if !slices.Contains(known, name) {
				return nil, usagef("--untag %q: the session has no such tag (its tags: %s)", name, listOrNone(known))
			}
		}
	}
	if err := checkTagChanges(s, it.ID, o.tags, o.untags); err != nil {
		return nil, err
	}
	for _, name := range o.tags {
		acts = append(acts, sessions.Action{Kind: sessions.KindTag, ItemID: it.ID, Tag: name, Value: 1})
	}
	for _, name := range o.untags {
		acts = append(acts, sessions.Action{Kind: sessions.KindTag, ItemID: it.ID, Tag: name, Value: 0})
	}
	return acts, nil
}

// listOrNone quotes names for a message, "none" for none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(quoteEach(names), ", ")
}

// unknownItem refuses an id the session at path (as given) does not
// have, with the ids it may be a typo of.
func unknownItem(s *sessions.Store, id, path string) error {
	ids, err := s.ItemIDs()
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s has no item %q", shownPath(path), id)
	if near := nearestIDs(id, ids); len(near) > 0 {
		return usagef("%s: did you mean %s?", msg, oneOf(quoteEach(near)))
	}
	return usagef("%s (ids are matched exactly, case included): gavel export %s --only all lists every item's id", msg, shellArg(path))
}

// checkInPlan refuses a label --via plan:ID on an item plan ID did not
// choose, or for a plan the session does not have: the statistics would
// weight it by a probability that does not describe how it was reached.
// path is the session as given.
func checkInPlan(s *sessions.Store, planID int64, id, path string) error {
	chosen, n, items, err := s.PlanChose(planID, id)
	if errors.Is(err, sessions.ErrPlan) {
		return usagef("--via %s: %w", sessions.PlanVia(planID), err)
	}
	if err != nil {
		return err
	}
	if !chosen {
		return usagef("--via %s: plan %d did not choose %q (it chose %d of %d items: gavel plan %s --show %d lists them); label it with --via script",
			sessions.PlanVia(planID), planID, id, n, items, shellArg(path), planID)
	}
	return nil
}
