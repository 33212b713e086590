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
	// LoadEach, when set, is Load handing the verdicts to put as they are
	// read, chunk by chunk (put copies them: vs may be reused), rather
	// than in Loaded's Verdicts and Swapped: the screen packs them into
	// its records as they come, off its goroutine, and never holds a
	// million whole verdicts. It is called in place of Load.
	LoadEach func(put func(vs []judge.Verdict, swapped bool)) (Loaded, error)
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

// loadedMsg carries a run's loaded verdicts, packed.
type loadedMsg struct {
	run    int
	loaded Loaded // without Verdicts and Swapped: packed holds them
	packed *runView
	err    error
}

// loadRun calls a run's Load (or LoadEach) in the background, and packs
// the verdicts it reads there too, into records of their own (packed)
// that the screen then adopts whole (runView.adopt): packing a million
// verdicts takes a while, which a key press must not wait for. The
// records are made at the first verdict (store), not while Load waits
// (a new dataset's session being written): 32 MB at a million items.
func loadRun(run int, r *runView) tea.Cmd {
	load, each, index := r.load, r.loadEach, r.ids
	return func() tea.Msg {
		p := &runView{
			tab:    newVerdictTables(),
			ids:    index,
			detail: emptyDetails(0),
		}
		var (
			l   Loaded
			err error
		)
		if each != nil {
			l, err = each(func(vs []judge.Verdict, swapped bool) { p.putAll(index, vs, swapped) })
		} else {
			l, err = load()
		}
		p.putAll(index, l.Verdicts, false)
		p.putAll(index, l.Swapped, true)
		l.Verdicts, l.Swapped = nil, nil
		return loadedMsg{run: run, loaded: l, packed: p, err: err}
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
	info judge.Info
	key  string
	id   int64 // in the session; 0 when unknown
	// verdicts are the current verdicts as compact records
	// (verdict_store.go), per item one per criterion; tab holds what the
	// records of both orders point into.
	verdicts verdictSlots
	tab      verdictTables
	// ids finds an item's position, and its id for a whole verdict.
	ids *itemIndex
	// swapped holds the swapped-order verdicts (the position-bias audit),
	// per item like verdicts; nSwapped counts the slots filled, so that
	// the swap filter is offered only where it can match. Its slots are
	// not made until a run has a swapped-order verdict (swappedSlots):
	// most judges never have one.
	swapped  verdictSlots
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
	// load (or loadEach), until it has run, reads the verdicts; loading
	// is true meanwhile.
	load     func() (Loaded, error)
	loadEach func(func([]judge.Verdict, bool)) (Loaded, error)
	loading  bool
	// filled counts the slots filled, both orders: a run's records are
	// adopted whole from its load only while it has none (adopt).
	filled int
	// detail holds the whole verdicts of the item last shown
	// (workspace.detailed).
	detail detailCache
}

func newRunView(r Run, index *itemIndex, n int) *runView {
	v := &runView{
		info:     r.Info,
		key:      r.Key,
		id:       r.ID,
		tab:      newVerdictTables(),
		ids:      index,
		streams:  map[int]*stream{},
		rejudge:  r.Rejudge,
		cost:     r.Cost,
		stopped:  r.Stopped,
		was:      map[vkey]judge.Verdict{},
		detail:   emptyDetails(0),
		load:     r.Load,
		loadEach: r.LoadEach,
		loading:  r.Load != nil || r.LoadEach != nil,
	}
	if !v.loading {
		// A run still to load has no records until its load's are
		// adopted (or a verdict comes first: store).
		v.verdicts.first = make([]cverdict, n)
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
	if r.detail.item == i || r.detail.asked == i {
		r.detail.forget() // a newer verdict of the item shown: read again
	}
	r.store(i, &vd, remember)
	return i
}

// store keeps vd as item i's current verdict of its criterion and order.
func (r *runView) store(i int, vd *judge.Verdict, remember bool) {
	slots := r.firstSlots()
	if vd.Swapped {
		slots = r.swappedSlots()
	}
	key := vkey{i, vd.Criterion, vd.Swapped}
	if remember {
		// Read before pack overwrites what more holds of it.
		if c := slots.find(i, vd.Criterion); c != nil {
			r.was[key] = r.tab.unpack(c, key, r.itemID(i))
		}
	}
	c := r.tab.pack(vd, key)
	if c.status == codeTruncated {
		r.nTruncated++
	}
	old, replaced := slots.set(i, c)
	if !replaced {
		r.filled++
		if vd.Swapped {
			r.nSwapped++
		}
		return
	}
	if old.status == codeTruncated {
		r.nTruncated--
	}
	if old.more && !c.more {
		delete(r.tab.more, key)
	}
}

// putAll stores verdicts read from the session (swapped: of the second
// order) as put does, but for the details of the item shown, which are
// read again only when an item that had verdicts gets another (an
// item's verdicts that come together, one per criterion, into an item
// that has none yet are the ones its details were read with). The
// verdicts are copied into the run's records: vs is not kept, and may
// be changed (swapped ones are marked).
func (r *runView) putAll(index *itemIndex, vs []judge.Verdict, swapped bool) {
	if len(vs) == 0 {
		return
	}
	slots := &r.verdicts
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
			if swapped {
				group[k].Swapped = true
			}
			same = same && group[k].Swapped == swapped
		}
		i, ok := index.at(group[0].ItemID)
		if !ok {
			continue
		}
		if slots.has(i) || !same || !distinctCriteria(group) {
			for _, vd := range group {
				r.put(index, vd, false)
			}
			continue
		}
		for k := range group {
			r.store(i, &group[k], false)
		}
	}
}

