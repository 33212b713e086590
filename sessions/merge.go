package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// MergeAnnotator is the name a merge holds the new session's lock under
// while it writes it; no action is recorded under it.
const MergeAnnotator = "gavel merge"

// MergeSummary says what Merge wrote.
type MergeSummary struct {
	Items, Runs int
	// Verdicts and Actions count what the merged session holds;
	// DuplicateVerdicts and DuplicateActions what was left out because
	// an earlier input had the very same one (sessions copied from one
	// another share their history).
	Verdicts, DuplicateVerdicts int
	Actions, DuplicateActions   int
	// Annotators lists everyone with an action in the merged session.
	Annotators []string
	// Notes are things the person should know, one sentence each.
	Notes []string
}

// mergeInput is one input session, open read-only.
type mergeInput struct {
	path  string
	store *Store
	info  DatasetInfo
	items []judge.Item
}

// Merge combines sessions of the same dataset into a new session at out,
// for inter-annotator statistics. The inputs must hold the same item ids
// (the same dataset file, or one whose content changed but whose ids did
// not; the items are taken from the first input). The merged session
// holds:
//
//   - every run, matched by run key;
//   - every verdict of every input, a verdict met twice (the same
//     run, item, criterion, place in that unit's history, status, raw
//     output and error — whenever it was made) kept once, every re-judge
//     kept; the latest in time is current;
//   - every annotator's whole action history — labels, accepts, notes,
//     can't-judges, tags, re-tests, undos, with every column — interleaved
//     by time without reordering any input's own history, with new ids
//     and groups, each undo still pointing at the action it cancels. An
//     action met twice is kept once. An annotator found in several inputs
//     keeps every action, so their current label is the latest they gave
//     in any of them;
//   - every version of the guidelines, one per distinct text, numbered by
//     when it was first seen, each action pointing at its text's version;
//   - the union of the inputs' tag sets.
//
// out must not exist yet (or be empty). On failure nothing is left at
// out.
func Merge(out string, inputs []string) (sum MergeSummary, err error) {
	if len(inputs) == 0 {
		return sum, errors.New("nothing to merge: name the session files to merge")
	}
	if err := checkMergeOutput(out, inputs); err != nil {
		return sum, err
	}
	var ins []*mergeInput
	defer func() {
		for _, in := range ins {
			in.store.Close()
		}
	}()
	for _, p := range inputs {
		in, err := openMergeInput(p)
		if err != nil {
			return sum, err
		}
		ins = append(ins, in)
	}
	if sum.Notes, err = checkSameDataset(ins); err != nil {
		return sum, err
	}

	dst, err := Open(out, Options{Annotator: MergeAnnotator})
	if err != nil {
		return sum, err
	}
	defer func() {
		cerr := dst.Close()
		if err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			removeSession(out)
		}
	}()
	first := ins[0]
	if err := dst.InitDataset(first.info, first.items); err != nil {
		return sum, err
	}
	sum.Items = len(first.items)
	for _, in := range ins {
		dims, err := in.store.declaredScales()
		if err != nil {
			return sum, err
		}
		if err := dst.DeclareScales(dims); err != nil {
			return sum, fmt.Errorf("%s: %w", in.path, err)
		}
	}
	runs, err := mergeVerdicts(dst, ins, &sum)
	if err != nil {
		return sum, err
	}
	guidelines, err := mergeGuidelines(dst, ins)
	if err != nil {
		return sum, err
	}
	if err := mergeTags(dst, ins); err != nil {
		return sum, err
	}
	plans, err := mergePlans(dst, ins, runs, &sum)
	if err != nil {
		return sum, err
	}
	if err := mergeActions(dst, ins, guidelines, runs, plans, &sum); err != nil {
		return sum, err
	}
	sum.Annotators, err = dst.Annotators()
	return sum, err
}

