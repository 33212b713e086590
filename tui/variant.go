package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// VariantRequest asks Options.Variant for a variant of a judge: its
// judge file as the person saved it from the editor (E), to be judged on
// the items people labelled.
type VariantRequest struct {
	// Base is the judge edited (its Definition is the file as it was).
	Base judge.Info
	// Definition is the edited judge file.
	Definition []byte
	// Items are the items with a human label on the base judge's rows
	// (this annotator's or another's): the variant judges only these.
	Items []judge.Item
}

// Variant is a variant made from an edited judge file, not yet recorded
// nor run: the screen asks before Start spends requests.
type Variant struct {
	// Name is the variant's short name ("docqa@2"), BaseName the edited
	// judge's ("docqa@1").
	Name     string
	BaseName string
	// Info is the variant's judge.
	Info judge.Info
	// Tasks is how many tasks Start will judge (requests, before retries
	// and samples); Examples how many few-shot examples the judge was
	// given from the calibration part of the split (0 when it takes none).
	Tasks    int
	Examples int
	// Cost, when set, says on one line what judging the tasks would send
	// and cost, for the confirmation; called off the screen's goroutine,
	// its ctx cancelled when the question is answered (rejudge_cost.go).
	Cost func(ctx context.Context) (string, error)
	// Start records the variant in the session and starts judging the
	// labelled items in the background. It is called off the screen's
	// goroutine.
	Start func() (VariantRun, error)
}

// VariantRun is a variant recorded and judging.
type VariantRun struct {
	// Run is the variant's run as the screen shows it (Judging streams
	// its verdicts on the labelled items; Rejudge re-asks).
	Run Run
	// BaseID and ID are the session's ids of the edited judge's run and
	// the variant's, for Options.Compare.
	BaseID, ID int64
	// Name and BaseName are the variant's and the edited judge's NAME@K
	// as the session numbers them once the variant is recorded: they win
	// over Variant's, which were guessed before (another process may have
	// recorded a run of the judge meanwhile).
	Name, BaseName string
	// Renamed maps the keys of runs whose name changed now that the
	// session holds another run of the same judge ("docqa · gpt-4o"
	// becomes "docqa@1 · gpt-4o") to their new key.
	Renamed map[string]string
}

// JudgeFileError is an error of the edited judge file itself (YAML, an
// unknown placeholder, a missing field): Options.Variant wraps such errors
// in it, and the screen offers to edit the file again.
type JudgeFileError struct{ Err error }

func (e *JudgeFileError) Error() string { return e.Err.Error() }
func (e *JudgeFileError) Unwrap() error { return e.Err }

// Compared is what Options.Compare returns: the comparison of two runs,
// and which items it is on.
type Compared struct {
	Figures stats.Comparison
	// Items says which items were compared ("On the evaluation split
	// (seed 7): 40 items."), since a session with a split compares on
	// its evaluation part only; Part names the part ("evaluation"), ""
	// when the session has no split.
	Items string
	Part  string
}

// judgeEdit is the judge file open in the editor (or waiting for the
// person's answer after an error): one at a time.
type judgeEdit struct {
	base     *runView
	original string // the judge's definition before any edit
	text     string // the file as last saved, kept for another try
	path     string // the temporary file the editor opens
	editor   string // the editor's command ($VISUAL, $EDITOR, vi)
}

// variantView is a variant made on this screen, and its comparison with
// the judge it was made from.
type variantView struct {
	name, baseName string
	run, base      *runView
	id, baseID     int64
	examples       int
	finished       bool // its judging of the labelled items ended
	// sibling: a run of the same judge the session held already (C
	// compares it with the active one), not made on this screen.
	sibling bool
	// stopped: its judging stopped before its end (a fatal server
	// error): the comparison counts what it did not judge as wrong.
	stopped bool
	// The last comparison (nil until computed), or why it failed.
	cmp       *Compared
	cmpErr    error
	computing bool
	stale     bool // labels changed while computing: compute again
	// asked holds the items labelled after it ran that it was asked to
	// judge (judgeNewLabels), so that each is asked once.
	asked map[int]bool
	// fixed and broken are the items of the comparison the variant
	// fixed (the base wrong, it right) and broke (the base right, it
	// wrong), by item index.
	fixed, broken map[int]bool
}

