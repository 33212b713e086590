package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gavel-dev/gavel/sessions"
)

// upgradeNoticeAfter is how long an upgrade of an older session runs
// before gavel says it is upgrading: a small session's upgrade ends
// before, and nothing is printed.
const upgradeNoticeAfter = 300 * time.Millisecond

// noticeUpgrades makes every upgrade of an older session that lasts more
// than after (upgradeNoticeAfter) say so on w (stderr) while it runs: on a large
// session it takes seconds, before a screen or a result can show. Nothing
// is written once the upgrade has ended, so the line never lands in the
// review's screen.
func noticeUpgrades(w io.Writer, after time.Duration) {
	sessions.UpgradeNotice = func(path string, from, to int) func() {
		var mu sync.Mutex
		ended := false
		t := time.AfterFunc(after, func() {
			mu.Lock()
			defer mu.Unlock()
			if !ended {
				fmt.Fprintf(w, "gavel: upgrading %s from schema v%d to v%d (once; a large session takes a few seconds)…\n", path, from, to)
			}
		})
		return func() {
			t.Stop()
			mu.Lock()
			ended = true
			mu.Unlock()
		}
	}
}