// checkMergeOutput refuses an output that exists with content or that is
// one of the inputs.
func checkMergeOutput(out string, inputs []string) error {
	if out == "" {
		return errors.New("no output session given: name the new session file first, then the sessions to merge")
	}
	st, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("cannot use %s for the merged session: %v", out, err)
	case st.IsDir():
		return fmt.Errorf("%s is a folder: name a new file for the merged session", out)
	case st.Size() > 0:
		for _, in := range inputs {
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				return fmt.Errorf("%s is both the output and an input: name a new file for the merged session first", out)
			}
		}
		return fmt.Errorf("%s already exists: name a new file for the merged session (merge never overwrites a session)", out)
	}
	return nil
}

func openMergeInput(path string) (*mergeInput, error) {
	s, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	in := &mergeInput{path: path, store: s}
	info, ok, err := s.Dataset()
	if err == nil && !ok {
		err = fmt.Errorf("session %s holds no dataset yet: there is nothing in it to merge", path)
	}
	if err == nil {
		in.info = info
		in.items, err = s.Items()
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return in, nil
}

// checkSameDataset refuses inputs whose item ids differ, and notes those
// whose dataset content differs from the first's.
func checkSameDataset(ins []*mergeInput) ([]string, error) {
	first := ins[0]
	ids := make(map[string]bool, len(first.items))
	for _, it := range first.items {
		ids[it.ID] = true
	}
	var notes []string
	for _, in := range ins[1:] {
		var extra []string
		shared := 0
		for _, it := range in.items {
			if ids[it.ID] {
				shared++
			} else {
				extra = append(extra, it.ID)
			}
		}
		if len(extra) > 0 || shared != len(first.items) {
			missing := len(first.items) - shared
			msg := fmt.Sprintf("%s and %s hold different items (%d in %s, %d in %s; %d only in %s, %d only in %s)",
				first.path, in.path, len(first.items), first.path, len(in.items), in.path, missing, first.path, len(extra), in.path)
			if len(extra) > 0 {
				msg += ", e.g. " + strings.Join(extra[:min(3, len(extra))], ", ")
			}
			return nil, fmt.Errorf("%s: merge only sessions of the same dataset; to bring them to the same items, open each with the same file first (gavel review FILE --session SESSION)", msg)
		}
		if in.info.SHA256 != first.info.SHA256 {
			notes = append(notes, fmt.Sprintf("%s began from other file content than %s (SHA-256 %.12s… and %.12s…) with the same item ids: the items are taken from %s",
				in.path, first.path, in.info.SHA256, first.info.SHA256, first.path))
		}
	}
	return notes, nil
}

// taggedVerdict is a verdict of one input, for the merge order, with its
// id there and its print (verdictPrint).
type taggedVerdict struct {
	v     judge.Verdict
	input int
	id    int64
	print string
}

// mergedRuns is how the runs of every input map into the merged session.
type mergedRuns struct {
	ids []map[int64]int64 // per input: its run id -> the merged id
	key map[int64]string  // merged id -> run key
	// verdicts maps, per input, a verdict id to the merged verdict that
	// holds it (a repeat to the one kept); filled only when some input
	// has a labelling plan, whose rows name verdicts (mergePlans).
	verdicts []map[int64]int64
	// printed maps a run key, a NUL and a verdict's print to its merged id.
	printed map[string]int64
}

// newID returns the merged id of run id of input i, 0 for none.
func (m mergedRuns) newID(i int, id int64) int64 {
	if id == 0 {
		return 0
	}
	return m.ids[i][id]
}

// mergeVerdicts copies every run and verdict into dst, dropping repeats,
// and says how each input's runs map into dst.
func mergeVerdicts(dst *Store, ins []*mergeInput, sum *MergeSummary) (mergedRuns, error) {
	type merged struct {
		run  Run
		vs   []taggedVerdict
		seen map[string]bool
	}
	byKey := map[string]*merged{}
	var order []string
	ids := mergedRuns{ids: make([]map[int64]int64, len(ins)), key: map[int64]string{}}
	withIDs, err := anyPlans(ins)
	if err != nil {
		return ids, err
	}
	var repeats []taggedVerdict // with withIDs: the repeats left out, to map to the kept one
	for i, in := range ins {
		ids.ids[i] = map[int64]int64{}
		runs, err := in.store.Runs()
		if err != nil {
			return ids, err
		}
		for _, r := range runs {
			m := byKey[r.Key]
			if m == nil {
				run, err := dst.EnsureRun(r.Info)
				if err != nil {
					return ids, err
				}
				m = &merged{run: run, seen: map[string]bool{}}
				byKey[r.Key] = m
				order = append(order, r.Key)
			}
			ids.ids[i][r.ID] = m.run.ID
			ids.key[m.run.ID] = r.Key
			vs, err := in.store.everyVerdict(r.ID)
			if err != nil {
				return ids, err
			}
			var vids []int64
			if withIDs {
				if vids, err = in.store.runVerdictIDs(r.ID); err != nil {
					return ids, err
				}
			}
			nth := map[verdictUnit]int{}
			for k, v := range vs {
				u := verdictUnit{v.ItemID, v.Criterion, v.Swapped}
				fp := verdictPrint(v, nth[u])
				nth[u]++
				t := taggedVerdict{v: v, input: i, print: fp}
				if withIDs && k < len(vids) {
					t.id = vids[k]
				}
				if m.seen[fp] {
					sum.DuplicateVerdicts++
					if withIDs {
						repeats = append(repeats, taggedVerdict{input: i, id: t.id, print: r.Key + "\x00" + fp})
					}
					continue
				}
				m.seen[fp] = true
				m.vs = append(m.vs, t)
			}
		}
	}
	for _, k := range order {
		m := byKey[k]
		// Oldest first, so the latest verdict gets the highest id and is
		// current; within one time, inputs keep their order.
		sort.SliceStable(m.vs, func(a, b int) bool { return m.vs[a].v.At.Before(m.vs[b].v.At) })
		vs := make([]judge.Verdict, len(m.vs))
		for i, t := range m.vs {
			vs[i] = t.v
		}
		if err := dst.SaveVerdicts(m.run.ID, vs); err != nil {
			return ids, err
		}
		sum.Verdicts += len(vs)
		if withIDs {
			if err := ids.mapVerdicts(dst, m.run.ID, k, m.vs, len(ins)); err != nil {
				return ids, err
			}
		}
	}
	if withIDs {
		ids.mapRepeats(repeats)
	}
	sum.Runs = len(order)
	return ids, nil
}

// verdictUnit is what a verdict judges: an item, or one of its criteria,
// in one order (a swapped-order verdict has a history of its own).
type verdictUnit struct {
	item      string
	criterion int
	swapped   bool
}

// verdictPrint identifies a verdict of a run for the merge: its item and
// criterion, its place in the run's history of that unit (nth: 0 for the
// first verdict, 1 for the first re-judge…), its status, raw output and
// error. Not its time: two sessions that each judged the dataset with the
// same judge (two annotators opening the same file) hold the same first
// verdict at different times, and keeping both would make every item look
// re-judged (phantom flips in the statistics). A re-judge differs by its
// place, so it is never merged away; everything derived from a row
// (values, reason, tokens, extra fields, how they are read back) plays no
// part, so that no round trip can make one verdict look like two.
func verdictPrint(v judge.Verdict, nth int) string {
	b, _ := json.Marshal(struct {
		Item       string
		Criterion  int
		Swapped    bool
		Nth        int
		Status     judge.Status
		Raw, Error string
	}{v.ItemID, v.Criterion, v.Swapped, nth, v.Status, v.Raw, v.Error})
	return string(b)
}

// actionPrint identifies an action by everything but its ids and group
// (its guidelines by their SHA-256 and the run shown by its key, as ids
// differ between sessions); an undo by the action it cancels. Two
// decisions that differ only in what was on screen, or in their sitting,
// are two decisions.
func actionPrint(a Action, target, guidelines, shownRun string) string {
	b, _ := json.Marshal(struct {
		Kind                             ActionKind
		Item                             string
		Criterion                        int
		Dimension                        string
		Value                            float64
		Note, Via, Annotator, At, Undoes string
		Reason, Tag, Guidelines          string
		Shown                            Visibility
		ShownRun                         string
		Retest                           bool
		Appeared, Sitting                string
	}{a.Kind, a.ItemID, a.Criterion, a.Dimension, a.Value, a.Note, a.Via, a.Annotator, stamp(a.At), target,
		a.Reason, a.Tag, guidelines, a.Shown, shownRun, a.Retest, stampOrEmpty(a.Appeared), a.Sitting})
	return string(b)
}

// stampOrEmpty is stamp, with "" for the zero time.
func stampOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return stamp(t)
}

