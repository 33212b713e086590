package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// promptJudge is a fake LLM judge whose answers depend on its judge file,
// as a model's depend on the prompt: "lenient" says YES to everything,
// "strict" says YES when the prediction is the gold answer, except on
// the items named after "break:" (it says NO there).
type promptJudge struct{ info judge.Info }

func newPromptJudge(def string) *promptJudge {
	return &promptJudge{info: judge.Info{
		Name: "fake", Model: "m", Definition: def,
		Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}},
		Params:     map[string]any{"definition": fmt.Sprintf("%x", len(def)*7919+strings.Count(def, "strict"))},
	}}
}

func (j *promptJudge) Info() judge.Info { return j.info }

func (j *promptJudge) Judge(_ context.Context, t judge.Task) judge.Verdict {
	def := j.info.Definition
	yes := true
	if strings.Contains(def, "strict") {
		yes = t.Item.Prediction == t.Item.Gold
		if strings.Contains(def, "break:"+t.Item.ID+"\n") {
			yes = !yes
		}
	}
	v := 0.0
	if yes {
		v = 1
	}
	return judge.Verdict{ItemID: t.Item.ID, Criterion: t.Criterion, Status: judge.StatusOK, Values: map[string]float64{"correct": v}, Reason: "fake", Model: "m"}
}

// variantSession is a session of 10 items judged by the lenient judge,
// with the humans' labels on the first 8: YES on q1–q4 (the prediction is
// the gold answer), NO on q5–q8.
type variantSession struct {
	rv    *sessions.Review
	m     *Model
	base  sessions.Run
	stops []*sessions.Judging
	ctx   context.Context // the variants' (cancelled: a server that refuses)
	name  string          // the variant's name, when not fake@2
}

