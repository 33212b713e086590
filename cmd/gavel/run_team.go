package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// `gavel run postgres://…?session=NAME` (SPEC "Teams": only gavel run
// judges a team session): the judges run over the items the team session
// holds, on its local replica (sessions/pg), as over a session file. Each
// run and each batch of verdicts is written to PostgreSQL first, under
// ids the team session gives, then pulled into the replica
// (pg.Replica.Upstream), so the reviewers' screens elsewhere show the
// verdicts as they are made, and a run started again (here or on another
// machine) judges only what the team session has no verdict for. The
// response cache stays in the replica, on this machine. One gavel run at
// a time judges a team session (pg.Store.LockRun).

// runTeam judges the team session at raw.
func runTeam(ctx context.Context, e env, raw string, js judgeSet, cfg llm.Config, o runFlags) error {
	if !pg.IsURL(raw) {
		return usagef("a team session holds its items: judge them with gavel run %s --judge NAME (no dataset file)", shellArg(o.session))
	}
	if o.session != "" {
		return usagef("gavel run %s judges the team session the URL names: leave out --session", shellArg(raw))
	}
	src, err := pg.Connect(ctx, raw)
	if err != nil {
		return err
	}
	defer src.Close()
	where := src.Target().Shown
	if o.dryRun {
		return dryRunTeam(ctx, e, raw, src.Target(), js, o)
	}
	release, err := src.LockRun(ctx)
	if err != nil {
		return err
	}
	defer release()
	fmt.Fprintf(e.stderr, "Opening the team session %s…\n", where)
	rv, rep, err := pg.OpenReview(ctx, src, runAnnotator)
	if err != nil {
		return err
	}
	defer rv.Store.Close()
	rv.Store.SetUpstream(rep.Upstream())
	ds := teamDataset(rv.Info, rv.Items, src.Target().Session)
	warnings, err := checkJudgeFields(js.entries, ds)
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, w)
	}
	if err != nil {
		return err
	}
	if o.batch {
		fmt.Fprintln(e.stderr, "gavel: the Batch API's batches are followed in this machine's copy of the team session: if this run stops before they end, run it again here to collect them (from another machine they would be sent again).")
	}
	o.session, o.datasetName = where, ds.Name
	// An error names the team session, not this machine's copy of it.
	return namingTeam(judgeSession(ctx, e, rv, js, cfg, o), rv.Store.Path(), raw)
}

// teamDataset is the dataset a team session's items came from, as the
// checks of a run's judges read it: named after its file, else after the
// session.
func teamDataset(info sessions.DatasetInfo, items []judge.Item, session string) *dataset.Dataset {
	name := filepath.Base(info.Path)
	if name == "." || name == "" || name == string(filepath.Separator) {
		name = session
	}
	return &dataset.Dataset{Path: info.Path, Name: name, Format: info.Format, SHA256: info.SHA256, Mapping: info.Mapping, Items: items}
}

// dryRunTeam counts what gavel run would send on the team session, on
// its local copy brought up to date; nothing is written to the team
// session.
func dryRunTeam(ctx context.Context, e env, raw string, t pg.Target, js judgeSet, o runFlags) error {
	path, err := pg.SyncReplica(ctx, raw)
	if err != nil {
		return err
	}
	st, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	info, _, err := st.Dataset()
	if err != nil {
		st.Close()
		return err
	}
	items, err := st.Items()
	st.Close()
	if err != nil {
		return err
	}
	o.session, o.shown = path, t.Shown
	return dryRun(ctx, e, teamDataset(info, items, t.Session), js, o)
}

// where names the session in messages: the team session's URL (no
// password) when the run works on its local copy, else the file.
func (o runFlags) where() string { return cmp.Or(o.shown, o.session) }
