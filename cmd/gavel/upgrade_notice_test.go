package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/sessions"
)

// lockedBuffer is a bytes.Buffer written by one goroutine and read by
// another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNoticeUpgrades: an upgrade still running when the delay has passed
// says which session it upgrades, from which version to which; one that
// ends before says nothing, then or later.
func TestNoticeUpgrades(t *testing.T) {
	saved := sessions.UpgradeNotice
	t.Cleanup(func() { sessions.UpgradeNotice = saved })

	var quick lockedBuffer
	noticeUpgrades(&quick, time.Hour)
	sessions.UpgradeNotice("small.gavel", 12, 13)()
	if got := quick.String(); got != "" {
		t.Errorf("an upgrade that ended before the delay printed %q", got)
	}

	var slow lockedBuffer
	noticeUpgrades(&slow, 0)
	done := sessions.UpgradeNotice("big.gavel", 12, 13)
	for deadline := time.Now().Add(10 * time.Second); slow.String() == "" && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	done()
	if got := slow.String(); !strings.Contains(got, "upgrading big.gavel from schema v12 to v13") || strings.Count(got, "\n") != 1 {
		t.Errorf("a long upgrade printed %q, want one line naming the session and both versions", got)
	}
}