func newVariantSession(t *testing.T, w, h int) *variantSession {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		pred := "paris"
		if i > 4 {
			pred = "lyon"
		}
		fmt.Fprintf(&b, `{"id":"q%d","question":"Capital of France, take %d?","gold":"paris","prediction":%q}`+"\n", i, i, pred)
	}
	ds, err := dataset.LoadBytes("capitals.jsonl", []byte(b.String()), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := sessions.OpenReview(filepath.Join(t.TempDir(), "v.gavel"), "tester", ds)
	if err != nil {
		t.Fatal(err)
	}
	vs := &variantSession{rv: rv, ctx: context.Background()}
	t.Cleanup(func() {
		for _, j := range vs.stops {
			j.Stop()
		}
		rv.Store.Close()
	})
	base := newPromptJudge("name: fake\nprompt: lenient\n")
	st, err := rv.StartRun(context.Background(), base, judge.PoolOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Judging != nil {
		for range st.Judging.Batches() {
		}
	}
	vs.base = st.Run
	for i := 1; i <= 8; i++ {
		v := 1.0
		if i > 4 {
			v = 0
		}
		if _, err := rv.Store.Record([]sessions.Action{{Kind: sessions.KindLabel, ItemID: fmt.Sprintf("q%d", i), Dimension: "correct", Value: v, Via: "order"}}); err != nil {
			t.Fatal(err)
		}
	}
	st, err = rv.ResumeRun(context.Background(), st.Run, nil, judge.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	history, err := rv.Store.Actions("tester")
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := rv.Store.Runs()
	vs.m = New(Options{
		Store: rv.Store, Annotator: "tester", Dataset: "capitals.jsonl", Items: rv.Items, History: history,
		Runs:    []Run{{Info: st.Run.Info, Key: sessions.RunNames(runs)[st.Run.ID], Verdicts: st.Verdicts}},
		Variant: vs.variant,
		Compare: vs.compare,
	})
	// The editor runs as a plain process (no terminal to hand over), at
	// once, as tea.ExecProcess runs it before any other message.
	vs.m.exec = func(c *exec.Cmd, done tea.ExecCallback) tea.Cmd {
		msg := done(c.Run())
		return func() tea.Msg { return msg }
	}
	vs.m = update(t, vs.m, tea.WindowSizeMsg{Width: w, Height: h})
	return vs
}

// pressWait sends keys as press does, but waits for every command to
// answer (session writes and judging may take a while on a loaded
// machine): the commands here all end.
func pressWait(t *testing.T, m *Model, keys ...string) *Model {
	t.Helper()
	for _, k := range keys {
		next, cmd := m.Update(keyMsg(k))
		m = runWait(t, next.(*Model), cmd)
	}
	return m
}

func runWait(t *testing.T, m *Model, cmd tea.Cmd) *Model {
	t.Helper()
	if cmd == nil {
		return m
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("a command did not answer in 20 s")
	}
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
		return m
	case tea.BatchMsg:
		for _, c := range msg {
			m = runWait(t, m, c)
		}
		return m
	}
	next, c := m.Update(msg)
	return runWait(t, next.(*Model), c)
}

// variant is what cmd/gavel gives Options.Variant, on the fake judge: a
// file holding "BROKEN" does not parse.
func (vs *variantSession) variant(req VariantRequest) (Variant, error) {
	def := string(req.Definition)
	if strings.Contains(def, "BROKEN") {
		return Variant{}, &JudgeFileError{Err: errors.New("line 2: did not find expected key \x1b[31m(red)\x1b[0m")}
	}
	if strings.Contains(def, "{examples}") {
		return Variant{}, errors.New("the session has no split: gavel split v.gavel records one")
	}
	j := newPromptJudge(def)
	var tasks []judge.Task
	for _, it := range req.Items {
		tasks = append(tasks, judge.Tasks(j.Info(), it)...)
	}
	name := "fake@2"
	if vs.name != "" {
		name = vs.name
	}
	return Variant{Name: name, BaseName: "fake@1", Info: j.Info(), Tasks: len(tasks), Start: func() (VariantRun, error) {
		before, _ := vs.rv.Store.Runs()
		run, err := vs.rv.Store.EnsureRun(j.Info())
		if err != nil {
			return VariantRun{}, err
		}
		after, _ := vs.rv.Store.Runs()
		was, now := sessions.RunNames(before), sessions.RunNames(after)
		renamed := map[string]string{}
		for id, k := range was {
			if now[id] != k {
				renamed[k] = now[id]
			}
		}
		jg := sessions.StartJudging(vs.ctx, vs.rv.Store, run, j, tasks, judge.PoolOptions{Concurrency: 2})
		vs.stops = append(vs.stops, jg)
		rejudge := func(tasks []judge.Task) (*sessions.Judging, error) {
			jg := sessions.StartJudging(context.Background(), vs.rv.Store, run, j, tasks, judge.PoolOptions{Concurrency: 2})
			vs.stops = append(vs.stops, jg)
			return jg, nil
		}
		return VariantRun{Run: Run{Info: run.Info, Key: now[run.ID], Judging: jg, Pending: len(tasks), Rejudge: rejudge}, BaseID: vs.base.ID, ID: run.ID, Renamed: renamed}, nil
	}}, nil
}

func (vs *variantSession) compare(a, b int64) (Compared, error) {
	in, err := vs.rv.Store.StatsInput()
	if err != nil {
		return Compared{}, err
	}
	runs, _ := vs.rv.Store.Runs()
	names := sessions.RunNames(runs)
	c, err := stats.Compare(in, names[a], names[b], "", stats.Options{Seed: 1})
	return Compared{Figures: c, Items: "On every labelled item: the session has no split."}, err
}

// editorScript writes an editor that runs body (sh) on its file "$1" and
// makes it $EDITOR.
func editorScript(t *testing.T, body string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", path)
}

func TestEditJudgeUnchanged(t *testing.T) {
	editorScript(t, "exit 0")
	vs := newVariantSession(t, 100, 30)
	m := pressWait(t, vs.m, "E")
	if !strings.Contains(logText(m), "The judge file of fake · m is unchanged: no variant made.") {
		t.Errorf("log:\n%s", logText(m))
	}
	if m.edit != nil || m.top() != nil || len(m.runs) != 1 {
		t.Errorf("edit %v, dialog %T, %d runs: want none, none, 1", m.edit, m.top(), len(m.runs))
	}
}

func TestEditJudgeRefusals(t *testing.T) {
	items := testItems(3)
	tests := []struct {
		name string
		info judge.Info
		opts func(*Options)
		want string
	}{
		{"no definition", matchInfo, func(o *Options) {}, "match has no judge file to edit"},
		{"no factory", judge.Info{Name: "fake", Definition: "x: 1\n", Dimensions: matchInfo.Dimensions}, func(o *Options) { o.Variant = nil }, "Editing the judge needs"},
		{"nothing labelled", judge.Info{Name: "fake", Definition: "x: 1\n", Dimensions: matchInfo.Dimensions}, func(o *Options) {}, "Label some items first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Store: &fakeStore{}, Annotator: "tester", Items: items,
				Runs:    []Run{{Info: tc.info, Key: tc.info.Name, Verdicts: verdictsFor(items)}},
				Variant: func(VariantRequest) (Variant, error) { return Variant{}, errors.New("not called") }}
			tc.opts(&o)
			m := update(t, New(o), tea.WindowSizeMsg{Width: 100, Height: 30})
			m = press(t, m, "E")
			if !strings.Contains(m.log.flash, tc.want) {
				t.Errorf("hint %q, want %q", m.log.flash, tc.want)
			}
		})
	}
}

