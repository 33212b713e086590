package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/match"
	"github.com/gavel-dev/gavel/report"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// `gavel review postgres://…?session=NAME` (SPEC "Teams"): a team member
// reviews a session kept in PostgreSQL. The session is copied into a
// local replica (sessions/pg: made once, then only what is new is
// pulled), the review screen runs on it as on any session file, each key
// press is written to PostgreSQL first and then into the replica, and
// what the others write comes in within seconds (LISTEN, and a poll every
// 2 s) as tui.TeamUpdate messages: their labels beside the verdict, the
// verdicts of a `gavel run` elsewhere, the team's progress and agreement
// on the statistics screen. With a queue (gavel assign) the review
// follows the items claimed for this person and gives back what is left
// undecided on quitting. Only `gavel run` judges a team session.

// reviewTeam reviews the team session at raw.
func reviewTeam(ctx context.Context, e env, raw string, o reviewFlags) error {
	if o.annotator == "" {
		a, err := e.annotatorDefault()
		if err != nil {
			return err
		}
		o.annotator = a
	}
	if o.plan.plan != "" && o.adjudicate {
		return usagef("--adjudicate follows the adjudication queue, not a labelling plan: leave out --plan")
	}
	src, err := pg.Connect(ctx, raw)
	if err != nil {
		return err
	}
	defer src.Close()
	where := src.Target().Shown
	if !o.defaultJudge && !(len(o.judges) == 1 && o.judges[0] == match.Name) {
		fmt.Fprintf(e.stderr, "gavel: only gavel run judges a team session: the review shows the verdicts %s holds (--judge is not used here).\n", where)
	}
	// One screen per person on a team session (pg.LockScreen): a second
	// one, here or elsewhere, would get out of step with the first.
	unlock, err := src.LockScreen(ctx, o.annotator)
	if err != nil {
		return err
	}
	defer unlock()
	fmt.Fprintf(e.stderr, "Opening the team session %s…\n", where)
	rv, rep, err := pg.OpenReview(ctx, src, o.annotator)
	if err != nil {
		return err
	}
	defer rv.Store.Close()

	runs, err := teamRuns(ctx, rv, nil)
	if err != nil {
		return err
	}
	history, err := rv.Store.Actions(o.annotator)
	if err != nil {
		return err
	}
	// A blind queue (review_blind.go) keeps the others' labels off the
	// screen: they are not even read.
	st, qerr := src.QueueSettings(ctx)
	hide := !o.adjudicate && (st.Blind || qerr != nil && !errors.Is(qerr, sessions.ErrNoQueue))
	var others []sessions.Label
	var othersCantJudge []sessions.CantJudge
	if !hide {
		if others, err = rv.Store.LabelsExcept(o.annotator); err != nil {
			return err
		}
		if othersCantJudge, err = cantJudgesExcept(rv.Store, o.annotator); err != nil {
			return err
		}
	}
	name := filepath.Base(rv.Info.Path)
	if name == "." || name == "" {
		name = src.Target().Session
	}
	notices := []string{fmt.Sprintf("Team session %s: your labels are saved there first, and the others' appear beside the verdict as they save them. Only gavel run judges it.", where)}
	if hide {
		notices[0] = fmt.Sprintf("Team session %s: your labels are saved there first. Only gavel run judges it.", where)
	}

	// The queue, when the session has one and this person is in its team.
	feed := &teamFeed{src: src, rep: rep, rv: rv, annotator: o.annotator, hideOthers: hide, ch: make(chan tui.TeamUpdate, 4)}
	for _, r := range runs {
		feed.known = append(feed.known, r.ID)
	}
	team := &tui.Team{Where: where, Updates: feed.ch}
	switch err := qerr; {
	case errors.Is(err, sessions.ErrNoQueue):
	case err != nil:
		notices = append(notices, "The team's queue could not be read ("+err.Error()+"): the review shows every item.")
	case o.adjudicate:
		feed.queue = true
	case !slices.Contains(st.Annotators, o.annotator):
		feed.queue = true
		notices = append(notices, fmt.Sprintf("The session's queue deals its items to %s; %s is not among them, so the review shows every item (--annotator NAME to review as one of them).",
			joinNames(st.Annotators), o.annotator))
	default:
		feed.queue = true
		team.Claim = func(n int) ([]string, error) {
			ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			return src.Claim(ctx, o.annotator, n)
		}
	}

	opts := tui.Options{
		Store:           rep,
		Annotator:       o.annotator,
		Dataset:         name,
		Items:           rv.Items,
		Runs:            runs,
		History:         history,
		Others:          others,
		OthersCantJudge: othersCantJudge,
		Notices:         notices,
		About:           fmt.Sprintf("team session %s · local copy %s", where, rv.Store.Path()),
		Stats:           statsOf(rv.Store),
		Report:          teamReport(rv.Store, src.Target().Session),
		Blind:           o.blind,
		Team:            team,
	}
	if err := teamLabelling(ctx, rep, o, &opts); err != nil {
		return err
	}
	if err := o.plan.options(rv.Store, &opts); err != nil {
		return namingTeam(err, rv.Store.Path(), raw) // an unknown plan, named on the team session
	}
	o.adjudicateOptions(&opts)
	blindQueueOptions(st, qerr, o, &opts)

	fctx, stop := context.WithCancel(ctx)
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		u, ok := feed.update(fctx, pg.Pulled{}, nil, true)
		feed.send(fctx, u, ok)
		rep.Follow(fctx, func(p pg.Pulled, err error) {
			u, ok := feed.update(fctx, p, err, false)
			feed.send(fctx, u, ok)
		})
	}()
	final, err := e.runTUI(ctx, tui.New(opts))
	stop()
	<-followed
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the review screen could not run (%w): it needs a terminal; your labels are in %s", err, where)
	}
	if fm, ok := final.(*tui.Model); ok && team.Claim != nil {
		if ids := fm.Claimed(); len(ids) > 0 {
			rctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			if err := src.Release(rctx, o.annotator, ids); err != nil {
				fmt.Fprintf(e.stderr, "gavel: could not give back %s claimed for you: %s; they return to the queue when the claim times out in %s.\n",
					count(len(ids), "item"), releaseWhy(err), claimTimeout(st.ClaimTimeout))
			}
			cancel()
		}
	}
	return finalReport(e, final, where)
}

