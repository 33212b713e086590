package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// Run is one judge run as the review screen shows it: its configuration,
// the verdicts already in the session, and, while it is judging, the
// stream of newly committed verdicts.
type Run struct {
	Info judge.Info
	// Key names the run in the statistics report (sessions.RunNames).
	Key string
	// ID is the run's id in the session (Options.Compare takes it, and a
	// decision made with its verdict on screen records it as the run
	// shown); 0 when unknown, and the run is then not offered for
	// comparison and its verdict on screen is recorded as unknown.
	ID int64
	// Verdicts are the run's current verdicts (latest per item and
	// criterion), in any order.
	Verdicts []judge.Verdict
	// Swapped are the run's current swapped-order verdicts (the pair
	// judged with its responses shown B first, Verdict.Swapped set), kept
	// beside Verdicts as each item's second order, never in its place.
	Swapped []judge.Verdict
	// Judging streams the verdicts still to come; nil when the run has
	// nothing left to judge.
	Judging *sessions.Judging
	// Pending is how many tasks Judging has to do.
	Pending int
	// Rejudge judges tasks again, asking the model afresh (no cached
	// answer) and keeping the earlier verdicts as history. nil when the
	// run cannot be re-judged from this screen (its judge was not named on
	// the command line).
	Rejudge func(tasks []judge.Task) (*sessions.Judging, error)
	// Cost, when set, says on one line what re-judging tasks would send
	// and cost (requests, prompt tokens, price), for R's confirmation. It
	// may take a while (every prompt is tokenised): the screen calls it
	// off its goroutine and cancels ctx when the question is answered.
	Cost func(ctx context.Context, tasks []judge.Task) (string, error)
	// Stopped says why judging stopped before its end (the server refused
	// the API key, the model does not exist…), or nil. It is asked each
	// time a Judging of this run finishes.
	Stopped func() error
	// Load, when set, reads the run's verdicts and starts its judging
	// after the first frame, off the screen's goroutine, so that a large
	// session opens at once; Verdicts, Judging and Pending are then
	// filled by what it returns.
	Load func() (Loaded, error)
}

// Loaded is what a Run's Load found.
type Loaded struct {
	// ID is the run's id in the session, for a Run whose ID was not
	// known before its Load (a new dataset's session, written meanwhile);
	// 0 leaves Run.ID as it was.
	ID       int64
	Verdicts []judge.Verdict
	Swapped  []judge.Verdict // as Run.Swapped
	Judging  *sessions.Judging
	Pending  int
}

// loadedMsg carries a run's loaded verdicts.
type loadedMsg struct {
	run    int
	loaded Loaded
	err    error
}

// loadRun calls a run's Load in the background.
func loadRun(run int, load func() (Loaded, error)) tea.Cmd {
	return func() tea.Msg {
		l, err := load()
		return loadedMsg{run: run, loaded: l, err: err}
	}
}

// stream is one Judging of a run whose batches the screen is reading.
type stream struct {
	judging *sessions.Judging // nil in tests that feed batches by hand
	ch      <-chan sessions.Batch
	last    sessions.Batch
	quiet   bool // its end is not logged unless it failed
}

// row is one thing a person labels on an item: a dimension of the active
// judge, for the whole item (criterion 0) or for one rubric criterion.
type row struct {
	crit int
	dim  judge.Dimension
}

// vkey names one verdict slot: an item's criterion, in the order the
// pair was shown (swapped) for pairwise items.
type vkey struct {
	item, crit int
	swapped    bool
}

// runView is a run's verdicts indexed for drawing, and its judging.
type runView struct {
	info     judge.Info
	key      string
	id       int64             // in the session; 0 when unknown
	verdicts [][]judge.Verdict // per item, one per criterion
	// swapped holds the swapped-order verdicts (the position-bias audit),
	// per item like verdicts; nSwapped counts the slots filled, so that
	// the swap filter is offered only where it can match. It is nil
	// until a run has a swapped-order verdict (swappedSlots): most judges
	// never have one, and a slot per item is 24 MB at a million.
	swapped  [][]judge.Verdict
	nSwapped int
	// nTruncated counts the current verdicts (either order) that are
	// truncated (the server cut the prompt), so that their filter is
	// offered only where it can match.
	nTruncated int
	streams    map[int]*stream
	next       int // the id of the next stream
	rejudge    func([]judge.Task) (*sessions.Judging, error)
	cost       func(context.Context, []judge.Task) (string, error)
	stopped    func() error
	// was holds the verdict a re-judge replaced, for items re-judged
	// since the screen opened, so the pane can say what changed.
	was map[vkey]judge.Verdict
	// load, until it has run, reads the verdicts; loading is true
	// meanwhile.
	load    func() (Loaded, error)
	loading bool
	// values holds one Values map per (dimension, value) of the run's
	// one-dimension verdicts, which share it (see share).
	values map[oneValue]map[string]float64
	// detail holds the whole verdicts of the item last shown
	// (workspace.detailed).
	detail detailCache
}