// The edit's steps, each a message: the file written, the editor ended,
// the file read back, the variant made, confirmed, started.
type (
	editFileMsg struct {
		path, editor string
		err          error
	}
	editorDoneMsg struct{ err error }
	editReadMsg   struct {
		text string
		err  error
	}
	variantMsg struct {
		base *runView
		v    Variant
		err  error
	}
	editAgainMsg    struct{}
	discardEditMsg  struct{}
	variantStartMsg struct {
		base *runView
		v    Variant
	}
	variantStartedMsg struct {
		base *runView
		v    Variant
		run  VariantRun
		err  error
	}
	compareMsg struct {
		v   *variantView
		res Compared
		err error
	}
)

// execEditor runs the editor with the terminal handed over to it
// (tea.ExecProcess); tests replace it with a plain run.
type execEditor func(c *exec.Cmd, done tea.ExecCallback) tea.Cmd

// editJudge opens the active judge's file in the editor ($VISUAL,
// $EDITOR, else vi): its text is the run's definition, written to a
// temporary file off the loop.
func (s *reviewScreen) editJudge() action {
	r := s.run()
	switch {
	case r == nil:
		s.refuse("No judge to edit.")
		return action{}
	case s.edit != nil:
		s.refuse("The judge file is already being edited.")
		return action{}
	case s.refusesJudging():
		return action{}
	case r.info.Definition == "":
		s.refuse(fmt.Sprintf("%s has no judge file to edit: only LLM judges have one (review with --judge docqa --model MODEL, or a judge file).", SanitizeLine(r.name())))
		return action{}
	case s.variantFn == nil:
		s.refuse("Editing the judge needs the session opened by gavel review with the judge named (--judge).")
		return action{}
	case s.refuseWhileLoading("Editing the judge"):
		return action{}
	}
	if !s.anyLabelled(r) {
		s.refuse(fmt.Sprintf("Label some items first: a variant of %s is judged on the items people labelled, and compared with it there.", SanitizeLine(r.name())))
		return action{}
	}
	s.edit = &judgeEdit{base: r, original: r.info.Definition, text: r.info.Definition}
	s.hint("Opening the judge file in the editor…")
	return act(writeEditFile(s.edit.text))
}

// labelledItems are the items with a human label (anyone's) on one of a
// run's rows: the items a variant is judged on.
func (w *workspace) labelledItems(r *runView) []judge.Item {
	var out []judge.Item
	for i, it := range w.items {
		if w.labelledOn(i, r) {
			out = append(out, it)
		}
	}
	return out
}

// anyLabelled reports whether some item has a human label on a run's rows.
func (w *workspace) anyLabelled(r *runView) bool {
	for i := range w.items {
		if w.labelledOn(i, r) {
			return true
		}
	}
	return false
}

// labelledOn reports whether item i has a human label on a run's rows.
func (w *workspace) labelledOn(i int, r *runView) bool {
	for _, rw := range r.rows(w.items[i]) {
		if _, ok := w.label(i, rw); ok {
			return true
		}
		var buf [4]sessions.Label
		for _, o := range w.others.on(i, buf[:0]) {
			if o.Criterion == rw.crit && o.Dimension == rw.dim.Name {
				return true
			}
		}
	}
	return false
}

// editorCommand is the editor the person chose: $VISUAL, then $EDITOR,
// then vi, as git and crontab choose it.
func editorCommand() string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(os.Getenv(v)); e != "" {
			return e
		}
	}
	return "vi"
}

