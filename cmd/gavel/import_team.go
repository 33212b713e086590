package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/gavel-dev/gavel/sessions/pg"
)

// `gavel import DATASET --session postgres://…?session=NAME` makes a new
// team session from a dataset: the file is imported into a session file
// of its own in a temporary folder, exactly as `gavel import DATASET
// --session FILE` would, and copied whole into PostgreSQL
// (pg.CopyFromSQLite, one transaction), so the team session holds what
// the file import holds. An existing team session is not added to: that
// would take the import's every write done again on PostgreSQL's side;
// the message says how to go through a file instead.

// importTeam imports path into the new team session o.session names.
func importTeam(e env, path string, o importFlags) error {
	raw := o.session
	shown := pg.Redact(raw)
	if o.join {
		return usagef("--join adds columns to an existing session, and gavel import writes a team session only when it is new: copy %s to a file (gavel copy URL FILE.gavel), join %s to the file, then copy it back (gavel copy FILE.gavel URL --replace) while nobody labels or judges", shown, path)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dst, err := pg.Connect(ctx, raw)
	if err != nil {
		return err
	}
	defer dst.Close()
	if err := dst.Reach(ctx); err != nil {
		return err
	}
	exists, err := dst.Exists(ctx)
	if err != nil {
		return err
	}
	shown = dst.Target().Shown
	if exists {
		return fmt.Errorf("the team session %s exists already, and gavel import only makes new ones: import under another session name, or copy it to a file (gavel copy URL FILE.gavel), import %s there (gavel import %s --session FILE.gavel), then copy it back (gavel copy FILE.gavel URL --replace) while nobody labels or judges",
			shown, path, shellWordArg(path))
	}
	tmp, err := os.MkdirTemp("", "gavel-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	o.session = filepath.Join(tmp, dst.Target().Session+".gavel")
	o.shown = shown
	o.then = func() error {
		_, err := pg.CopyFromSQLite(ctx, o.session, dst, pg.CopyOptions{})
		return err
	}
	return runImport(e, path, o)
}