// mergeActions copies every input's action history into dst in one
// transaction, each action pointing at the merged guidelines version and
// run shown.
func mergeActions(dst *Store, ins []*mergeInput, guidelines mergedGuidelines, runs mergedRuns, plans []map[int64]int64, sum *MergeSummary) error {
	hist := make([][]Action, len(ins))
	for i, in := range ins {
		acts, err := in.store.Actions("")
		if err != nil {
			return err
		}
		remapPlanVias(acts, plans[i])
		hist[i] = acts
	}
	return dst.write("saving the merged actions", func(tx *sql.Tx) error {
		stmt, err := prepareInsertAction(tx)
		if err != nil {
			return err
		}
		defer stmt.Close()
		newID := map[string]int64{}                   // action print -> id in dst
		prints := make([]map[int64]string, len(hist)) // per input: old id -> print
		groups := map[[2]int64]int64{}                // (input, old group) -> new group
		undone := map[int64]bool{}                    // dst ids already undone
		var nextGroup int64 = 1
		heads := make([]int, len(hist))
		for i := range prints {
			prints[i] = map[int64]string{}
		}
		for {
			// The input whose next action is the oldest; ties go to the
			// earlier input. Each input's own order is never changed.
			pick := -1
			for i, h := range heads {
				if h < len(hist[i]) && (pick < 0 || hist[i][h].At.Before(hist[pick][heads[pick]].At)) {
					pick = i
				}
			}
			if pick < 0 {
				break
			}
			a := hist[pick][heads[pick]]
			heads[pick]++
			target := ""
			if a.Kind == KindUndo {
				target = prints[pick][a.Undoes]
			}
			a.Guidelines = guidelines.newID(pick, a.Guidelines)
			if a.ShownRun = runs.newID(pick, a.ShownRun); a.Shown == ShownVerdict && a.ShownRun == 0 {
				a.Shown = ShownUnknown // a run the input does not hold (a hand edit)
			}
			fp := actionPrint(a, target, guidelines.sha[a.Guidelines], runs.key[a.ShownRun])
			prints[pick][a.ID] = fp
			if _, dup := newID[fp]; dup {
				sum.DuplicateActions++
				continue
			}
			if a.Kind == KindUndo {
				t, ok := newID[target]
				if !ok || undone[t] {
					// Its action is missing, or another input's undo
					// already cancelled it: this one changes nothing.
					sum.DuplicateActions++
					continue
				}
				a.Undoes = t
				undone[t] = true
			}
			gk := [2]int64{int64(pick), a.Group}
			g, ok := groups[gk]
			if !ok {
				g = nextGroup
				nextGroup++
				groups[gk] = g
			}
			a.Group = g
			id, err := insertAction(stmt, a)
			if err != nil {
				return fmt.Errorf("action %d of %s: %w", a.ID, dst.path, err)
			}
			newID[fp] = id
			sum.Actions++
		}
		return nil
	})
}

// removeSession deletes a session file a failed merge was writing, with
// its WAL and shared-memory files.
func removeSession(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		os.Remove(p)
	}
}

// everyVerdict returns every verdict of a run, re-judges included, oldest
// first.
func (s *Store) everyVerdict(runID int64) ([]judge.Verdict, error) {
	var out []judge.Verdict
	err := s.read("reading verdict history", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT `+verdictColumns+`
			FROM verdicts v
			LEFT JOIN verdict_values vv ON vv.verdict_id = v.id
			WHERE v.run_id = ?
			ORDER BY v.id`, runID)
		if err != nil {
			return err
		}
		out, err = scanVerdicts(tx, rows)
		return err
	})
	return out, err
}