// writeEditFile writes the judge file for the editor.
func writeEditFile(text string) tea.Cmd {
	return func() tea.Msg {
		f, err := os.CreateTemp("", "gavel-judge-*.yaml")
		if err != nil {
			return editFileMsg{err: err}
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(f.Name())
			return editFileMsg{err: err}
		}
		return editFileMsg{path: f.Name(), editor: editorCommand()}
	}
}

// editorProcess is the command that opens path in editor. The editor is
// a shell command, as for git ("code --wait", "emacs -nw"), with the
// file as its last argument.
func editorProcess(editor, path string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		f := strings.Fields(editor)
		return exec.Command(f[0], append(f[1:], path)...)
	}
	return exec.Command("sh", "-c", editor+` "$1"`, "sh", path)
}

// removeEditFile removes the editor's file when its text is not read.
func removeEditFile(path string) tea.Cmd {
	return func() tea.Msg {
		os.Remove(path)
		return nil
	}
}

// readEditFile reads the edited file back and removes it.
func readEditFile(path string) tea.Cmd {
	return func() tea.Msg {
		b, err := os.ReadFile(path)
		os.Remove(path)
		return editReadMsg{text: string(b), err: err}
	}
}

// gotEditFile hands the written file to the editor.
func (m *Model) gotEditFile(msg editFileMsg) tea.Cmd {
	if m.edit == nil {
		return nil
	}
	if msg.err != nil {
		m.edit = nil
		m.fail("Could not write the judge file for the editor: " + SanitizeLine(msg.err.Error()))
		return nil
	}
	m.edit.path, m.edit.editor = msg.path, msg.editor
	return m.exec(editorProcess(msg.editor, msg.path), func(err error) tea.Msg { return editorDoneMsg{err: err} })
}

func (m *Model) editorDone(msg editorDoneMsg) tea.Cmd {
	if m.edit == nil {
		return nil
	}
	if msg.err != nil {
		e := m.edit
		m.edit = nil
		m.fail(fmt.Sprintf("The editor (%s) failed: %s. The judge is unchanged; set $EDITOR to the editor to use.", SanitizeLine(Clip(e.editor, 64)), SanitizeLine(msg.err.Error())))
		return removeEditFile(e.path)
	}
	return readEditFile(m.edit.path)
}

// editRead decides what the saved file is: the same judge (nothing to
// do), or a variant to make, on the items labelled now.
func (m *Model) editRead(msg editReadMsg) tea.Cmd {
	e := m.edit
	if e == nil {
		return nil
	}
	if msg.err != nil {
		m.edit = nil
		m.fail("Could not read the edited judge file back: " + SanitizeLine(msg.err.Error()))
		return nil
	}
	if msg.text == e.original {
		m.edit = nil
		m.tell(fmt.Sprintf("The judge file of %s is unchanged: no variant made.", SanitizeLine(e.base.name())))
		return nil
	}
	e.text = msg.text
	fn, base := m.variantFn, e.base
	req := VariantRequest{Base: base.info, Definition: []byte(msg.text), Items: m.labelledItems(base)}
	m.hint("Reading the edited judge file…")
	return func() tea.Msg {
		v, err := fn(req)
		return variantMsg{base: base, v: v, err: err}
	}
}