// oneValue is a Values map of one dimension.
type oneValue struct {
	dim   string
	value float64
}

// share has a verdict of one dimension hold the run's map of its value:
// a million verdicts hold a handful of values, and a map each is ~250
// bytes. Nothing changes a verdict's Values once made.
func (r *runView) share(vd *judge.Verdict) {
	if len(vd.Values) != 1 {
		return
	}
	for d, x := range vd.Values {
		k := oneValue{d, x}
		if m, ok := r.values[k]; ok {
			vd.Values = m
		} else if len(r.values) < 1024 && x == x { // NaN is never found again
			if r.values == nil {
				r.values = map[oneValue]map[string]float64{}
			}
			r.values[k] = vd.Values
		}
	}
}

func newRunView(r Run, index *itemIndex, n int) *runView {
	v := &runView{
		info:     r.Info,
		key:      r.Key,
		id:       r.ID,
		verdicts: make([][]judge.Verdict, n),
		streams:  map[int]*stream{},
		rejudge:  r.Rejudge,
		cost:     r.Cost,
		stopped:  r.Stopped,
		was:      map[vkey]judge.Verdict{},
		detail:   emptyDetails(0),
		load:     r.Load,
		loading:  r.Load != nil,
	}
	v.putAll(index, r.Verdicts, false)
	v.putAll(index, r.Swapped, true)
	if r.Judging != nil {
		v.add(r.Judging, r.Pending)
	}
	return v
}

// add starts reading a Judging's batches and returns its stream id.
func (r *runView) add(j *sessions.Judging, total int) int {
	id := r.next
	r.next++
	r.streams[id] = &stream{judging: j, ch: j.Batches(), last: sessions.Batch{Total: total}}
	return id
}

// judging reports whether verdicts are still coming.
func (r *runView) judging() bool { return len(r.streams) > 0 }

// prioritize asks every running judging of the run to judge an item next.
func (r *runView) prioritize(itemID string) {
	for _, s := range r.streams {
		if s.judging != nil {
			s.judging.Prioritize(itemID)
		}
	}
}

// progress sums the counters of the streams still running.
func (r *runView) progress() sessions.Batch {
	var p sessions.Batch
	for _, s := range r.streams {
		p.Done += s.last.Done
		p.Total += s.last.Total
		p.Errors += s.last.Errors
		p.ParseErrors += s.last.ParseErrors
		p.APIErrors += s.last.APIErrors
		p.Truncated += s.last.Truncated
		p.Retries += s.last.Retries
		p.Tokens += s.last.Tokens
	}
	return p
}

// put stores a verdict as the current one for its item, criterion and
// order (a swapped-order verdict is the item's second order, beside the
// first), and returns the item's index (-1 for an unknown item). With
// remember set, a replaced verdict is kept in was.
func (r *runView) put(index *itemIndex, vd judge.Verdict, remember bool) int {
	i, ok := index.at(vd.ItemID)
	if !ok {
		return -1
	}
	r.share(&vd)
	if vd.Status == judge.StatusTruncated {
		r.nTruncated++
	}
	if r.detail.item == i || r.detail.asked == i {
		r.detail.forget() // a newer verdict of the item shown: read again
	}
	slots := r.verdicts
	if vd.Swapped {
		slots = r.swappedSlots()
	}
	vs := slots[i]
	for k := range vs {
		if vs[k].Criterion == vd.Criterion {
			if remember {
				r.was[vkey{i, vd.Criterion, vd.Swapped}] = vs[k]
			}
			if vs[k].Status == judge.StatusTruncated {
				r.nTruncated--
			}
			vs[k] = vd
			return i
		}
	}
	slots[i] = append(vs, vd)
	if vd.Swapped {
		r.nSwapped++
	}
	return i
}

