package main

import (
	"context"
	"fmt"
	"os"

	"github.com/gavel-dev/gavel/sessions"
)

// `gavel review S.gavel`: a session file holds its items, as a team
// session does, so it is reviewed on them without its dataset file (moved,
// renamed, on another machine, or sent along with the session). The file
// is not read: a change to it is not seen, and the screen says so. Review
// the dataset with --session to take a change in.

// reviewSessionFile reviews the session at path on its own items.
func reviewSessionFile(ctx context.Context, e env, path string, o reviewFlags) error {
	if o.session != "" {
		if same, err := samePath(o.session, path); err != nil || !same {
			return usagef("%s is a session: review it alone (gavel review %s), or give the dataset file and --session %s", shownPath(path), shellArg(path), shellArg(o.session))
		}
	}
	if o.data.mapping != "" || o.data.format != "" {
		return usagef("%s is a session: it holds its items as they were mapped when it was made, so --map and --format are not used; to map the file again, review it with gavel review DATASET --map … --session NEW.gavel", shownPath(path))
	}
	o.session = path
	if err := o.plan.check(o.session); err != nil {
		return err
	}
	if err := o.checkAdjudicate(false); err != nil {
		return err
	}
	if o.annotator == "" {
		a, err := e.annotatorDefault()
		if err != nil {
			return err
		}
		o.annotator = a
	}
	rv, err := sessions.ReopenStored(path, o.annotator, firstPage)
	if err != nil {
		return err
	}
	if st, err := os.Stat(rv.Info.Path); err == nil {
		limitMemory(rv.Info.Items, st.Size()) // as reopenUnchanged does
	}
	ds := storedDataset(rv, rv.Info.Path)
	rv.Notices = append(rv.Notices, fmt.Sprintf("Reviewing the items %s holds, as it last read them: %s is not read (gavel review DATASET --session %s takes a change in).",
		shownPath(path), shownPath(rv.Info.Path), shellArg(path)))
	return review(ctx, e, ds, o, rv)
}
