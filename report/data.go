package report

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Options says what a report covers and how it is labelled.
type Options struct {
	// Version is Gavel's version, for the provenance.
	Version string
	// Generated is when the report was written; zero leaves it out (tests
	// compare reports byte for byte).
	Generated time.Time
	// Split is the part of the session's split the statistics cover, nil
	// when no part was chosen.
	Split *stats.SplitUsed
	// Stats are the options the report's statistics were computed with;
	// the accumulation curves count parse errors as they do.
	Stats stats.Options
	// MaxDisagreements caps the items listed with their text: when more
	// items have a disagreement, a seeded random sample of this many is
	// listed (in dataset order), so a large session gives a page a browser
	// opens. 0 lists every one.
	MaxDisagreements int
}

// DefaultMaxDisagreements is how many items with a disagreement `gavel
// report` lists by default.
const DefaultMaxDisagreements = 5000

// Data is everything a report shows: the statistics as `gavel stats`
// computed them, and what the session says about where they come from.
type Data struct {
	// Session is the session file's name (not its directory).
	Session string
	// Dataset is the session's dataset, nil when it has none.
	Dataset *sessions.DatasetInfo
	// Stats is the statistics report, as `gavel stats --format json`
	// prints it for the same session and options.
	Stats stats.Report
	// Judges holds, for each judge of Stats.Judges and in that order, its
	// run and the report's extra views of it.
	Judges []Judge
	// Annotators lists everyone who labelled, with their counts.
	Annotators []Annotator
	// Disagreements lists the items where a judge's current ok verdict
	// differs from the humans' label, in dataset order: all of them, or a
	// sample of Options.MaxDisagreements.
	Disagreements []Disagreement
	// LabelledTogether is set when every current label has one time (an
	// import, a merge): the order they were labelled in is then the
	// dataset's, and the curve of agreement as labels accumulate says so.
	LabelledTogether bool
	// DisagreeingItems is how many items have a disagreement, listed or
	// not.
	DisagreeingItems int
	// Labelled is the number of labelled units (any dimension).
	Labelled int
	Options
}

// Judge is one judge of the report.
type Judge struct {
	// Index is the judge's place in Stats.Judges (and in the JSON).
	Index  int
	Report stats.JudgeReport
	// Run is the session's run behind the judge; nil when none matches
	// (a report built from an input without a session).
	Run *sessions.Run
	// Accumulation holds, per dimension (as in Report.Dimensions), the
	// agreement with the humans over the first labelled units.
	Accumulation [][]Point
	// Disagreements counts, per dimension, the units where the judge
	// disagrees with the humans (listed or not).
	Disagreements []int
	// pairs are, per dimension, the units and values its agreement with
	// the humans counts (stats.Pairs under the report's options): read
	// once, for the curve and the list of disagreements.
	pairs [][]stats.Pair
}

// Annotator is one person who labelled.
type Annotator struct {
	Name   string
	Labels int
	Notes  int
	// Via counts the annotator's labels by how the items were reached.
	Via map[string]int
}

// Disagreement is one item where at least one judge disagrees with the
// humans.
type Disagreement struct {
	ItemID     string
	Criterion  int
	Rubric     string // the criterion's text, for a per-criterion unit
	Question   string
	Gold       string
	Prediction string
	ResponseA  string
	ResponseB  string
	Segments   map[string]string
	Humans     []HumanLabel
	Verdicts   []Verdict
}

// HumanLabel is one annotator's label on a dimension of the item, with
// their note on the item.
type HumanLabel struct {
	Annotator, Dimension, Value, Note, Via string
}

// Verdict is one judge's verdict that disagrees with the humans.
type Verdict struct {
	Judge     string
	Dimension string
	Value     string
	Human     string
	Reason    string
	// Raw is the model's output when the verdict has no reason.
	Raw string
}

