package main

import (
	"context"
	"fmt"
	"os"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
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
	limitMemory(rv.Info.Items, plainFileSize(rv.Info.Path))
	ds := &dataset.Dataset{
		Path:    rv.Info.Path,
		Name:    rv.Info.Path,
		Format:  rv.Info.Format,
		Mapping: rv.Info.Mapping,
		SHA256:  rv.Info.SHA256,
		Items:   wholeFields(rv.Items),
	}
	rv.Notices = append(rv.Notices, fmt.Sprintf("Reviewing the items %s holds, as it last read them: %s is not read (gavel review DATASET --session %s takes a change in).",
		shownPath(path), shownPath(rv.Info.Path), shellArg(path)))
	return review(ctx, e, ds, o, rv)
}

// plainFileSize is the size of the dataset file at path, the measure of a
// review's memory (limitMemory), when it is there and not gzip-compressed;
// else 0, for no limit.
func plainFileSize(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var head [2]byte
	if n, _ := f.Read(head[:]); n == 2 && head == [2]byte{0x1f, 0x8b} {
		return 0
	}
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}
