package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/tui"
)

func TestParseShare(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  string
	}{
		{"5%", 0.05, ""},
		{" 30 % ", 0.3, ""},
		{"0.05", 0.05, ""},
		{"0", 0, ""},
		{"100%", 1, ""},
		{"1", 1, ""},
		{"5", 0, "for a percentage write 5%"},
		{"150%", 0, "between 0% and 100%"},
		{"-1%", 0, "between 0% and 100%"},
		{"lots", 0, "a percentage such as 5% or a fraction such as 0.05"},
		{"NaN", 0, "not a share"},
	} {
		got, err := parseShare(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("parseShare(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseShare(%q) error %v, want %q", tc.in, err, tc.err)
		}
	}
}

// A guidelines file that is missing, not a file, binary or over 1 MB is
// refused with what to do.
func TestReadGuidelines(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          string // in the error; "" for none
	}{
		{"ok.md", "# Guidelines\nLabel YES when the answer is right.\n", ""},
		{"empty.md", "", ""},
		{"bin.md", "# G\x00\x01\x02", "is not text"},
		{"latin1.md", "caf\xe9", "is not text"},
		{"big.md", strings.Repeat("a", maxGuidelinesBytes+1), "is over 1 MB"},
		{"exactly.md", strings.Repeat("a", maxGuidelinesBytes), ""},
	} {
		path := writeFile(t, dir, tc.name, tc.content)
		text, err := readGuidelines(path)
		switch {
		case tc.want == "" && (err != nil || text != tc.content):
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := readGuidelines(filepath.Join(dir, "none.md")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing: %v", err)
	}
	if _, err := readGuidelines(dir); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("a folder: %v", err)
	}
}

// The screen's options of SPEC "Labelling well" for an open session, in a
// sequence of openings: the guidelines on screen, whether they are new,
// how many of this person's labels were made under older ones and what
// the message log says; the tag set; the shares.
func TestLabellingOptions(t *testing.T) {
	dir := t.TempDir()
	session := labelSession(t, dir)
	v1 := writeFile(t, dir, "v1.md", "# Guidelines\nv1\n")
	v2 := writeFile(t, dir, "v2.md", "# Guidelines\nv2\n")
	bad := writeFile(t, dir, "bad.md", "\x00\x01")
	label := func(annotator, item string) {
		t.Helper()
		if code, _, errs := run(t, "label", session, item, "YES", "--annotator", annotator); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	type want struct {
		id           int64
		first        bool
		older        int
		path         string
		notices      []string
		tags         []string
		noGuidelines bool
	}
	steps := []struct {
		name  string
		flags labellingFlags
		then  func() // labels made after this opening
		want  want
	}{
		{"nothing yet", labellingFlags{}, nil, want{noGuidelines: true}},
		{"a missing file", labellingFlags{guidelines: filepath.Join(dir, "none.md")}, nil,
			want{noGuidelines: true, notices: []string{"none.md does not exist: check --guidelines (or the config's guidelines); the review opens without it."}}},
		{"the first version, tags", labellingFlags{guidelines: v1, tags: "format, too strict,,format"}, func() { label("ana", "q1"); label("ana", "q2"); label("bo", "q1") },
			want{id: 1, first: true, path: v1, tags: []string{"format", "too strict"}}},
		{"the same again", labellingFlags{guidelines: v1, tags: "hallucinated gold"}, nil,
			want{id: 1, path: v1, tags: []string{"format", "too strict", "hallucinated gold"}}},
		{"changed: ana's two labels are older", labellingFlags{guidelines: v2}, nil,
			want{id: 2, first: true, older: 2, path: v2, tags: []string{"format", "too strict", "hallucinated gold"},
				notices: []string{"The guidelines changed: 2 of your labels were made under an older version; the filter 're-review: older guidelines' lists them."}}},
		{"reopened without the file: the latest version", labellingFlags{}, func() { label("ana", "q1") },
			want{id: 2, older: 2, path: session + " (guidelines version 2)", tags: []string{"format", "too strict", "hallucinated gold"},
				notices: []string{"Guidelines: 2 of your labels were made under an older version; the filter 're-review: older guidelines' lists them."}}},
		{"one relabelled", labellingFlags{guidelines: v2}, nil,
			want{id: 2, older: 1, path: v2, tags: []string{"format", "too strict", "hallucinated gold"},
				notices: []string{"Guidelines: 1 of your labels was made under an older version;"}}},
		{"an older file", labellingFlags{guidelines: v1}, nil,
			want{id: 1, older: 1, path: v1, tags: []string{"format", "too strict", "hallucinated gold"},
				notices: []string{"Guidelines: 1 of your labels was made under another version;", "v1.md is guidelines version 1, older than the session's latest (2)"}}},
		{"a binary file: the latest version instead", labellingFlags{guidelines: bad}, nil,
			want{id: 2, older: 1, path: session + " (guidelines version 2)", tags: []string{"format", "too strict", "hallucinated gold"},
				notices: []string{"bad.md is not text", "the review shows the session's latest guidelines (version 2) instead."}}},
	}
	for _, st := range steps {
		s, err := sessions.Open(session, sessions.Options{Annotator: "ana"})
		if err != nil {
			t.Fatal(err)
		}
		var opts tui.Options
		err = st.flags.options(s, "ana", &opts)
		s.Close()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		w := st.want
		g := opts.Guidelines
		switch {
		case w.noGuidelines && g != nil:
			t.Errorf("%s: guidelines %+v, want none", st.name, g)
		case !w.noGuidelines && (g == nil || g.ID != w.id || g.First != w.first || g.Older != w.older || g.Path != w.path || g.Text == ""):
			t.Errorf("%s: guidelines %+v, want %+v", st.name, g, w)
		}
		notices := strings.Join(opts.Notices, "\n")
		for _, n := range w.notices {
			if !strings.Contains(notices, n) {
				t.Errorf("%s: notices %q lack %q", st.name, notices, n)
			}
		}
		if len(w.notices) == 0 && notices != "" {
			t.Errorf("%s: notices %q, want none", st.name, notices)
		}
		if !reflect.DeepEqual(opts.Tags, w.tags) {
			t.Errorf("%s: tags %q, want %q", st.name, opts.Tags, w.tags)
		}
		if st.then != nil {
			st.then()
		}
	}

	s, err := sessions.Open(session, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var opts tui.Options
	if err := (labellingFlags{tags: "ok,bad\x1b[31m"}).options(s, "ana", &opts); err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), "control character") {
		t.Errorf("a tag with an escape sequence: %v", err)
	}
	if err := (labellingFlags{retest: 0.05, blindShare: 0.3, seed: 7}).options(s, "ana", &opts); err != nil ||
		opts.Retest != 0.05 || opts.BlindShare != 0.3 || opts.Seed != 7 {
		t.Errorf("shares: %v, %+v", err, opts)
	}
}