func TestEditJudgeParseError(t *testing.T) {
	editorScript(t, `printf 'name: fake\nBROKEN: [\n' > "$1"`)
	vs := newVariantSession(t, 100, 30)
	m := pressWait(t, vs.m, "E")
	if _, ok := m.top().(*editErrorDialog); !ok {
		t.Fatalf("dialog %T, want the judge file's error; log:\n%s", m.top(), logText(m))
	}
	screen := plain(m)
	if !strings.Contains(screen, "did not find expected key") || strings.Contains(m.View().Content, "\x1b[31m(red)") {
		t.Errorf("the error is not shown, or not sanitised:\n%s", screen)
	}
	checkFits(t, screen, 100, 30)

	// d discards: nothing made, and E works again.
	m = pressWait(t, m, "d")
	if m.top() != nil || m.edit != nil || !strings.Contains(logText(m), "discarded") {
		t.Fatalf("after d: dialog %T, edit %v; log:\n%s", m.top(), m.edit, logText(m))
	}

	// e edits the text as saved, not the judge's: the second editor only
	// fixes a file that still holds the error.
	m = pressWait(t, m, "E")
	editorScript(t, `grep -q BROKEN "$1" && printf 'name: fake\nprompt: strict\n' > "$1"`)
	m = pressWait(t, m, "e")
	d, ok := m.top().(*confirmDialog)
	if !ok {
		t.Fatalf("dialog %T after the fix, want the confirmation; log:\n%s", m.top(), logText(m))
	}
	if d.question != "Run fake@2 on the labelled items (8 tasks · m)?" {
		t.Errorf("question %q", d.question)
	}
	// n: nothing is recorded.
	m = pressWait(t, m, "n")
	if runs, _ := vs.rv.Store.Runs(); len(runs) != 1 || len(m.runs) != 1 {
		t.Errorf("declined, yet %d runs in the session, %d on screen", len(runs), len(m.runs))
	}
}