// Gather reads what a report shows besides the statistics from s: the
// dataset, the runs, the annotators and the text of every item a judge
// disagrees on. in is the input rep was computed from (stats.Compute), rep
// the report as `gavel stats` gives it (render.Select applied when only
// some judges are wanted).
func Gather(s *sessions.Store, in stats.Input, rep stats.Report, o Options) (*Data, error) {
	d := &Data{Session: filepath.Base(s.Path()), Stats: rep, Options: o}
	ds, ok, err := s.Dataset()
	if err != nil {
		return nil, err
	}
	if ok {
		d.Dataset = &ds
	}
	runs, err := s.Runs()
	if err != nil {
		return nil, err
	}
	names := sessions.RunNames(runs)
	byName := map[string]*sessions.Run{}
	for i := range runs {
		byName[names[runs[i].ID]] = &runs[i]
	}
	for i, jr := range rep.Judges {
		d.Judges = append(d.Judges, Judge{Index: i, Report: jr, Run: byName[jr.Judge]})
	}
	labels, err := s.Labels("")
	if err != nil {
		return nil, err
	}
	notes, err := s.Notes("")
	if err != nil {
		return nil, err
	}
	d.gatherAnnotators(labels, notes)
	d.LabelledTogether = len(labels) > 1 && !slices.ContainsFunc(labels, func(l sessions.Label) bool { return !l.At.Equal(labels[0].At) })
	for ji := range d.Judges {
		j := &d.Judges[ji]
		if j.pairs, err = stats.Pairs(in, j.Report.Judge, d.Options.Stats); err != nil {
			return nil, err
		}
	}
	d.accumulate(in, labelOrder(labels))
	if err := d.gatherDisagreements(s, in, labels, notes); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Data) gatherAnnotators(labels []sessions.Label, notes []sessions.Note) {
	by := map[string]*Annotator{}
	get := func(name string) *Annotator {
		a := by[name]
		if a == nil {
			a = &Annotator{Name: name, Via: map[string]int{}}
			by[name] = a
		}
		return a
	}
	type unit struct {
		item      string
		criterion int
	}
	labelled := map[unit]bool{}
	for _, l := range labels {
		a := get(l.Annotator)
		a.Labels++
		via := l.Via
		if via == "" {
			via = "unknown"
		}
		a.Via[via]++
		labelled[unit{l.ItemID, l.Criterion}] = true
	}
	for _, n := range notes {
		get(n.Annotator).Notes++
	}
	d.Labelled = len(labelled)
	for _, a := range by {
		d.Annotators = append(d.Annotators, *a)
	}
	slices.SortFunc(d.Annotators, func(a, b Annotator) int { return cmp.Compare(a.Name, b.Name) })
}

// labelOrder is the order units were first labelled in: by unit, the id of
// the earliest current label's action.
func labelOrder(labels []sessions.Label) map[unitKey]int64 {
	first := map[unitKey]int64{}
	for _, l := range labels {
		k := unitKey{l.ItemID, l.Criterion}
		if at, ok := first[k]; !ok || l.ActionID < at {
			first[k] = l.ActionID
		}
	}
	return first
}

type unitKey struct {
	item      string
	criterion int
}

