package pgtest

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var shared struct {
	sync.Mutex
	srv *Server
	err error
}

// Shared returns the test binary's shared server, starting it on first
// use. Tests sharing it keep apart by working in sessions of their own
// (Name); a test that stops or restarts a server uses Start instead. Were
// a test to stop it anyway, the next Shared starts it again.
//
// The server is stopped and its directory removed by Main (or Close) in
// TestMain, else when the test binary exits (by its watchdog).
func Shared(t testing.TB) *Server {
	t.Helper()
	bin := binDir(t)
	shared.Lock()
	defer shared.Unlock()
	if shared.err != nil {
		t.Fatalf("pgtest: the shared server did not start: %v", shared.err)
	}
	if shared.srv == nil {
		shared.srv, shared.err = start(bin)
		if shared.err != nil {
			t.Fatalf("pgtest: %v", shared.err)
		}
	}
	if err := shared.srv.StartErr(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			shared.srv.logTail(t)
		}
	})
	return shared.srv
}

// Main runs the tests, then Close, then exits: a package's
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if err := Close(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
	}
	os.Exit(code)
}

// Close stops the shared server and removes its directory and the cluster
// template, for a TestMain of its own (after m.Run). Shared may start a new
// server afterwards.
func Close() error {
	shared.Lock()
	srv := shared.srv
	shared.srv, shared.err = nil, nil
	shared.Unlock()
	var err error
	if srv != nil {
		err = srv.Close()
	}
	template.Lock()
	defer template.Unlock()
	if template.lifeline != nil {
		template.lifeline.Close() // its watchdog removes it
		template.watchdog.Wait()
		template.dir, template.lifeline, template.watchdog = "", nil, nil
	}
	return err
}

var names atomic.Int64

// Name is a session name for this test, unique in the test binary:
// "t", a number, "_", then the test's name in lower case with anything but
// letters and digits as _, cut to the 40 characters a session name may
// have. For example t7_testcopyroundtrip_nul.
func Name(t testing.TB) string {
	prefix := fmt.Sprintf("t%d_", names.Add(1))
	var b strings.Builder
	b.WriteString(prefix)
	for _, r := range strings.ToLower(t.Name()) {
		if b.Len() >= 40 {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
