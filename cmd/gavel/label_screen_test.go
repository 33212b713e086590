package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// gavel label writes the same actions as the review screen for the same
// decisions: labels, can't judge (a reason, other with its note), a tag,
// a note, and undos — the same kinds, items, rows, values, notes, reasons,
// tags, guidelines versions, provenance and groups (ids, times, the
// sitting, when the item appeared and whether the verdict was shown are
// the screen's own).
func TestLabelWritesWhatTheScreenWrites(t *testing.T) {
	dir := t.TempDir()
	var rows strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&rows, `{"id":"q%d","question":"%d+%d?","gold":"%d","prediction":"%d"}`+"\n", i, i, i, 2*i, 2*i+i%2)
	}
	data := writeFile(t, dir, "ev.jsonl", rows.String())
	g := writeFile(t, dir, "g.md", "# Guidelines\nA sum off by one is wrong.\n")

	// Each decision: the keys on the screen (the items in dataset order,
	// each decision moving on as the screen does), and the same decision
	// as gavel label's arguments after SESSION.
	decisions := []struct {
		keys  []string
		label []string
	}{
		{[]string{"y"}, []string{"q1", "YES"}},
		{[]string{"n"}, []string{"q2", "NO"}},
		{[]string{"x", "1"}, []string{"q3", "--cant-judge", "gold-wrong"}},
		{append(append([]string{"x", "4"}, strings.Split("cut-off", "")...), "enter"), []string{"q4", "--cant-judge", "other", "--note", "cut-off"}},
		{[]string{"T", "1", "esc"}, []string{"q5", "--tag", "format"}},
		{append(append([]string{"c"}, strings.Split("hmm", "")...), "enter"), []string{"q5", "--note", "hmm"}},
		{[]string{"u"}, []string{"q5", "--undo"}},
		{[]string{"y"}, []string{"q5", "YES"}},
		{[]string{"y"}, []string{"q6", "YES"}},
		{[]string{"u"}, []string{"q6", "--undo"}},
	}

	screen := filepath.Join(dir, "screen.gavel")
	e, _, errb, _ := testEnv(t)
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m = send(t, m, tea.WindowSizeMsg{Width: 160, Height: 50})
		m = runCommand(t, m, m.Init(), 0)
		m = send(t, m, screenKey("esc")) // the new guidelines, shown once
		for _, d := range decisions {
			for _, k := range d.keys {
				m = send(t, m, screenKey(k))
			}
		}
		return m, nil
	}
	if code := execute(context.Background(), e, []string{"review", data, "--session", screen, "--annotator", "ana",
		"--guidelines", g, "--tags", "format,too strict"}); code != 0 {
		t.Fatalf("review: exit %d: %s", code, errb)
	}

	script := filepath.Join(dir, "script.gavel")
	if code, _, errs := run(t, "run", data, "--session", script); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	for _, d := range decisions {
		args := append([]string{"label", script}, d.label...)
		args = append(args, "--annotator", "ana", "--guidelines", g)
		if d.label[1] != "--undo" {
			args = append(args, "--via", "order")
		}
		if code, _, errs := run(t, args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", d.label, code, errs)
		}
	}

	got, want := actionRows(t, script, "ana"), actionRows(t, screen, "ana")
	if len(want) == 0 {
		t.Fatal("the screen recorded nothing")
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gavel label and the screen differ\nlabel:\n%s\nscreen:\n%s", lines(got), lines(want))
	}
}

// screenKey is a key press as the terminal sends it.
func screenKey(k string) tea.KeyPressMsg {
	switch k {
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	return keyPress(k)
}

func lines[T any](xs []T) string {
	var b strings.Builder
	for _, x := range xs {
		fmt.Fprintln(&b, x)
	}
	return b.String()
}
