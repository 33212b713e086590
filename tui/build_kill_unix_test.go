//go:build unix

package tui

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// Environment of the screen helper child (see TestBuildingScreenHelper).
const (
	buildingHelperEnv = "GAVEL_TUI_BUILDING_HELPER"
	buildingItems     = 60000
)

// out prints the helper's lines whole, from any goroutine.
var out struct {
	sync.Mutex
}

func say(format string, a ...any) {
	out.Lock()
	defer out.Unlock()
	fmt.Printf(format+"\n", a...)
}

// confirming is the session store as the screen's saver sees it, saying
// "confirmed ITEM VALUE" for each label once Record has committed it.
type confirming struct{ s *sessions.Store }

func (c confirming) Record(acts []sessions.Action) ([]sessions.Action, error) {
	got, err := c.s.Record(acts)
	if err == nil {
		for _, a := range got {
			say("confirmed %s %g", a.ItemID, a.Value)
		}
	}
	return got, err
}

func (c confirming) Undo() ([]sessions.Action, error) { return c.s.Undo() }

// TestBuildingScreenHelper is not a test: it is the body of a child
// process that TestQueuedLabelsSurviveKill starts. It runs the review
// screen on a new dataset whose session sessions.BuildSession writes in
// the background (Options.StoreReady), and labels one item after another
// from the first frame on, printing "queued ITEM" for each label made
// while the session is written, until killed.
func TestBuildingScreenHelper(t *testing.T) {
	path := os.Getenv(buildingHelperEnv)
	if path == "" {
		t.Skip("only runs as a child process")
	}
	items := testItems(buildingItems)
	m := New(Options{Annotator: "ann", Dataset: "new.jsonl", Items: items, Runs: []Run{{Info: matchInfo}},
		StoreReady: func() (Recorder, error) {
			if err := sessions.BuildSession(path, sessions.DatasetInfo{Path: "new.jsonl", SHA256: "h"}, items); err != nil {
				return nil, err
			}
			s, err := sessions.Open(path, sessions.Options{Annotator: "ann"})
			if err != nil {
				return nil, err
			}
			say("written")
			return confirming{s}, nil
		}})
	// A small Bubble Tea runtime: commands run in goroutines and their
	// messages come back to Update on this one.
	msgs := make(chan tea.Msg, 256)
	var run func(tea.Cmd)
	run = func(cmd tea.Cmd) {
		if cmd != nil {
			go func() { msgs <- cmd() }()
		}
	}
	handle := func(msg tea.Msg) {
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				run(c)
			}
		default:
			_, cmd := m.Update(msg)
			run(cmd)
		}
	}
	handle(tea.WindowSizeMsg{Width: 100, Height: 30})
	run(awaitStore(m.waitStore))
	say("ready")
	for {
		select {
		case msg := <-msgs:
			handle(msg)
			continue
		default:
		}
		id := m.items[m.cur].ID
		building := m.building()
		handle(keyMsg("y"))
		if building {
			say("queued %s", id)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestQueuedLabelsSurviveKill kills the screen with SIGKILL while the
// session of a new dataset is being written and labels wait for it, and
// again after the queued labels were written and more confirmed: each
// time the session is either absent or opens cleanly, and every label the
// screen confirmed is in it.
func TestQueuedLabelsSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds large sessions")
	}
	dir := t.TempDir()
	for round, confirmedBeforeKill := range []int{0, 1, 40} {
		path := filepath.Join(dir, "s"+strconv.Itoa(round)+".gavel")
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuildingScreenHelper$")
		cmd.Env = append(os.Environ(), buildingHelperEnv+"="+path)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		confirmed := map[string]string{}
		queued := 0
		for lines.Scan() {
			l := lines.Text()
			switch {
			case strings.HasPrefix(l, "queued "):
				queued++
			case strings.HasPrefix(l, "confirmed "):
				f := strings.Fields(l)
				confirmed[f[1]] = f[2]
			case strings.HasPrefix(l, "error"):
				t.Fatalf("round %d: helper: %s", round, l)
			}
			if confirmedBeforeKill == 0 && queued >= 3 || confirmedBeforeKill > 0 && len(confirmed) >= confirmedBeforeKill {
				break
			}
		}
		if confirmedBeforeKill == 0 && len(confirmed) > 0 {
			t.Logf("round %d: the session was written before 3 labels were queued", round)
		}
		if confirmedBeforeKill > 0 && queued == 0 {
			t.Logf("round %d: no label was made while the session was written", round)
		}
		t.Logf("round %d: killed with %d labels queued while writing, %d confirmed", round, queued, len(confirmed))
		cmd.Process.Signal(syscall.SIGKILL)
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: helper did not die by SIGKILL: %v", round, err)
		}

		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			t.Logf("round %d: no session at the path", round)
			if len(confirmed) > 0 {
				t.Errorf("round %d: %d labels confirmed and no session", round, len(confirmed))
			}
			continue
		}
		s, err := sessions.Open(path, sessions.Options{Annotator: "ann"})
		if err != nil {
			t.Fatalf("round %d: reopening after kill -9: %v", round, err)
		}
		if info, ok, err := s.Dataset(); err != nil || !ok || info.Items != buildingItems {
			t.Errorf("round %d: the session holds %d items (%v, %v), want %d", round, info.Items, ok, err, buildingItems)
		}
		labels, err := s.Labels("ann")
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]string{}
		for _, l := range labels {
			have[l.ItemID] = strconv.FormatFloat(l.Value, 'g', -1, 64)
		}
		for id, v := range confirmed {
			if have[id] != v {
				t.Errorf("round %d: confirmed label %s=%s is %q in the session", round, id, v, have[id])
			}
		}
		s.Close()
	}
}