// The variant judges the labelled items in the background, is compared
// with its judge when done, and the filters select exactly the items it
// fixed and broke.
func TestVariantRunCompareAndFilters(t *testing.T) {
	editorScript(t, `printf 'name: fake\nprompt: strict\nbreak:q1\n' > "$1"`)
	vs := newVariantSession(t, 100, 30)
	m := pressWait(t, vs.m, "E", "y")
	if len(m.variants) != 1 || m.variants[0].cmp == nil {
		t.Fatalf("no comparison; log:\n%s", logText(m))
	}
	v := m.variants[0]
	// Labelled q1–q8: the base (YES to all) is right on q1–q4, the
	// variant on q2–q8 (q1 broken on purpose).
	if got := v.run.verdicts.count(9); got != 0 {
		t.Errorf("the variant judged an unlabelled item")
	}
	p := v.cmp.Figures.Dimensions[0].Paired
	if p.N != 8 || p.BothRight != 3 || p.OnlyA != 1 || p.OnlyB != 4 || p.BothWrong != 0 {
		t.Errorf("paired table %+v", p)
	}
	// McNemar: 2·P(X ≤ 1), X ~ Binom(5, ½) = 2·6/32.
	if !p.McNemarP.Defined() || math.Abs(p.McNemarP.Value-0.375) > 1e-12 {
		t.Errorf("McNemar p %v, want 0.375", p.McNemarP)
	}
	if m.runs[0].key != "fake@1 · m" || m.runs[1].key != "fake@2 · m" {
		t.Errorf("keys %q, %q: want the runs told apart by their variant", m.runs[0].key, m.runs[1].key)
	}
	if !strings.Contains(logText(m), "fake@2 finished on the labelled items: right on 7 of 8 items against 4 for fake@1, fixed 4, broke 1 (McNemar p = 0.375)") {
		t.Errorf("log:\n%s", logText(m))
	}

	// An item labelled now is judged by the variant too, and compared:
	// q9 (Lyon, NO) is one more the variant fixed.
	m.show(8)
	m = pressWait(t, m, "n")
	if v.run.verdicts.count(8) != 1 || v.cmp.Figures.Dimensions[0].Paired.N != 9 || v.cmp.Figures.Dimensions[0].Paired.OnlyB != 5 {
		t.Errorf("after labelling q9: %d verdicts of the variant on it, comparison %+v", v.run.verdicts.count(8), v.cmp.Figures.Dimensions[0].Paired)
	}
	if strings.Count(logText(m), "finished") != 2 {
		t.Errorf("judging one newly labelled item is logged:\n%s", logText(m))
	}

	ids := func(m *Model) []string {
		var out []string
		for _, i := range m.sel.items {
			out = append(out, m.items[i].ID)
		}
		return out
	}
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"fixed by fake@2", []string{"q5", "q6", "q7", "q8", "q9"}},
		{"broken by fake@2", []string{"q1"}},
	} {
		var found bool
		for range len(m.filters()) + 1 {
			m = press(t, m, "f")
			if m.sel.filter.name == tc.filter {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("f never offers %q", tc.filter)
		}
		if got := ids(m); !slices.Equal(got, tc.want) {
			t.Errorf("%s selects %v, want %v", tc.filter, got, tc.want)
		}
	}

	// The comparison screen, at both sizes.
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m = update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m = pressWait(t, m, "C")
		if m.screen != screenCompare {
			t.Fatalf("C shows screen %d", m.screen)
		}
		screen := plain(m)
		checkFits(t, screen, size[0], size[1])
		for _, want := range []string{"fake@1 → fake@2", "On every labelled item", "Paired, on the 9 items"} {
			if !strings.Contains(screen, want) {
				t.Errorf("%dx%d: no %q in\n%s", size[0], size[1], want, screen)
			}
		}
		full := strings.Join(func() []string {
			var out []string
			for _, l := range m.compare.content(size[0] - 4) {
				out = append(out, l.Plain())
			}
			return out
		}(), "\n")
		for _, want := range []string{"McNemar exact p     0.219", "fixed by B          5: q5, q6, q7, q8, q9", "broken by B         1: q1", "accuracy A          44.4%", "accuracy B          88.9%"} {
			if !strings.Contains(strings.Join(strings.Fields(full), " "), strings.Join(strings.Fields(want), " ")) {
				t.Errorf("%dx%d: no %q in\n%s", size[0], size[1], want, full)
			}
		}
		m = press(t, m, "esc")
	}

	// x on the comparison reviews the fixed items with the variant on.
	m = pressWait(t, m, "C", "x")
	if m.screen != screenReview || m.run() != v.run || !slices.Equal(ids(m), []string{"q5", "q6", "q7", "q8", "q9"}) {
		t.Errorf("x: screen %d, judge %q, items %v", m.screen, m.run().key, ids(m))
	}
}