// releaseWhy says in a few words why claims could not be given back: the
// server not answering, else the error's first line.
func releaseWhy(err error) string {
	var na *pg.NotAnsweringError
	if errors.As(err, &na) {
		return "PostgreSQL at " + na.Address + " is not answering"
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return strings.TrimSpace(msg)
}

// joinNames lists names for a message.
func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " and "
		default:
			out += ", "
		}
		out += n
	}
	return out
}

// teamRuns are the session's judges as the screen shows them, with the
// verdicts the replica holds; only those not in skip (run ids) when given.
func teamRuns(ctx context.Context, rv *sessions.Review, skip []int64) ([]tui.Run, error) {
	all, err := rv.Store.Runs()
	if err != nil {
		return nil, err
	}
	names := sessions.RunNames(all)
	var out []tui.Run
	for _, r := range all {
		if slices.Contains(skip, r.ID) {
			continue
		}
		st, err := rv.ResumeRun(ctx, r, nil, judge.PoolOptions{})
		if err != nil {
			return nil, err
		}
		out = append(out, tui.Run{Info: r.Info, Key: names[r.ID], ID: r.ID, Verdicts: st.Verdicts, Swapped: st.Swapped})
	}
	return out, nil
}

// teamLabelling fills the options of SPEC "Labelling well" on a team
// session: tags named with --tags and the guidelines file are written to
// the team session first (an id the replica gave itself would be someone
// else's there), then the screen's options come from the replica.
func teamLabelling(ctx context.Context, rep *pg.Replica, o reviewFlags, opts *tui.Options) error {
	tags, err := sessions.ParseTagList(o.label.tags)
	if err != nil {
		return usagef("--tags: %v", err)
	}
	if err := rep.AddTags(ctx, tags); err != nil {
		return err
	}
	s := rep.Local()
	if opts.Tags, err = s.TagSet(); err != nil {
		return err
	}
	isNew := false
	if o.label.guidelines != "" {
		if text, err := readGuidelines(o.label.guidelines); err == nil {
			if isNew, err = rep.AddGuidelines(ctx, text); err != nil {
				return err
			}
		} // else screenGuidelines says why the file is not shown
	}
	g, notices, err := screenGuidelines(s, o.annotator, o.label.guidelines)
	if err != nil {
		return err
	}
	if g != nil && isNew {
		g.First = true // new to the team session: shown once on opening
	}
	opts.Guidelines = g
	opts.Notices = append(opts.Notices, notices...)
	o.label.shares(opts)
	return nil
}