// adopt takes in the verdicts a load packed (loadRun), as putAll of them
// would: p's records and tables whole while the run has no verdict (the
// common case, a moment's work), else each of p's verdicts stored over
// the run's (a re-judge's verdicts came first).
func (r *runView) adopt(p *runView) {
	if r.filled == 0 && (!r.verdicts.made() || !p.verdicts.made() || len(p.verdicts.first) == len(r.verdicts.first)) {
		r.verdicts, r.swapped, r.tab = p.verdicts, p.swapped, p.tab
		r.filled, r.nSwapped, r.nTruncated = p.filled, p.nSwapped, p.nTruncated
		return
	}
	for _, swapped := range []bool{false, true} {
		from, to := &p.verdicts, &r.verdicts
		if swapped {
			from = &p.swapped
			if !from.made() {
				continue
			}
			to = r.swappedSlots()
		}
		for i := range from.first {
			if from.head(i) == nil {
				continue
			}
			if to.has(i) && (r.detail.item == i || r.detail.asked == i) {
				r.detail.forget()
			}
			for c := from.head(i); c != nil; c = from.after(c) {
				vd := p.tab.unpack(c, vkey{i, int(c.crit), swapped}, r.itemID(i))
				if i < len(r.verdicts.first) {
					r.store(i, &vd, false)
				}
			}
		}
	}
}

// swappedSlots returns the swapped-order slots, made (as long as the
// verdicts' slots, with their room) at the first swapped-order verdict.
func (r *runView) swappedSlots() *verdictSlots {
	if !r.swapped.made() {
		first := r.firstSlots().first
		r.swapped.first = make([]cverdict, len(first), cap(first))
	}
	return &r.swapped
}

// firstSlots returns the first order's slots, made at the count of the
// items placed so far when they are not yet (a run still loading, and
// the records a load packs: loadRun).
func (r *runView) firstSlots() *verdictSlots {
	if !r.verdicts.made() {
		r.verdicts.first = make([]cverdict, len(r.ids.items))
	}
	return &r.verdicts
}

// hasSwapped reports whether an item has a swapped-order verdict.
func (r *runView) hasSwapped(item int) bool { return r.swapped.has(item) }

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

// itemID is the id of the item at a position, for a whole verdict.
func (r *runView) itemID(item int) string {
	if r.ids == nil || item >= len(r.ids.items) {
		return ""
	}
	return r.ids.items[item].ID
}

// verdict returns the current verdict of an item's criterion, whole (as
// held: see verdict_store.go).
func (r *runView) verdict(item, crit int) (judge.Verdict, bool) {
	c := r.verdicts.find(item, crit)
	if c == nil {
		return judge.Verdict{}, false
	}
	return r.tab.unpack(c, vkey{item, crit, false}, r.itemID(item)), true
}

// swappedVerdict returns the current swapped-order verdict of an item's
// criterion.
func (r *runView) swappedVerdict(item, crit int) (judge.Verdict, bool) {
	c := r.swapped.find(item, crit)
	if c == nil {
		return judge.Verdict{}, false
	}
	return r.tab.unpack(c, vkey{item, crit, true}, r.itemID(item)), true
}

// hasVerdict reports whether an item has a verdict of the first order.
func (r *runView) hasVerdict(item int) bool { return r.verdicts.has(item) }

// confidence is the lowest confidence of an item's verdicts (the first
// order's), if any has one.
func (r *runView) confidence(item int) (float64, bool) {
	lowest, has := 1.0, false
	for c := r.verdicts.head(item); c != nil; c = r.verdicts.after(c) {
		if c.conf == c.conf {
			lowest, has = min(lowest, c.conf), true
		} else if c.more {
			if p := r.tab.more[vkey{item, int(c.crit), false}].conf; p != nil {
				lowest, has = min(lowest, *p), true
			}
		}
	}
	return lowest, has
}

// anyStatus reports whether any of an item's verdicts, either order, has
// a status is accepts.
func (r *runView) anyStatus(item int, is func(judge.Status) bool) bool {
	for _, s := range []*verdictSlots{&r.verdicts, &r.swapped} {
		for c := s.head(item); c != nil; c = s.after(c) {
			st := judge.Status("")
			if c.status < codeOther {
				st = codeStatus[c.status]
			} else {
				st = r.tab.more[vkey{item, int(c.crit), s == &r.swapped}].status
			}
			if is(st) {
				return true
			}
		}
	}
	return false
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
	return r.tab.value(r.verdicts.find(item, rw.crit), rw.dim.Name)
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