// putAll stores verdicts read from the session (swapped: of the second
// order) as put does. An item's verdicts that come together, one per
// criterion, into an item that has none yet are not copied: the item's
// slot is their part of vs (capped, so that a later put copies it
// first). A million verdicts then cost their one array rather than an
// allocation each. vs is the caller's to give: it is changed in place.
func (r *runView) putAll(index *itemIndex, vs []judge.Verdict, swapped bool) {
	if len(vs) == 0 {
		return
	}
	slots := r.verdicts
	if swapped {
		slots = r.swappedSlots()
	}
	for a := 0; a < len(vs); {
		b := a + 1
		for b < len(vs) && vs[b].ItemID == vs[a].ItemID {
			b++
		}
		group := vs[a:b:b]
		a = b
		same := true
		for k := range group {
			r.share(&group[k])
			if swapped {
				group[k].Swapped = true
			}
			same = same && group[k].Swapped == swapped
		}
		i, ok := index.at(group[0].ItemID)
		if !ok {
			continue
		}
		if len(slots[i]) > 0 || !same || !distinctCriteria(group) {
			for _, vd := range group {
				r.put(index, vd, false)
			}
			continue
		}
		slots[i] = group
		if swapped {
			r.nSwapped += len(group)
		}
		for k := range group {
			if group[k].Status == judge.StatusTruncated {
				r.nTruncated++
			}
		}
	}
}

// swappedSlots returns the swapped-order slots, made (as long as the
// verdicts' slots, with their room) at the first swapped-order verdict.
func (r *runView) swappedSlots() [][]judge.Verdict {
	if r.swapped == nil {
		r.swapped = make([][]judge.Verdict, len(r.verdicts), cap(r.verdicts))
	}
	return r.swapped
}

// swappedOf returns an item's swapped-order verdicts.
func (r *runView) swappedOf(item int) []judge.Verdict {
	if item < len(r.swapped) {
		return r.swapped[item]
	}
	return nil
}

// distinctCriteria reports whether no two verdicts are about the same
// criterion.
func distinctCriteria(vs []judge.Verdict) bool {
	for k := 1; k < len(vs); k++ {
		for l := 0; l < k; l++ {
			if vs[k].Criterion == vs[l].Criterion {
				return false
			}
		}
	}
	return true
}

// verdict returns the current verdict of an item's criterion.
func (r *runView) verdict(item, crit int) (judge.Verdict, bool) {
	for _, v := range r.verdicts[item] {
		if v.Criterion == crit {
			return v, true
		}
	}
	return judge.Verdict{}, false
}

// swappedVerdict returns the current swapped-order verdict of an item's
// criterion.
func (r *runView) swappedVerdict(item, crit int) (judge.Verdict, bool) {
	for _, v := range r.swappedOf(item) {
		if v.Criterion == crit {
			return v, true
		}
	}
	return judge.Verdict{}, false
}

// rows lists what a person labels on an item for this run's judge
// (judge.Rows: `gavel label` takes an item's rows from there too).
func (r *runView) rows(it judge.Item) []row {
	var out []row
	for _, x := range judge.Rows(r.info, it) {
		out = append(out, row{crit: x.Criterion, dim: x.Dimension})
	}
	return out
}

// judgeValue is the run's value for a row, if it has an ok verdict.
func (r *runView) judgeValue(item int, rw row) (float64, bool) {
	v, ok := r.verdict(item, rw.crit)
	if !ok || !v.OK() {
		return 0, false
	}
	x, ok := v.Values[rw.dim.Name]
	return x, ok
}

// name is how the header and messages call the run: the judge's name
// and model, or, when the session holds several runs of them, the key
// that tells it from the others by its variant ("docqa@2 · gpt-4o").
func (r *runView) name() string {
	if r.variantKey() {
		return Clip(r.key, 256)
	}
	if r.info.Model != "" {
		return Clip(r.info.Name, 128) + " · " + Clip(r.info.Model, 128)
	}
	return Clip(r.info.Name, 128)
}

// variantKey reports whether the run's key names it by its variant
// (sessions.RunNames: "NAME@K", when runs share a name and model).
func (r *runView) variantKey() bool {
	return r.info.Name != "" && strings.HasPrefix(r.key, r.info.Name+"@")
}

// shortName is the judge's name, or its variant's ("docqa@2") when the
// session holds several runs of it, for the status line.
func (r *runView) shortName() string {
	if r.variantKey() {
		name, _, _ := strings.Cut(r.key, " · ")
		return name
	}
	return r.info.Name
}
