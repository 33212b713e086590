package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A --tags value that is refused stops the command before anything is
// made: no session file (demo or review, new file or a dataset's first
// session), no screen.
func TestRefusedTagsCreateNothing(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "ev.jsonl", `{"id":"a","question":"2+2?","gold":"4","prediction":"4"}`+"\n")
	for _, tc := range []struct {
		name string
		args func(session string) []string
	}{
		{"demo", func(s string) []string { return []string{"--session", s} }},
		{"review", func(s string) []string { return []string{"review", data, "--session", s} }},
	} {
		for _, bad := range []string{"bad\x1b[31m", "ok,zw\u200bsp", "a\tb"} {
			session := filepath.Join(t.TempDir(), "X2.gavel")
			e, _, errb, _ := testEnv(t)
			e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
				t.Errorf("%s --tags %q: the screen opened", tc.name, bad)
				return m, nil
			}
			code := execute(context.Background(), e, append(tc.args(session), "--tags", bad))
			if code != 2 || !strings.Contains(errb.String(), "--tags") {
				t.Errorf("%s --tags %q: exit %d: %s", tc.name, bad, code, errb)
			}
			if _, err := os.Stat(session); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s --tags %q: the session file was created (%v)", tc.name, bad, err)
			}
		}
	}
}
