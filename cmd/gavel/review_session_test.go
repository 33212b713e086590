package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// gavel review S.gavel reviews the items the session holds, its dataset
// file gone: the earlier label is there, a new one is saved, and the
// messages say the file is not read.
func TestReviewSessionFile(t *testing.T) {
	dir := t.TempDir()
	data, session := writeDataset(t, dir, 12), filepath.Join(dir, "data.gavel")
	labelFirst := func(t *testing.T, argv []string) (tea.Model, string) {
		t.Helper()
		e, _, errb, _ := testEnv(t)
		var final tea.Model
		var messages string
		e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
			m = send(t, m, tea.WindowSizeMsg{Width: 160, Height: 50})
			m = runCommand(t, m, m.Init(), 0)
			m = send(t, m, keyPress("y")) // the first item not reviewed yet
			m = send(t, m, keyPress("m"))
			messages = ansi.Strip(m.View().Content)
			m = send(t, m, screenKey("esc"))
			final = m
			return m, nil
		}
		if code := execute(context.Background(), e, argv); code != 0 {
			t.Fatalf("%q: exit %d: %s", argv, code, errb)
		}
		if !strings.Contains(errb.String(), "Saved in "+session) {
			t.Errorf("%q said %q", argv, errb)
		}
		return final, messages
	}
	labelFirst(t, []string{"review", data, "--session", session, "--annotator", "ana"})
	if err := os.Rename(data, data+".moved"); err != nil {
		t.Fatal(err)
	}
	m, messages := labelFirst(t, []string{"review", session, "--annotator", "ana"})
	if done, total := m.(*tui.Model).Progress(); done != 2 || total != 12 {
		t.Errorf("reviewed %d of %d, want 2 of 12", done, total)
	}
	if !strings.Contains(messages, "is not read") {
		t.Errorf("the messages do not say the dataset file is not read:\n%s", messages)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	labels, err := s.Labels("ana")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range labels {
		got = append(got, l.ItemID)
	}
	if strings.Join(got, " ") != "q0 q1" {
		t.Errorf("labels on %v, want q0 q1", got)
	}
}

// What gavel review refuses beside a session file, and the SQLite file
// that is no session.
func TestReviewSessionFileRefusals(t *testing.T) {
	dir := t.TempDir()
	data, session := writeDataset(t, dir, 3), filepath.Join(dir, "data.gavel")
	if code, _, errs := run(t, "import", data, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	other := filepath.Join(dir, "other.db")
	if err := os.WriteFile(other, []byte("SQLite format 3\x00"+strings.Repeat("\x00", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		argv []string
		code int
		want string
	}{
		{"another --session", []string{"review", session, "--session", filepath.Join(dir, "x.gavel")}, 2, "is a session: review it alone"},
		{"--map", []string{"review", session, "--map", "gold=answer"}, 2, "--map and --format are not used"},
		{"an SQLite file of another program", []string{"review", other}, 1, "is a SQLite database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, tc.argv...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, %q; want exit %d and %q", code, errs, tc.code, tc.want)
			}
		})
	}
}
