package sessions

import (
	"context"
	"fmt"
	"maps"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// Review is a session opened for labelling: the store, the items as the
// session holds them, and what the person should be told on opening.
type Review struct {
	Store *Store
	Info  DatasetInfo
	// Items are the session's items. A review reopened on the file's
	// stamp (ReopenUnchanged), or opened on a dataset that says
	// FieldsStored, holds each item's Fields in its stored form, which
	// elides the text of the item's own columns: WholeFields gives the
	// original row. The judges started by ResumeRun get it whole.
	Items   []judge.Item
	Notices []string
	// Change says how the dataset file differs from the items the
	// session held, when its content changed (see SyncDataset).
	Change DatasetChange
	// Created is true when the session was made by this open.
	Created bool
	// Partial is true while Items holds only the first pages of the
	// session's items (ReopenUnchanged): LoadMore reads the rest.
	Partial bool
	// Unchecked is true when the session was reopened on the file's size
	// and time alone (ReopenUnchanged): CheckFile compares its hash.
	Unchecked bool
	// Swap judges each pair in both orders (--swap, the position-bias
	// audit): ResumeRun also queues the swapped-order task of every
	// pairwise item that has none yet, for judges that state a
	// preference (judge.SwapTasks).
	Swap bool
	// storedFields is set when Items hold their Fields in the stored form.
	storedFields bool
}

// OpenReview opens (or creates) the session at path for annotator. A new
// session takes its items from ds; an existing one keeps the items it
// holds, and says so when ds no longer has the same content. ds may be nil
// to open an existing session on its own.
func OpenReview(path, annotator string, ds *dataset.Dataset) (*Review, error) {
	s, err := Open(path, Options{Annotator: annotator})
	if err != nil {
		return nil, err
	}
	r := &Review{Store: s}
	if err := r.load(ds); err != nil {
		s.Close()
		return nil, err
	}
	return r, nil
}

func (r *Review) load(ds *dataset.Dataset) error {
	ds = RestoreExported(ds) // a file from `gavel export` holds its items as they were
	info, ok, err := r.Store.Dataset()
	if err != nil {
		return err
	}
	switch {
	case !ok && ds == nil:
		return fmt.Errorf("%s holds no dataset yet: open it with `gavel review DATASET --session %s`", r.Store.Path(), r.Store.Path())
	case !ok:
		info = DatasetInfo{
			Path:    ds.Path,
			SHA256:  ds.SHA256,
			Format:  ds.Format,
			Mapping: ds.Mapping,
			Items:   len(ds.Items),
		}
		if info.Path == "" {
			info.Path = ds.Name
		}
		if err := r.Store.InitDataset(info, ds.Items); err != nil {
			return err
		}
		r.Items = ds.Items
		r.Created = true
		r.storedFields = ds.FieldsStored
	default:
		if ds != nil && ds.SHA256 != info.SHA256 {
			if r.Change, err = r.Store.SyncDataset(ds); err != nil {
				return err
			}
			r.Notices = append(r.Notices, r.Change.Notice())
			if info, _, err = r.Store.Dataset(); err != nil {
				return err
			}
		}
		if sameItems(info, ds) {
			// Reading 100,000 items back costs more than the first
			// screen may: the file just read holds the very same ones.
			r.Items = ds.Items
			r.storedFields = ds.FieldsStored
		} else if r.Items, err = r.Store.Items(); err != nil {
			return err
		}
	}
	r.Info = info
	if ds != nil {
		r.recordStamp(ds.Path)
	}
	return nil
}

// RunState is a judge's state in a review: its verdicts so far and the
// judging still to do.
type RunState struct {
	Run Run
	// Verdicts are the run's current verdicts as the review screen holds
	// them: ok ones without their raw output, reason and extra fields
	// (Store.ItemVerdicts reads them for the item on display).
	Verdicts []judge.Verdict
	// Swapped are the run's current swapped-order verdicts, in the
	// original A/B terms, held like Verdicts: read for every
	// judge that states a preference, with or without Swap, so that a
	// session audited once shows its second order when reopened.
	Swapped []judge.Verdict
	// Judging is nil when every task already has a verdict.
	Judging *Judging
	// Pending is how many tasks Judging has to do.
	Pending int
}

// StartRun finds or creates j's run in the session and resumes it (see
// ResumeRun).
func (r *Review) StartRun(ctx context.Context, j judge.Judge, opts judge.PoolOptions) (RunState, error) {
	run, err := r.Store.EnsureRun(j.Info())
	if err != nil {
		return RunState{}, err
	}
	return r.ResumeRun(ctx, run, j, opts)
}

// ResumeRun reads a run's current verdicts and starts judging, in the
// background, every task that has no verdict yet or whose last attempt
// failed with an api_error or was truncated (the server cut the prompt:
// asked again, as its context may have been raised; a parse_error is an
// answer, kept until an explicit re-judge); with Swap, in both orders. j may be nil to read the
// verdicts only. On a large session this reads a verdict per item, so
// the review screen calls it after its first frame.
func (r *Review) ResumeRun(ctx context.Context, run Run, j judge.Judge, opts judge.PoolOptions) (RunState, error) {
	vs, err := r.Store.screenVerdicts(run.ID, false)
	if err != nil {
		return RunState{}, err
	}
	st := RunState{Run: run, Verdicts: vs}
	if run.Info.Prefers() {
		if st.Swapped, err = r.Store.screenVerdicts(run.ID, true); err != nil {
			return RunState{}, err
		}
	}
	if j == nil || ctx.Err() != nil {
		return st, nil
	}
	d := newDoneSet(run.Info, r.Items, r.Swap)
	d.add(vs)
	d.restart()
	d.add(st.Swapped)
	r.startTodo(ctx, &st, j, d, opts)
	return st, nil
}

// verdictChunk is how many verdicts ResumeRunEach hands over at once.
const verdictChunk = 32_768

// ResumeRunEach is ResumeRun handing the run's verdicts to each, in item
// order, about verdictChunk at a time (an item's together), the first
// order's then, for a judge that states a preference, the swapped
// order's (swapped set), rather than holding them all in the RunState
// (whose Verdicts and Swapped stay nil): a million verdicts are ~200 MB
// as judge.Verdicts. each may not keep vs (the next chunk reuses it);
// it runs while the session is being read, and must not use the Store.
func (r *Review) ResumeRunEach(ctx context.Context, run Run, j judge.Judge, opts judge.PoolOptions, each func(vs []judge.Verdict, swapped bool) error) (RunState, error) {
	var d *doneSet
	if j != nil {
		d = newDoneSet(run.Info, r.Items, r.Swap)
	}
	read := func(swapped bool) error {
		if d != nil {
			d.restart()
		}
		return r.Store.screenVerdictsEach(run.ID, swapped, verdictChunk, func(vs []judge.Verdict) error {
			if d != nil {
				d.add(vs)
			}
			return each(vs, swapped)
		})
	}
	if err := read(false); err != nil {
		return RunState{}, err
	}
	if run.Info.Prefers() {
		if err := read(true); err != nil {
			return RunState{}, err
		}
	}
	st := RunState{Run: run}
	if j == nil || ctx.Err() != nil {
		return st, nil
	}
	r.startTodo(ctx, &st, j, d, opts)
	return st, nil
}

// startTodo starts judging, in the background, the tasks d does not
// hold, if any.
func (r *Review) startTodo(ctx context.Context, st *RunState, j judge.Judge, d *doneSet, opts judge.PoolOptions) {
	// The tasks to do (TasksToDo's) are made as the judging needs them:
	// a million tasks at once would be ~180 MB, a chunk is ~2 MB.
	src := newTodoSourceDone(st.Run.Info, r.Items, r.Swap, d)
	if n := src.len(); n > 0 {
		if r.storedFields {
			j = wholeFieldsJudge{j: j}
		}
		st.Judging = startQueue(ctx, r.Store, st.Run, j, judge.NewQueueFrom(src, taskChunk), n, opts)
		st.Pending = n
	}
}

// wholeFieldsJudge hands its judge each task's item with the original
// row in Fields (WholeFields), restored as the task is judged: restoring
// every item's row up front would cost the memory the stored form saves.
type wholeFieldsJudge struct{ j judge.Judge }

func (w wholeFieldsJudge) Info() judge.Info { return w.j.Info() }

func (w wholeFieldsJudge) Judge(ctx context.Context, t judge.Task) judge.Verdict {
	t.Item = WholeFields(t.Item)
	return w.j.Judge(ctx, t)
}

// TasksToDo lists the tasks of items that have no verdict, or only an
// api_error or truncated one, among vs; with swap, the swapped-order tasks of pairwise
// items too (judge.TasksFor), each order done only by a verdict of its
// own order: a pair judged once still has its second order to do. vs may
// hold both orders (Verdict.Swapped tells them apart). ResumeRun makes
// the same tasks chunk by chunk (todoSource).
func TasksToDo(info judge.Info, items []judge.Item, vs []judge.Verdict, swap bool) []judge.Task {
	src := newTodoSource(info, items, swap, vs)
	return src.Next(src.len())
}

// ImportCarried turns the verdicts and human labels the dataset already
// carries into runs of the imported judge and labels of imported
// annotators, when the session has just taken the file in (new, or its
// content changed), and says so in Notices. Raw judge text needs a
// parser: `gavel import --judge NAME` reads it.
func (r *Review) ImportCarried(ds *dataset.Dataset) error {
	if ds == nil || len(ds.Imported) == 0 || !(r.Created || r.Change.Changed()) {
		return nil
	}
	sum, err := ImportDataset(r.Store, ds, nil)
	if err != nil {
		return err
	}
	r.NoteImported(sum)
	return nil
}

// NoteImported adds to the notices what an import of the dataset's
// verdict and label columns brought in: ImportCarried's, or a build's
// that imported them as the session was written (BuildDatasetSessionThen).
func (r *Review) NoteImported(sum ImportSummary) {
	if n := len(sum.Runs); n > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("imported %s of %s (J switches to them)", plural(sum.VerdictCount(), "verdict", "verdicts"), plural(n, "judge column", "judge columns")))
	}
	if n := len(sum.Annotators); n > 0 {
		r.Notices = append(r.Notices, fmt.Sprintf("imported %s of %s (compared on the statistics screen)", plural(sum.LabelCount(), "label", "labels"), plural(n, "annotator", "annotators")))
	}
	// A column whose scale its values leave in doubt is not read: say so
	// (a review takes no --scale; gavel import does).
	for _, why := range sum.Skipped {
		r.Notices = append(r.Notices, why+" (gavel import DATASET --session SESSION takes --scale: import the column so, then review)")
	}
}

// sameItems reports whether the session's items are exactly ds's: the
// same file content read with the same mapping, and no item kept from an
// earlier version of the file.
func sameItems(info DatasetInfo, ds *dataset.Dataset) bool {
	return ds != nil && ds.SHA256 == info.SHA256 && info.Items == len(ds.Items) && maps.Equal(info.Mapping, ds.Mapping)
}