func (d *Data) gatherDisagreements(s *sessions.Store, in stats.Input, labels []sessions.Label, notes []sessions.Note) error {
	type found struct {
		unit    int
		judge   int
		dim     judge.Dimension
		verdict float64
		human   float64
	}
	var all []found
	for ji := range d.Judges {
		j := &d.Judges[ji]
		// The pairs the figures count, under the same options: the list
		// holds exactly the units off the confusion matrix's diagonal.
		pairs := j.pairs
		j.Disagreements = make([]int, len(j.Report.Dimensions))
		for di, dr := range j.Report.Dimensions {
			if di >= len(pairs) {
				break
			}
			dim := judge.Dimension{Name: dr.Dimension, Scale: dr.Scale}
			for _, p := range pairs[di] {
				if p.Judge == p.Human {
					continue
				}
				j.Disagreements[di]++
				all = append(all, found{p.Unit, ji, dim, p.Judge, p.Human})
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b found) int { return cmp.Compare(a.unit, b.unit) })
	var units []int
	for i, f := range all {
		if i == 0 || f.unit != all[i-1].unit {
			units = append(units, f.unit)
		}
	}
	d.DisagreeingItems = len(units)
	if n := d.MaxDisagreements; n > 0 && len(units) > n {
		// A seeded sample, so the same session gives the same page.
		r := rand.New(rand.NewPCG(d.Stats.Seed, uint64(len(units))))
		r.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
		keep := map[int]bool{}
		for _, u := range units[:n] {
			keep[u] = true
		}
		all = slices.DeleteFunc(all, func(f found) bool { return !keep[f.unit] })
	}
	items, err := s.Items()
	if err != nil {
		return err
	}
	byID := make(map[string]*judge.Item, len(items))
	for i := range items {
		byID[items[i].ID] = &items[i]
	}
	noteOf := map[[2]string]string{}
	for _, n := range notes {
		noteOf[[2]string{n.ItemID, n.Annotator}] = n.Text
	}
	viaOf := map[string]string{}
	for _, l := range labels {
		viaOf[fmt.Sprint(l.ItemID, "\x00", l.Criterion, "\x00", l.Dimension, "\x00", l.Annotator)] = l.Via
	}
	// The verdicts' reasons: a few items' verdicts are read item by item,
	// many in one read of each run.
	listed := 0
	for i, f := range all {
		if i == 0 || f.unit != all[i-1].unit {
			listed++
		}
	}
	reasons := map[int]map[unitKey]judge.Verdict{}
	reasonOf := func(ji int, k unitKey) judge.Verdict {
		if r := d.Judges[ji].Run; r != nil && listed*20 < len(in.Units) {
			vs, err := s.ItemVerdicts(r.Info, k.item)
			if err != nil {
				return judge.Verdict{}
			}
			for _, v := range vs {
				if v.Criterion == k.criterion && !v.Swapped {
					return v
				}
			}
			return judge.Verdict{}
		}
		m, ok := reasons[ji]
		if !ok {
			m = map[unitKey]judge.Verdict{}
			if r := d.Judges[ji].Run; r != nil {
				vs, err := s.Verdicts(r.ID)
				if err == nil {
					for _, v := range vs {
						m[unitKey{v.ItemID, v.Criterion}] = v
					}
				}
			}
			reasons[ji] = m
		}
		return m[k]
	}
	for i := 0; i < len(all); {
		start := all[i].unit
		u := in.Units[start]
		dis := Disagreement{ItemID: u.ItemID, Criterion: u.Criterion, Segments: u.Segments}
		if it := byID[u.ItemID]; it != nil {
			dis.Question, dis.Gold, dis.Prediction = it.Question, it.Gold, it.Prediction
			dis.ResponseA, dis.ResponseB = it.ResponseA, it.ResponseB
			if u.Criterion > 0 && u.Criterion <= len(it.Rubric) {
				dis.Rubric = it.Rubric[u.Criterion-1]
			}
		}
		dims := map[string]judge.Dimension{}
		for ; i < len(all) && all[i].unit == start; i++ {
			f := all[i]
			jv := reasonOf(f.judge, unitKey{u.ItemID, u.Criterion})
			v := Verdict{
				Judge:     d.Judges[f.judge].Report.Judge,
				Dimension: f.dim.Name,
				Value:     f.dim.Scale.Format(f.verdict),
				Human:     f.dim.Scale.Format(f.human),
				Reason:    jv.Reason,
			}
			if v.Reason == "" {
				v.Raw = jv.Raw
			}
			dis.Verdicts = append(dis.Verdicts, v)
			dims[f.dim.Name] = f.dim
		}
		for _, l := range u.Labels {
			for _, name := range slices.Sorted(maps.Keys(dims)) {
				dim := dims[name]
				if v, ok := l.Values[name]; ok && dim.Scale.Valid(v) {
					dis.Humans = append(dis.Humans, HumanLabel{
						Annotator: l.Annotator,
						Dimension: name,
						Value:     dim.Scale.Format(v),
						Note:      noteOf[[2]string{u.ItemID, l.Annotator}],
						Via:       viaOf[fmt.Sprint(u.ItemID, "\x00", u.Criterion, "\x00", name, "\x00", l.Annotator)],
					})
				}
			}
		}
		d.Disagreements = append(d.Disagreements, dis)
	}
	return nil
}