// Reopened, the session's variant of the active judge is offered by C
// against it, with its filters.
func TestCompareSessionVariants(t *testing.T) {
	editorScript(t, `printf 'name: fake\nprompt: strict\nbreak:q1\n' > "$1"`)
	vs := newVariantSession(t, 100, 30)
	m := pressWait(t, vs.m, "E", "y")
	if len(m.variants) != 1 || m.variants[0].cmp == nil {
		t.Fatalf("no variant made; log:\n%s", logText(m))
	}
	runs, err := vs.rv.Store.Runs()
	if err != nil {
		t.Fatal(err)
	}
	names := sessions.RunNames(runs)
	var screenRuns []Run
	for _, r := range runs {
		st, err := vs.rv.ResumeRun(context.Background(), r, nil, judge.PoolOptions{})
		if err != nil {
			t.Fatal(err)
		}
		screenRuns = append(screenRuns, Run{Info: r.Info, Key: names[r.ID], ID: r.ID, Verdicts: st.Verdicts})
	}
	history, _ := vs.rv.Store.Actions("tester")
	m2 := New(Options{Store: vs.rv.Store, Annotator: "tester", Items: vs.rv.Items, History: history, Runs: screenRuns, Variant: vs.variant, Compare: vs.compare})
	m2 = update(t, m2, tea.WindowSizeMsg{Width: 80, Height: 24})
	m2 = pressWait(t, m2, "C")
	if m2.screen != screenCompare || len(m2.variants) != 1 || m2.variants[0].cmp == nil {
		t.Fatalf("C on a reopened session: screen %d, %d variants", m2.screen, len(m2.variants))
	}
	if s := plain(m2); !strings.Contains(s, "fake@1 → fake@2") {
		t.Errorf("title:\n%s", s)
	}
	if p := m2.variants[0].cmp.Figures.Dimensions[0].Paired; p.OnlyA != 1 || p.OnlyB != 4 {
		t.Errorf("paired %+v", p)
	}
	m2 = pressWait(t, m2, "X")
	if m2.sel.filter.name != "broken by fake@2" || len(m2.sel.items) != 1 || m2.items[m2.sel.items[0]].ID != "q1" {
		t.Errorf("X: filter %q, items %v", m2.sel.filter.name, m2.sel.items)
	}
	if strings.Contains(logText(m2), "finished") {
		t.Errorf("a variant made before is said to have finished:\n%s", logText(m2))
	}
}

// A variant whose judging stops (the server refused it) is said to have
// stopped, not finished.
func TestVariantStopped(t *testing.T) {
	editorScript(t, `printf 'name: fake\nprompt: strict\n' > "$1"`)
	vs := newVariantSession(t, 100, 30)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("the server refused the API key"))
	vs.ctx = ctx
	m := pressWait(t, vs.m, "E", "y")
	log := logText(m)
	if !strings.Contains(log, "fake@2 stopped before judging every labelled item") || strings.Contains(log, "fake@2 finished") {
		t.Errorf("log:\n%s", log)
	}
}

// The whole path through a real Bubble Tea program, the editor run by
// tea.ExecProcess as on a terminal: E, the editor's change, y, then C
// shows the comparison.
func TestVariantEndToEnd(t *testing.T) {
	editorScript(t, `printf 'name: fake\nprompt: strict\nbreak:q1\n' > "$1"`)
	vs := newVariantSession(t, 100, 30)
	st, err := vs.rv.ResumeRun(context.Background(), vs.base, nil, judge.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	history, err := vs.rv.Store.Actions("tester")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Store: vs.rv.Store, Annotator: "tester", Items: vs.rv.Items, History: history,
		Runs: []Run{{Info: st.Run.Info, Key: vs.m.runs[0].key, Verdicts: st.Verdicts}}, Variant: vs.variant, Compare: vs.compare})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 60),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	wait := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(20*time.Second))
	}
	wait("q9")
	tm.Type("E")
	wait("Run fake@2 on the labelled items")
	tm.Type("y")
	wait("is judge 2 of 2")
	// Pressed while it may still judge: the figures come when it is done.
	tm.Type("C")
	wait("McNemar exact p")
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if final.screen != screenCompare || len(final.variants) != 1 || final.variants[0].cmp == nil {
		t.Fatalf("screen %d, %d variants", final.screen, len(final.variants))
	}
	if p := final.variants[0].cmp.Figures.Dimensions[0].Paired; p.OnlyA != 1 || p.OnlyB != 4 {
		t.Errorf("paired %+v", p)
	}
}