// review's labelling flags come from the config file when not given,
// a relative guidelines path being relative to the config file's folder;
// a flag wins.
func TestLabellingConfig(t *testing.T) {
	yaml := "guidelines: g.md\ntags: [too strict, format]\nretest: 5%\nblind_share: 0.3\n"
	for _, tc := range []struct {
		name  string
		flags []string
		want  func(cfgDir string) labellingFlags
	}{
		{"the file", nil, func(d string) labellingFlags {
			return labellingFlags{guidelines: filepath.Join(d, "g.md"), tags: "too strict,format", retest: 0.05, blindShare: 0.3, seed: defaultShareSeed}
		}},
		{"flags win", []string{"--guidelines", "mine.md", "--tags", "x", "--retest", "10%", "--blind-share", "0", "--seed", "3"}, func(string) labellingFlags {
			return labellingFlags{guidelines: "mine.md", tags: "x", retest: 0.1, blindShare: 0, seed: 3}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, path := configEnv(t, yaml, nil)
			cmd := newReviewCmd(e)
			if err := cmd.ParseFlags(tc.flags); err != nil {
				t.Fatal(err)
			}
			var got labellingFlags
			got.seed, _ = cmd.Flags().GetInt64("seed")
			if err := applyLabellingConfig(e, cmd.Flags(), &got); err != nil {
				t.Fatal(err)
			}
			if want := tc.want(filepath.Dir(path)); got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
	for _, tc := range []struct{ yaml, want string }{
		{"retest: lots\n", "config.yaml:1: retest: want a share such as 5% or 0.05"},
		{"blind_share: 130%\n", "blind_share: want a share"},
		{"tags: [\"a,b\"]\n", "holds a comma"},
		{"guidelines: [a, b]\n", "guidelines: want the path of a Markdown file"},
	} {
		e, _ := configEnv(t, tc.yaml, nil)
		if _, err := resolveSettings(e, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
	e, _ := configEnv(t, yaml, nil)
	var out strings.Builder
	e.stdout = &out
	if code := execute(context.Background(), e, []string{"config"}); code != 0 {
		t.Fatalf("gavel config: exit %d", code)
	}
	for _, line := range [][]string{{"guidelines", "g.md"}, {"tags", "too strict, format"}, {"retest", "5%"}, {"blind_share", "30%"}} {
		if !hasLine(out.String(), line) {
			t.Errorf("gavel config lacks %q:\n%s", line, out.String())
		}
	}
}

// A new dataset's screen opens before its session is written: a label
// made then is queued, and stamped with the guidelines version once the
// session holds it; the tags given join the session's tag set.
func TestReviewNewStampsQueuedLabels(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "new.jsonl", `{"id":"a","question":"2+2?","gold":"4","prediction":"4"}
{"id":"b","question":"Capital of France?","gold":"Paris","prediction":"Lyon"}
`)
	g := writeFile(t, dir, "g.md", "# Guidelines\n")
	ds, err := dataset.Load(data, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, _, errb, _ := testEnv(t)
	var queued int
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m, _ = m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyEscape}) // the new guidelines, shown once
		m, _ = m.Update(keyPress("y"))                        // before the session is there
		queued, _ = m.(*tui.Model).Unsaved()
		m = runCommand(t, m, m.Init(), 0)
		return m, nil
	}
	session := filepath.Join(dir, "new.gavel")
	o := reviewFlags{session: session, annotator: "ana", label: labellingFlags{guidelines: g, tags: "format"}}
	js, err := resolveJudges([]string{"match"}, o.runner.config(e.getenv))
	if err != nil {
		t.Fatal(err)
	}
	if err := reviewNew(context.Background(), e, loadedDataset(ds), o, js, o.runner.config(e.getenv)); err != nil {
		t.Fatalf("%v: %s", err, errb)
	}
	if queued != 1 {
		t.Errorf("%d labels queued before the session was written, want 1", queued)
	}
	rows := actionRows(t, session, "ana")
	if len(rows) != 1 || rows[0].Kind != sessions.KindLabel || rows[0].Guidelines != 1 {
		t.Errorf("actions %v, want one label under guidelines version 1", rows)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if tags, err := s.TagSet(); err != nil || !reflect.DeepEqual(tags, []string{"format"}) {
		t.Errorf("tag set %q, %v", tags, err)
	}
	if vs, err := s.GuidelinesVersions(); err != nil || len(vs) != 1 || vs[0].Text != "# Guidelines\n" {
		t.Errorf("guidelines %+v, %v", vs, err)
	}
}

// gavel review with a bad guidelines file opens without them, and says
// why; with a good one, the session stores it.
func TestReviewGuidelinesFile(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "ev.jsonl", `{"id":"a","question":"2+2?","gold":"4","prediction":"4"}`+"\n")
	session := filepath.Join(dir, "ev.gavel")
	big := writeFile(t, dir, "big.md", strings.Repeat("x", maxGuidelinesBytes+10))
	e, _, errb, _ := testEnv(t)
	var view string
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m, _ = m.Update(tea.WindowSizeMsg{Width: 300, Height: 40})
		m = runCommand(t, m, m.Init(), 0)
		m = send(t, m, keyPress("m")) // the message log
		view = ansi.Strip(m.View().Content)
		return m, nil
	}
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana", "--guidelines", big}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(view, "big.md is over 1 MB") || !strings.Contains(view, "the review opens without it") {
		t.Errorf("the screen does not say why it has no guidelines:\n%s", view)
	}
	good := writeFile(t, dir, "g.md", "# Guidelines\n")
	e, _, errb, _ = testEnv(t)
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana", "--guidelines", good, "--tags", "format"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vs, err := s.GuidelinesVersions()
	if err != nil || len(vs) != 1 {
		t.Errorf("versions %+v, %v: the big file must not be stored, the good one must", vs, err)
	}
	if tags, _ := s.TagSet(); !reflect.DeepEqual(tags, []string{"format"}) {
		t.Errorf("tags %q", tags)
	}
	e, _, errb, _ = testEnv(t)
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--tags", "a\tb"}); code != 2 || !strings.Contains(errb.String(), "--tags") {
		t.Errorf("a bad tag: exit %d: %s", code, errb)
	}
	if _, err := os.Stat(session); errors.Is(err, os.ErrNotExist) {
		t.Error("session gone")
	}
}