// teamReport writes the report of a team session into the working
// folder, named after the session (the replica lives in a cache folder).
func teamReport(s *sessions.Store, session string) func() (string, error) {
	return func() (string, error) {
		dir, err := os.Getwd()
		if err != nil {
			return "", err
		}
		path := report.DefaultPath(filepath.Join(dir, session+".gavel"), "html")
		_, err = report.Session(s, path, report.Options{Version: version(), Generated: time.Now(), Stats: stats.Options{Seed: statsSeed}, MaxDisagreements: report.DefaultMaxDisagreements})
		return path, err
	}
}

// teamFeed turns what the replica's pulls bring into updates for the
// screen.
type teamFeed struct {
	src       *pg.Store
	rep       *pg.Replica
	rv        *sessions.Review
	annotator string
	// hideOthers: a blind queue; the others' labels are not read, only
	// said to have changed (the statistics' figures follow them).
	hideOthers bool
	queue      bool    // the session has a queue: progress from it
	known      []int64 // the runs on screen
	ch         chan tui.TeamUpdate
	failing    bool
	progress   []tui.TeamProgress
	pulls      int
}

// progressEvery is how many pulls (of pollEvery) may pass without a new
// action before the queue's progress is read again (claims change it).
const progressEvery = 5

// update is the screen's update for a pull (first: the one when the
// screen opens, with the team's progress); ok false when there is nothing
// to say.
func (f *teamFeed) update(ctx context.Context, p pg.Pulled, err error, first bool) (u tui.TeamUpdate, ok bool) {
	if err != nil {
		f.failing = true
		return tui.TeamUpdate{Err: err}, true
	}
	ok = f.failing || first
	f.failing = false
	f.pulls++
	fail := func(err error) (tui.TeamUpdate, bool) {
		f.failing = true
		return tui.TeamUpdate{Err: err}, true
	}
	theirs := 0
	for a, n := range p.ActionsBy {
		if a != f.annotator {
			theirs += n
		}
	}
	s := f.rv.Store
	if theirs > 0 && f.hideOthers {
		u.OthersChanged, ok = true, true
	} else if theirs > 0 {
		if u.Others, err = s.LabelsExcept(f.annotator); err != nil {
			return fail(err)
		}
		if u.OthersCantJudge, err = cantJudgesExcept(s, f.annotator); err != nil {
			return fail(err)
		}
		u.OthersChanged, ok = true, true
	}
	if len(p.Runs) > 0 {
		runs, err := teamRuns(ctx, f.rv, f.known)
		if err != nil {
			return fail(err)
		}
		for _, r := range runs {
			f.known = append(f.known, r.ID)
		}
		u.Runs, ok = runs, ok || len(runs) > 0
	}
	if len(p.Verdicts) > 0 {
		byRun, err := s.CurrentVerdictsOf(p.Verdicts)
		if err != nil {
			return fail(err)
		}
		ids := make([]int64, 0, len(byRun))
		for id := range byRun {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			u.Verdicts = append(u.Verdicts, tui.RunVerdicts{RunID: id, Verdicts: byRun[id]})
		}
		ok = ok || len(ids) > 0
	}
	if p.Rows["session_tags"] > 0 {
		if u.Tags, err = s.TagSet(); err != nil {
			return fail(err)
		}
		ok = true
	}
	if first || len(p.ActionsBy) > 0 || (f.queue && f.pulls%progressEvery == 0) {
		prog, err := f.readProgress(ctx)
		if err != nil {
			return fail(err)
		}
		if first || !slices.Equal(prog, f.progress) {
			f.progress = prog
			u.Progress = prog
			if u.Progress == nil {
				u.Progress = []tui.TeamProgress{}
			}
			ok = true
		}
	}
	return u, ok
}

// readProgress is each person's progress: the queue's slots, or without
// a queue the items each decided.
func (f *teamFeed) readProgress(ctx context.Context) ([]tui.TeamProgress, error) {
	if f.queue {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		qp, err := f.src.Progress(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]tui.TeamProgress, len(qp))
		for i, p := range qp {
			out[i] = tui.TeamProgress{Annotator: p.Annotator, Assigned: p.Assigned, Claimed: p.Claimed, Done: p.Done, Taken: p.Taken, Left: p.Left}
		}
		return out, nil
	}
	decided, err := f.rv.Store.DecidedItems()
	if err != nil {
		return nil, err
	}
	out := make([]tui.TeamProgress, 0, len(decided))
	for a, n := range decided {
		out = append(out, tui.TeamProgress{Annotator: a, Done: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Annotator < out[j].Annotator })
	return out, nil
}

// send gives an update to the screen, waiting for it to take it.
func (f *teamFeed) send(ctx context.Context, u tui.TeamUpdate, ok bool) {
	if !ok {
		return
	}
	select {
	case f.ch <- u:
	case <-ctx.Done():
	}
}