// gotVariant asks before a valid variant spends requests; a file that
// does not parse opens a dialog to edit it again or discard it.
func (m *Model) gotVariant(msg variantMsg) tea.Cmd {
	if m.edit == nil {
		return nil
	}
	// Either way the text is kept: the person may edit it again (drop
	// {examples} when the session has no split yet, say).
	var bad *JudgeFileError
	switch {
	case errors.As(msg.err, &bad):
		m.warn("The edited judge file has an error: " + SanitizeLine(bad.Err.Error()))
		m.openDialog(newEditErrorDialog("The edited judge file cannot be used:", bad.Err.Error()))
		return nil
	case msg.err != nil:
		m.warn("The variant cannot be made: " + SanitizeLine(msg.err.Error()))
		m.openDialog(newEditErrorDialog("The variant cannot be made:", msg.err.Error()))
		return nil
	}
	m.edit = nil
	v := msg.v
	// Short: the hint line holds it after the answer keys, 66 cells at 80.
	what := plural(v.Tasks, "task", "tasks")
	if v.Info.Model != "" {
		what += " · " + SanitizeLine(Clip(v.Info.Model, 32))
	}
	if v.Examples > 0 {
		what += " · " + plural(v.Examples, "example", "examples")
	}
	q := fmt.Sprintf("Run %s on the labelled items (%s)?", SanitizeLine(Clip(v.Name, 32)), what)
	d := newConfirmDialog(q, variantStartMsg{base: msg.base, v: v})
	m.openDialog(d)
	if v.Cost == nil {
		return nil
	}
	return d.countCost(func(ctx context.Context, _ []judge.Task) (string, error) { return v.Cost(ctx) }, nil)
}

// editAgain reopens the file as it was saved, its error to be fixed.
func (m *Model) editAgain() tea.Cmd {
	if m.edit == nil {
		return nil
	}
	return writeEditFile(m.edit.text)
}

func (m *Model) discardEdit() {
	if m.edit == nil {
		return
	}
	m.edit = nil
	m.tell("The edited judge file is discarded; the judge is unchanged.")
}

// startVariant records the variant and starts it, off the loop.
func (m *Model) startVariant(msg variantStartMsg) tea.Cmd {
	if msg.v.Start == nil {
		return nil
	}
	m.tell(fmt.Sprintf("Starting the variant %s…", SanitizeLine(Clip(msg.v.Name, 64))))
	start := msg.v.Start
	return func() tea.Msg {
		run, err := start()
		return variantStartedMsg{base: msg.base, v: msg.v, run: run, err: err}
	}
}

// variantStarted shows the variant as another judge of the screen (J
// switches to it) and follows its judging; when that ends the comparison
// is computed (variantFinished).
func (m *Model) variantStarted(msg variantStartedMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(fmt.Sprintf("Could not start the variant %s: %s", SanitizeLine(Clip(msg.v.Name, 64)), SanitizeLine(msg.err.Error())))
		return nil
	}
	for _, r := range m.runs {
		if k, ok := msg.run.Renamed[r.key]; ok {
			r.key = k
		}
	}
	m.stats.cache = statsCache{} // the judges' keys may have changed
	idx := -1
	for i, r := range m.runs {
		if r.key == msg.run.Run.Key {
			idx = i // the same judge file made again: the same run
		}
	}
	var r *runView
	if idx < 0 {
		idx = len(m.runs)
		r = newRunView(Run{Info: msg.run.Run.Info, Key: msg.run.Run.Key, ID: msg.run.ID, Rejudge: msg.run.Run.Rejudge, Stopped: msg.run.Run.Stopped}, m.index, len(m.items))
		r.putAll(m.index, msg.run.Run.Verdicts, false)
		r.putAll(m.index, msg.run.Run.Swapped, true)
		m.runs = append(m.runs, r)
		m.keepTally(idx)
	} else {
		r = m.runs[idx]
		r.id = msg.run.ID
	}
	if msg.base.id == 0 {
		msg.base.id = msg.run.BaseID
	}
	v := m.variantOf(r)
	if v == nil {
		v = &variantView{run: r}
		m.variants = append(m.variants, v)
	}
	v.name, v.baseName, v.base = msg.v.Name, msg.v.BaseName, msg.base
	if msg.run.Name != "" {
		v.name = msg.run.Name
	}
	if msg.run.BaseName != "" {
		v.baseName = msg.run.BaseName
	}
	v.id, v.baseID, v.examples = msg.run.ID, msg.run.BaseID, msg.v.Examples
	v.finished, v.stopped = false, false
	name := SanitizeLine(Clip(v.name, 64))
	if msg.run.Run.Judging == nil || msg.run.Run.Pending == 0 {
		m.tell(fmt.Sprintf("The variant %s is judge %d of %d (J switches); it had every labelled item judged already.", name, idx+1, len(m.runs)))
		return m.variantFinished(v)
	}
	m.tell(fmt.Sprintf("The variant %s is judge %d of %d (J switches): judging the %s in the background; C compares it with %s when it is done.",
		name, idx+1, len(m.runs), plural(msg.run.Run.Pending, "labelled task", "labelled tasks"), SanitizeLine(Clip(v.baseName, 64))))
	id := r.add(msg.run.Run.Judging, msg.run.Run.Pending)
	return waitBatch(idx, id, r.streams[id].ch)
}