// A variant that cannot be made for another reason than its file (few-shot
// examples without a split) keeps the text too: the same dialog offers to
// edit it again.
func TestVariantCannotBeMade(t *testing.T) {
	editorScript(t, `printf 'name: fake\nuser: "{examples}"\n' > "$1"`)
	vs := newVariantSession(t, 80, 24)
	m := pressWait(t, vs.m, "E")
	if _, ok := m.top().(*editErrorDialog); !ok {
		t.Fatalf("dialog %T; log:\n%s", m.top(), logText(m))
	}
	if s := plain(m); !strings.Contains(s, "The variant cannot be made:") || !strings.Contains(s, "gavel split v.gavel") {
		t.Errorf("screen:\n%s", s)
	}
	checkFits(t, plain(m), 80, 24)
	editorScript(t, `grep -q examples "$1" && printf 'name: fake\nprompt: strict\n' > "$1"`)
	m = pressWait(t, m, "e")
	if _, ok := m.top().(*confirmDialog); !ok {
		t.Fatalf("dialog %T after editing again; log:\n%s", m.top(), logText(m))
	}
}

// An editor that fails leaves the judge as it was, says which editor, and
// leaves no file behind; so does an unchanged file.
func TestEditorFails(t *testing.T) {
	for _, tc := range []struct {
		editor, want string
	}{
		{"exit 3", "failed: exit status 3"},
		{"exit 0", "is unchanged"},
	} {
		editorScript(t, tc.editor)
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		vs := newVariantSession(t, 100, 30)
		m := pressWait(t, vs.m, "E")
		if !strings.Contains(logText(m), tc.want) || m.edit != nil || m.top() != nil {
			t.Errorf("%s: edit %v, dialog %T, log:\n%s", tc.editor, m.edit, m.top(), logText(m))
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "gavel-judge-*")); len(left) > 0 {
			t.Errorf("%s: left %v", tc.editor, left)
		}
	}
}

// A variant's name comes from its file: escape sequences in it reach the
// terminal inert, in the confirmation, the messages, the comparison's
// title and the filters.
func TestVariantHostileName(t *testing.T) {
	editorScript(t, `printf 'name: fake\nprompt: strict\n' > "$1"`)
	vs := newVariantSession(t, 100, 30)
	vs.name = "\x1b]52;c;cm0gLXJmIH4K\x07\x1b[31mevil@2"
	m := pressWait(t, vs.m, "E")
	for step, keys := range [][]string{nil, {"y", "C"}, {"esc", "f", "f", "f", "f", "f", "f"}, {"m"}} {
		m = pressWait(t, m, keys...)
		if c := m.View().Content; strings.Contains(c, "\x1b]52") || strings.Contains(c, "\x1b[31mevil") {
			t.Errorf("step %d: the name reaches the terminal raw:\n%q", step, c)
		}
		checkFits(t, plain(m), 100, 30)
	}
}

// Runs of one judge on two models are told apart by their model in the
// comparison's title and filters, not both called by the judge's name.
func TestCompareSiblingsOnTwoModels(t *testing.T) {
	m := New(Options{
		Items: []judge.Item{{ID: "q1", Question: "q", Gold: "g", Prediction: "p"}},
		Runs: []Run{
			{Info: judge.Info{Name: "docqa", Model: "gpt-4o"}, Key: "docqa · gpt-4o", ID: 1},
			{Info: judge.Info{Name: "docqa", Model: "gpt-4o-mini"}, Key: "docqa · gpt-4o-mini", ID: 2},
		},
		Compare: func(a, b int64) (Compared, error) { return Compared{}, nil },
	})
	m.addSiblings()
	if len(m.variants) != 1 {
		t.Fatalf("%d comparisons offered", len(m.variants))
	}
	if v := m.variants[0]; v.name != "docqa · gpt-4o-mini" || v.baseName != "docqa · gpt-4o" {
		t.Errorf("compared %q with %q", v.baseName, v.name)
	}
}