// variantOf returns the variant a run is, or nil.
func (w *workspace) variantOf(r *runView) *variantView {
	for _, v := range w.variants {
		if v.run == r {
			return v
		}
	}
	return nil
}

// variantFinished notes a variant's judging ended and compares it.
func (m *Model) variantFinished(v *variantView) tea.Cmd {
	v.finished = true
	if m.compareFn == nil {
		return nil
	}
	return m.computeCompare(v)
}

// computeCompare compares a variant with its base off the loop.
func (m *Model) computeCompare(v *variantView) tea.Cmd {
	if m.compareFn == nil || v == nil {
		return nil
	}
	if v.computing {
		v.stale = true
		return nil
	}
	v.computing = true
	fn, a, b := m.compareFn, v.baseID, v.id
	return func() tea.Msg {
		res, err := fn(a, b)
		return compareMsg{v: v, res: res, err: err}
	}
}

// gotCompare keeps a comparison, the items fixed and broken for the
// filters, and tells the first one's headline.
func (m *Model) gotCompare(msg compareMsg) tea.Cmd {
	v := msg.v
	v.computing = false
	first := v.cmp == nil && v.cmpErr == nil
	if msg.err != nil {
		v.cmp, v.cmpErr = nil, msg.err
		if first || m.screen == screenCompare {
			m.fail(fmt.Sprintf("Could not compare %s with %s: %s", SanitizeLine(Clip(v.name, 64)), SanitizeLine(Clip(v.baseName, 64)), SanitizeLine(msg.err.Error())))
		}
	} else {
		res := msg.res
		v.cmp, v.cmpErr = &res, nil
		v.fixed, v.broken = map[int]bool{}, map[int]bool{}
		for _, d := range res.Figures.Dimensions {
			for _, u := range d.Paired.Fixed {
				if i, ok := m.index.at(u.ItemID); ok {
					v.fixed[i] = true
				}
			}
			for _, u := range d.Paired.Broken {
				if i, ok := m.index.at(u.ItemID); ok {
					v.broken[i] = true
				}
			}
		}
		if first && v.finished && !v.sibling {
			m.mention(m.compareHeadline(v))
		}
	}
	m.compare.cache = compareCache{}
	var cmds []tea.Cmd
	if v.stale {
		v.stale = false
		cmds = append(cmds, m.computeCompare(v))
	}
	if f := m.sel.filter.id; v.ownsFilter(f) {
		cmds = append(cmds, m.applySelection()) // the items changed
	}
	return tea.Batch(cmds...)
}

// compareHeadline is the message said when a variant's comparison is
// first ready: agreement before and after, fixed and broken, McNemar.
func (m *Model) compareHeadline(v *variantView) string {
	name, base := SanitizeLine(Clip(v.name, 64)), SanitizeLine(Clip(v.baseName, 64))
	s := fmt.Sprintf("%s finished on the labelled items", name)
	if v.stopped {
		s = fmt.Sprintf("%s stopped before judging every labelled item (those it did not judge count as wrong)", name)
	}
	if v.cmp != nil && v.cmp.Part != "" {
		s += " (compared on the " + SanitizeLine(Clip(v.cmp.Part, 32)) + " part of the split)"
	}
	if v.cmp != nil && len(v.cmp.Figures.Dimensions) > 0 {
		p := v.cmp.Figures.Dimensions[0].Paired
		if p.N > 0 {
			s += fmt.Sprintf(": right on %d of %d items against %d for %s, fixed %d, broke %d",
				p.BothRight+p.OnlyB, p.N, p.BothRight+p.OnlyA, base, p.OnlyB, p.OnlyA)
			if p.McNemarP.Defined() {
				s += fmt.Sprintf(" (McNemar p = %s)", stats.FormatNumber(p.McNemarP.Value, 3))
			}
		}
	}
	return s + fmt.Sprintf(". C shows the comparison; f offers the filters \"fixed by %s\" and \"broken by %s\".", name, name)
}

// variantFilters are the filters of each compared variant: the items it
// fixed and broke in its last comparison. They tell the verdicts, so blind
// mode does not offer them.
func (w *workspace) variantFilters() []filter {
	if w.blind {
		return nil
	}
	var out []filter
	for _, v := range w.variants {
		if v.cmp == nil {
			continue
		}
		name := SanitizeLine(Clip(v.name, 64))
		out = append(out,
			filter{id: v.filterID(true), name: "fixed by " + name, offered: notBlind, match: func(_ *workspace, i int) bool { return v.fixed[i] }},
			filter{id: v.filterID(false), name: "broken by " + name, offered: notBlind, match: func(_ *workspace, i int) bool { return v.broken[i] }},
		)
	}
	return out
}

// labelsChanged computes again the comparisons whose figures labels
// change: the one on screen, and the one whose filter is in force.
func (m *Model) labelsChanged() tea.Cmd {
	var cmds []tea.Cmd
	for i, v := range m.variants {
		f := m.sel.filter.id
		if !v.finished {
			continue
		}
		if (m.screen == screenCompare && i == m.cmpShown) || v.ownsFilter(f) {
			cmds = append(cmds, m.computeCompare(v))
		}
	}
	return tea.Batch(cmds...)
}

// judgeNewLabels has each variant judge the items labelled since it ran:
// its comparison counts an item it has not judged as wrong for it.
func (m *Model) judgeNewLabels(done []saveOp) tea.Cmd {
	var cmds []tea.Cmd
	for idx, r := range m.runs {
		v := m.variantOf(r)
		if v == nil || r.rejudge == nil {
			continue
		}
		var tasks []judge.Task
		for _, op := range done {
			i := op.item
			if i < 0 || i >= len(m.items) || v.asked[i] || r.hasVerdict(i) || !m.labelledOn(i, v.base) {
				continue
			}
			if v.asked == nil {
				v.asked = map[int]bool{}
			}
			v.asked[i] = true
			tasks = append(tasks, judge.Tasks(r.info, m.items[i])...)
		}
		if len(tasks) == 0 {
			continue
		}
		rejudge, run := r.rejudge, idx
		cmds = append(cmds, func() tea.Msg {
			j, err := rejudge(tasks)
			return rejudgeMsg{run: run, judging: j, tasks: len(tasks), err: err, quiet: true}
		})
	}
	return tea.Batch(cmds...)
}

// filterID names the filter of the items the variant fixed (or broke) in
// labels' provenance ("filter:fixed:docqa@2"); the name comes from a
// judge file, so it is made inert.
func (v *variantView) filterID(fixed bool) string {
	if fixed {
		return "fixed:" + SanitizeLine(Clip(v.name, 64))
	}
	return "broken:" + SanitizeLine(Clip(v.name, 64))
}

// ownsFilter reports whether a filter id is one of the variant's.
func (v *variantView) ownsFilter(id string) bool {
	return id == v.filterID(true) || id == v.filterID(false)
}
