package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/plan"
)

// Labelling plans (SPEC "Labels where they count"): `gavel plan` records
// in the session which items to label and with what inclusion
// probability, drawn from the verdicts of one judge run; the statistics
// weight each label made on the plan by the inverse of its probability.
// The drawing is package plan's; this file stores and reads plans.

// ErrPlan classifies the errors of a plan asked for in a way that cannot
// be drawn or found (an unknown judge or plan, -n larger than the items,
// an active plan with no verdicts): the caller's mistake, with a sentence
// saying what to do.
var ErrPlan = errors.New("plan cannot be drawn")

// PlanViaPrefix starts the provenance of a label made while following a
// plan: "plan:ID".
const PlanViaPrefix = "plan:"

// ImportedPlanViaPrefix starts the provenance a label made following a
// plan of another session takes when it is imported or merged without
// that plan: "imported-plan:ID". Its plan's probabilities are not known
// here, so the statistics set it apart (an unknown provenance), and it
// can never be read as this session's plan ID.
const ImportedPlanViaPrefix = "imported-" + PlanViaPrefix

// foreignPlanVia is via as a label brought from another session keeps
// it: "plan:ID" becomes "imported-plan:ID" (see ImportedPlanViaPrefix).
func foreignPlanVia(via string) string {
	if _, ok := ParsePlanVia(via); ok {
		return "imported-" + via
	}
	return via
}

// PlanVia is the provenance of labels made following plan id.
func PlanVia(id int64) string { return PlanViaPrefix + strconv.FormatInt(id, 10) }

// ParsePlanVia reads a provenance "plan:ID"; ok is false for any other.
func ParsePlanVia(via string) (id int64, ok bool) {
	rest, found := strings.CutPrefix(via, PlanViaPrefix)
	if !found || rest == "" || rest[0] == '+' || rest[0] == '-' || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id < 1 {
		return 0, false
	}
	return id, true
}

// PlanOptions say how CreatePlan draws a plan.
type PlanOptions struct {
	Design plan.Design
	// N is how many items to label: exactly N are chosen.
	N int
	// Seed fixes the items' permanent random numbers.
	Seed uint64
	// Judge names the run whose verdicts the plan is drawn from, as
	// RunNames names it (`gavel stats` shows it); "" picks the only run
	// with verdicts on whole items, and none when the session has none
	// (then a uniform or stratified plan estimates from the labels
	// alone); with several, "" is refused whatever the design.
	Judge string
	// Stratify is the field a stratified plan shares N among (a segment,
	// or any field of the rows, dotted paths included).
	Stratify string
}

// Plan is a plan as stored.
type Plan struct {
	ID     int64
	Design plan.Design
	// N is the plan's size: the number of items chosen (raised by
	// ExtendPlan).
	N    int
	Seed uint64
	// RunID is the run the plan was drawn from (0: none), Judge its name
	// as RunNames gives it now, and Dimension the run's first dimension,
	// the one the plan's estimates read.
	RunID     int64
	Judge     string
	Dimension string
	// Dimensions are all the run's dimensions, Dimension first among
	// them: a plan reads the first, and says so when there are others.
	Dimensions []string
	Stratify   string
	Floor      float64
	Created    time.Time
	// Items is how many items the plan covers: every item of the session
	// when it was drawn.
	Items int
}

// PlanUnit is one item in a plan.
type PlanUnit struct {
	ItemID string
	// VerdictID is the verdict the plan read (the run's current ok
	// verdict on the item when the plan was drawn); 0 when none.
	VerdictID int64
	Size      float64
	PRN       float64
	Stratum   string
	// Probability is the item's inclusion probability at the plan's
	// current size.
	Probability float64
	// Selected is set for the items to label; Rank is the item's place
	// in the plan's order (1 first), the order the review follows, and
	// StratumRank its place within its stratum (a stratified plan's order
	// interleaves the strata: each one's first item, then each one's
	// second…; Rank is StratumRank for the other designs).
	Selected    bool
	Rank        int
	StratumRank int
	// Why says in a few words why the item has its probability:
	// "uncertainty 0.71 (confidence 0.5)", "floor (…)", "certain (…)",
	// "uniform: 60 of 600", "stratum category=geo: 3 of 40". It may hold
	// a field's value from the dataset: escape it before a terminal.
	Why string
}

// PlanDraw is a plan with every item's row.
type PlanDraw struct {
	Plan Plan
	// Units holds every item of the plan, in dataset order.
	Units []PlanUnit
	// Selected lists the positions in Units of the items to label, in
	// the plan's order (certainties first, then by ξ = PRN/probability;
	// a stratified plan's by rank within the stratum, then ξ).
	Selected []int
	// Known counts the items whose verdict says how unsure it is (an
	// active plan's); MeanUncertainty is the mean of those, which the
	// others are given.
	Known           int
	MeanUncertainty float64
	// Notes are sentences for the person who drew the plan: a plan that
	// fell back to uniform and why, an extension that took more items
	// than asked.
	Notes []string
}

// planVerdict is what a plan reads of one verdict.
type planVerdict struct {
	id       int64
	item     string
	ok       bool // status ok with a value on the dimension
	value    float64
	evidence plan.Evidence
}

// planRun is the run a plan draws from, with what its verdicts are read
// on.
type planRun struct {
	id         int64
	name       string
	dimension  string
	scale      judge.Scale
	dimensions []string // every dimension of the run, dimension first
}

// PlanJudges lists, by RunNames, the runs a plan may be drawn from: the
// runs that judge whole items and have given verdicts.
func (s *Store) PlanJudges() ([]string, error) {
	var out []string
	err := s.read("reading the judge runs", func(tx *sql.Tx) error {
		runs, err := planCandidates(tx)
		for _, r := range runs {
			out = append(out, r.name)
		}
		return err
	})
	return out, err
}

// planCandidates are the runs a plan may be drawn from, oldest first.
func planCandidates(tx *sql.Tx) ([]planRun, error) {
	runs, err := readStatsRuns(tx)
	if err != nil {
		return nil, err
	}
	names := RunNames(runs)
	var out []planRun
	for _, r := range runs {
		if r.Info.PerCriterion || len(r.Info.Dimensions) == 0 {
			continue
		}
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM verdicts WHERE run_id = ? AND criterion = 0 AND swapped = 0 LIMIT 1)`, r.ID).Scan(&n); err != nil {
			return nil, err
		}
		if n > 0 {
			d := r.Info.Dimensions[0]
			out = append(out, planRun{id: r.ID, name: names[r.ID], dimension: d.Name, scale: d.Scale, dimensions: dimensionNames(r.Info.Dimensions)})
		}
	}
	return out, nil
}

// CreatePlan draws a plan and records it: every item's row (its verdict,
// size, permanent random number and stratum), so that the plan and its
// estimates never change when the run is re-judged. It returns the plan
// drawn, every item with its probability and why.
func (s *Store) CreatePlan(o PlanOptions) (PlanDraw, error) {
	var dr PlanDraw
	if _, err := plan.ParseDesign(string(o.Design)); err != nil {
		return dr, newError(ErrPlan, nil, "%v", err)
	}
	if o.N < 1 {
		return dr, newError(ErrPlan, nil, "a plan of %d items: ask for 1 or more with -n N", o.N)
	}
	o.Stratify = strings.TrimSpace(o.Stratify)
	switch {
	case o.Design == plan.Stratified && o.Stratify == "":
		return dr, newError(ErrPlan, nil, "a stratified plan needs the field to stratify by: --stratify FIELD (a segment such as category, or any field)")
	case o.Design != plan.Stratified && o.Stratify != "":
		return dr, newError(ErrPlan, nil, "--stratify %s is for --design stratified, not %s", strconv.Quote(o.Stratify), o.Design)
	}
	err := s.write("drawing a labelling plan", func(tx *sql.Tx) error {
		created := now()
		run, err := s.pickPlanRun(tx, o)
		if err != nil {
			return err
		}
		ids, strata, err := planItems(tx, o.Stratify)
		if err != nil {
			return err
		}
		N := len(ids)
		switch {
		case N == 0:
			return newError(ErrPlan, nil, "session %s has no items to plan", s.path)
		case o.N > N:
			return newError(ErrPlan, nil, "-n %d but session %s has %s: a plan chooses among them (ask for %d or fewer)", o.N, s.path, plural(N, "item", "items"), N)
		}
		if strata != nil {
			// An item no draw can reach (probability 0) could never be
			// weighted: every stratum needs a share.
			values := map[string]bool{}
			for _, v := range strata {
				values[v] = true
			}
			if o.N < len(values) {
				return newError(ErrPlan, nil, "-n %d is fewer than the %d values of %s: a stratified plan takes at least one item of each, or the others could never be estimated (ask for %d or more, or stratify by a field with fewer values)",
					o.N, len(values), strconv.Quote(o.Stratify), len(values))
			}
		}
		verdicts := map[string]planVerdict{}
		if run != nil {
			if verdicts, err = readPlanVerdicts(tx, *run, `WITH cur AS (
					SELECT max(id) AS id FROM verdicts WHERE run_id = ? AND criterion = 0 AND swapped = 0 GROUP BY item_id)
				SELECT v.id, v.item_id, v.status, v.confidence, v.extra, vv.value
				FROM cur JOIN verdicts v ON v.id = cur.id
				LEFT JOIN verdict_values vv ON vv.verdict_id = v.id AND vv.dimension = ?`, run.id, run.dimension); err != nil {
				return err
			}
			if o.Design == plan.Active {
				if err := addOtherJudges(tx, *run, verdicts, created); err != nil {
					return err
				}
			}
		}
		units := make([]PlanUnit, N)
		for i, id := range ids {
			units[i] = PlanUnit{ItemID: id, Size: 1, PRN: plan.PRN(o.Seed, id)}
			if strata != nil {
				units[i].Stratum = strata[i]
			}
			if v, ok := verdicts[id]; ok && v.ok {
				units[i].VerdictID = v.id
			}
		}
		p := Plan{Design: o.Design, N: o.N, Seed: o.Seed, Stratify: o.Stratify, Floor: plan.DefaultFloor, Created: created, Items: N}
		if run != nil {
			p.RunID, p.Judge, p.Dimension, p.Dimensions = run.id, run.name, run.dimension, run.dimensions
		}
		if o.Design == plan.Active {
			if run == nil {
				return newError(ErrPlan, nil, "an active plan samples by how unsure the judge is, and session %s has no verdicts to read: run a judge first (gavel run), import verdicts (gavel import), or draw --design uniform", s.path)
			}
			sizes, _, _ := activeSizes(units, verdicts)
			for i := range units {
				units[i].Size = sizes[i]
			}
		}
		var same int64
		err = tx.QueryRow(`SELECT coalesce(max(id), 0) FROM plans WHERE design = ? AND n = ? AND seed = ? AND coalesce(run_id, 0) = ? AND stratify = ?`,
			string(p.Design), p.N, int64(p.Seed), p.RunID, p.Stratify).Scan(&same)
		if err != nil {
			return err
		}
		if same != 0 && samePlanRows(tx, same, units) {
			return newError(ErrPlan, nil, "session %s already has this plan: plan %d (the same design, size, seed, judge and strata chooses the same items); gavel plan %s --show %d prints it, another --seed draws another",
				s.path, same, s.path, same)
		}
		res, err := tx.Exec(`INSERT INTO plans (design, n, seed, judge, run_id, stratify, floor, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			string(p.Design), p.N, int64(p.Seed), p.Judge, nullID(p.RunID), p.Stratify, p.Floor, stamp(p.Created))
		if err != nil {
			return err
		}
		if p.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		ins := newBatchInserter(tx, "plan_units", "plan_id", "item_id", "verdict_id", "size", "prn", "stratum")
		for _, u := range units {
			if err := ins.add(p.ID, u.ItemID, nullID(u.VerdictID), u.Size, u.PRN, u.Stratum); err != nil {
				return err
			}
		}
		if err := ins.flush(); err != nil {
			return err
		}
		dr = finishDraw(p, units, verdicts)
		return nil
	})
	return dr, err
}

// pickPlanRun finds the run o names, or the only candidate; nil when the
// session has no candidate and o names none (a uniform or stratified
// plan without a judge).
func (s *Store) pickPlanRun(tx *sql.Tx, o PlanOptions) (*planRun, error) {
	all, err := planCandidates(tx)
	if err != nil {
		return nil, err
	}
	// A plan's estimates are a pass rate or a mean score: a judge on a
	// nominal or pairwise scale has neither.
	var cands []planRun
	for _, c := range all {
		if k := c.scale.Kind(); k == judge.KindBinary || k == judge.KindOrdinal {
			cands = append(cands, c)
		}
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = strconv.Quote(c.name)
	}
	if want := strings.TrimSpace(o.Judge); want != "" {
		for i := range cands {
			if cands[i].name == want {
				return &cands[i], nil
			}
		}
		for _, c := range all {
			if c.name == want {
				return nil, newError(ErrPlan, nil, "judge %q rates %s on a %s scale (%s): a plan estimates a pass rate or a mean score, so it needs a binary or ordinal judge%s",
					want, c.dimension, c.scale.Kind(), c.scale, otherJudges(names))
			}
		}
		if len(cands) == 0 {
			return nil, newError(ErrPlan, nil, "no judge %q with verdicts on whole items in session %s: it has none (run one with gavel run, or import verdicts)", want, s.path)
		}
		return nil, newError(ErrPlan, nil, "no judge %q with verdicts on whole items in session %s: its judges are %s", want, s.path, strings.Join(names, ", "))
	}
	switch len(cands) {
	case 0:
		return nil, nil
	case 1:
		return &cands[0], nil
	}
	// Whatever the design: a uniform or stratified plan still reads one
	// judge, whose dimension its estimates are on and whose verdicts
	// give the corrected score (tour finding 2).
	return nil, newError(ErrPlan, nil, "session %s has verdicts of %d judges (%s): say which one the plan reads with --judge NAME, whatever the design: its estimates read that judge's dimension, and its verdicts correct the score", s.path, len(cands), strings.Join(names, ", "))
}

// samePlanRows reports whether plan id's rows are units: the same items
// with the same verdicts and sizes, so a plan of the same design, size
// and seed would choose the same items with the same probabilities. A
// re-judge since makes another plan. An error reads as not the same.
func samePlanRows(tx *sql.Tx, id int64, units []PlanUnit) bool {
	old, err := readPlanUnits(tx, id)
	if err != nil || len(old) != len(units) {
		return false
	}
	for i, u := range old {
		if u.ItemID != units[i].ItemID || u.VerdictID != units[i].VerdictID || u.Size != units[i].Size || u.Stratum != units[i].Stratum {
			return false
		}
	}
	return true
}

// otherJudges points at the judges a plan may read instead, for a
// message; "" when there is none.
func otherJudges(names []string) string {
	if len(names) == 0 {
		return " (draw --design uniform without --judge when the session has none)"
	}
	return ": " + strings.Join(names, ", ")
}

// planItems reads the items' ids in dataset order and, with field, each
// one's stratum (its value of the field, "" when it has none).
func planItems(tx *sql.Tx, field string) ([]string, []string, error) {
	if field == "" {
		ids, err := readStrings(tx, `SELECT item_id FROM items ORDER BY idx`)
		return ids, nil, err
	}
	items, err := readItems(tx)
	if err != nil {
		return nil, nil, err
	}
	groups, err := strata(items, field)
	if err != nil {
		return nil, nil, newError(ErrPlan, nil, "--stratify: %v", err)
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	st := make([]string, len(items))
	for value, members := range groups {
		for _, i := range members {
			st[i] = value
		}
	}
	return ids, st, nil
}

// readPlanVerdicts reads verdicts of run by query (with args): rows of id,
// item, status, confidence, extra and the value on the run's dimension.
// A verdict is ok when its status is ok and its value readable; its
// evidence holds what it says of its certainty (a confidence withheld as
// meaningless left out).
func readPlanVerdicts(tx *sql.Tx, run planRun, query string, args ...any) (map[string]planVerdict, error) {
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]planVerdict{}
	lo, hi := scaleEnds(run.scale)
	for rows.Next() {
		var (
			v      planVerdict
			status string
			conf   sql.NullFloat64
			extra  sql.NullString
			raw    any
		)
		if err := rows.Scan(&v.id, &v.item, &status, &conf, &extra, &raw); err != nil {
			return nil, err
		}
		x, ok := codec.decode(run.dimension, raw)
		v.ok = ok && judge.Status(status) == judge.StatusOK && !math.IsNaN(x)
		v.value = x
		v.evidence = plan.Evidence{Value: x}
		if run.scale.Ordinal() {
			v.evidence.Ordinal, v.evidence.Lo, v.evidence.Hi, v.evidence.Cut = true, lo, hi, plan.DefaultCut(lo, hi)
		}
		withheld := false
		if extra.Valid {
			withheld = strings.Contains(extra.String, `"`+ExtraConfidenceWithheld+`"`)
			v.evidence.Samples, v.evidence.SampleConfidences = sampleValues(extra.String, run.dimension)
		}
		if conf.Valid && !withheld && !math.IsNaN(conf.Float64) {
			c := conf.Float64
			v.evidence.Confidence = &c
		}
		out[v.item] = v
	}
	return out, rows.Err()
}

// addOtherJudges gives each verdict of run, in its evidence, the values
// the other judges that rate the same dimension on the same scale gave
// the item: each one's latest verdict made by the time the plan was
// drawn (created), when it is ok. A score is read by its cut instead
// (plan.Uncertainty), so ordinal runs are left as they are. Reading by
// the plan's time keeps a plan's reasons as they were when it was drawn,
// whatever was judged since.
func addOtherJudges(tx *sql.Tx, run planRun, verdicts map[string]planVerdict, created time.Time) error {
	if run.scale.Ordinal() {
		return nil
	}
	cands, err := planCandidates(tx)
	if err != nil {
		return err
	}
	codec, err := loadCodec(tx)
	if err != nil {
		return err
	}
	for _, c := range cands {
		if c.id == run.id || c.dimension != run.dimension || c.scale != run.scale {
			continue
		}
		err := func() error {
			rows, err := tx.Query(`WITH cur AS (
					SELECT max(id) AS id FROM verdicts
					WHERE run_id = ? AND criterion = 0 AND swapped = 0 AND created_at <= ? GROUP BY item_id)
				SELECT v.item_id, v.status, vv.value
				FROM cur JOIN verdicts v ON v.id = cur.id
				LEFT JOIN verdict_values vv ON vv.verdict_id = v.id AND vv.dimension = ?`, c.id, stamp(created), c.dimension)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var (
					item, status string
					raw          any
				)
				if err := rows.Scan(&item, &status, &raw); err != nil {
					return err
				}
				x, ok := codec.decode(c.dimension, raw)
				pv, has := verdicts[item]
				if !ok || !has || judge.Status(status) != judge.StatusOK || math.IsNaN(x) {
					continue
				}
				pv.evidence.Others = append(pv.evidence.Others, x)
				verdicts[item] = pv
			}
			return rows.Err()
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// scaleEnds is the lowest and highest value of a scale.
func scaleEnds(s judge.Scale) (lo, hi float64) {
	vals := s.Values()
	if len(vals) == 0 {
		return 0, 0
	}
	return vals[0], vals[len(vals)-1]
}

// sampleValues reads the values on dim of the readable samples a verdict's
// extra fields keep (judge/llm's "samples": [{"status": "ok", "values":
// {dim: x}, "confidence": c}, …]), with each one's confidence beside it
// (NaN for none; confs is nil when no sample has one); nil when there
// are no samples.
func sampleValues(extra, dim string) (values, confs []float64) {
	if !strings.Contains(extra, `"`+ExtraSamples+`"`) {
		return nil, nil
	}
	var doc struct {
		Samples []struct {
			Status     string             `json:"status"`
			Values     map[string]float64 `json:"values"`
			Confidence *float64           `json:"confidence"`
		} `json:"samples"`
	}
	if err := json.Unmarshal([]byte(extra), &doc); err != nil {
		return nil, nil
	}
	any := false
	for _, smp := range doc.Samples {
		if x, ok := smp.Values[dim]; ok && smp.Status == string(judge.StatusOK) {
			values = append(values, x)
			c := math.NaN()
			if smp.Confidence != nil {
				c, any = *smp.Confidence, true
			}
			confs = append(confs, c)
		}
	}
	if !any {
		confs = nil
	}
	return values, confs
}

// activeSizes gives each unit its uncertainty, the mean of the known ones
// when its verdict says none (or it has no ok verdict).
func activeSizes(units []PlanUnit, verdicts map[string]planVerdict) (sizes []float64, mean float64, allUnknown bool) {
	u := make([]float64, len(units))
	known := make([]bool, len(units))
	for i, unit := range units {
		if v, ok := verdicts[unit.ItemID]; ok && v.ok && unit.VerdictID != 0 {
			u[i], _, known[i] = plan.Uncertainty(v.evidence)
		}
	}
	return plan.Sizes(u, known)
}

// finishDraw works out every unit's probability, selection, rank and why
// from the stored rows of plan p.
func finishDraw(p Plan, units []PlanUnit, verdicts map[string]planVerdict) PlanDraw {
	pu := make([]plan.Unit, len(units))
	for i, u := range units {
		pu[i] = plan.Unit{ItemID: u.ItemID, Size: u.Size, PRN: u.PRN, Stratum: u.Stratum}
	}
	d := plan.Draw(p.Design, pu, p.N, p.Floor)
	dr := PlanDraw{Plan: p, Units: units, Selected: d.Selected}
	for i := range units {
		units[i].Probability, units[i].Selected, units[i].Rank, units[i].StratumRank = d.Prob[i], d.In[i], d.Rank[i], d.StratumRank[i]
	}
	N := len(units)
	switch p.Design {
	case plan.Uniform:
		why := fmt.Sprintf("uniform: %d of %d", min(p.N, N), N)
		for i := range units {
			units[i].Why = why
		}
	case plan.Stratified:
		size, drawn := map[string]int{}, map[string]int{}
		for _, u := range units {
			size[u.Stratum]++
			if u.Selected {
				drawn[u.Stratum]++
			}
		}
		for i, u := range units {
			value := u.Stratum
			if value == "" {
				value = "(none)"
			}
			units[i].Why = fmt.Sprintf("stratum %s=%s: %d of %d", p.Stratify, value, drawn[u.Stratum], size[u.Stratum])
		}
		var single []string
		for v, d := range drawn {
			if d == 1 && size[v] > 1 {
				if v == "" {
					v = "(none)"
				}
				single = append(single, strconv.Quote(v))
			}
		}
		if len(single) > 0 {
			slices.Sort(single)
			verb := "have"
			if len(single) == 1 {
				verb = "has"
			}
			dr.Notes = append(dr.Notes, fmt.Sprintf("%s of %s %s %s 1 planned item: a stratum needs two labels for a variance of its own, so %s will be estimated together with the stratum nearest in probability (collapsed strata), a wider interval (-n %d or more gives every stratum two).",
				plural(len(single), "stratum", "strata"), p.Stratify, strings.Join(single, ", "), verb, pickWord(len(single), "its variance", "theirs"), twoEach(size)))
		}
	case plan.Active:
		_, mean, allUnknown := activeSizes(units, verdicts)
		total := 0.0
		for _, u := range units {
			total += u.Size
		}
		for i, u := range units {
			v, has := verdicts[u.ItemID]
			has = has && v.ok && u.VerdictID != 0
			unc, how, known := 0.0, "", false
			if has {
				unc, how, known = plan.Uncertainty(v.evidence)
			}
			if known {
				dr.Known++
			}
			var why string
			switch {
			case allUnknown:
				why = "uniform: no verdict says how unsure it is"
			case total == 0:
				why = "uniform: every verdict is fully sure"
			case known:
				why = fmt.Sprintf("uncertainty %s (%s)", short2(unc), how)
			case has:
				why = fmt.Sprintf("uncertainty %s, the mean (the verdict says nothing of its certainty)", short2(mean))
			default:
				why = fmt.Sprintf("uncertainty %s, the mean (no ok verdict)", short2(mean))
			}
			switch {
			case p.N >= N && (allUnknown || total == 0):
				why = "certain: the plan takes every item"
			case p.N >= N:
				why = "certain (the plan takes every item): " + why
			case units[i].Probability >= 1:
				why = "certain: " + why
			case !(allUnknown || total == 0) && p.Floor/float64(N) >= (1-p.Floor)*u.Size/total:
				why = "floor: " + why
			}
			units[i].Why = why
		}
		dr.MeanUncertainty = mean
		switch {
		case allUnknown:
			dr.Notes = append(dr.Notes, fmt.Sprintf("No verdict of %s says how unsure it is (no confidence, no samples, no ordinal score): with every item's uncertainty unknown, every item has the same probability, so the active plan is a uniform one.", p.Judge))
		case total == 0:
			dr.Notes = append(dr.Notes, fmt.Sprintf("Every verdict of %s is fully sure (uncertainty 0): no item is more worth a label than another, so the active plan is a uniform one.", p.Judge))
		}
	}
	return dr
}

// pickWord is one or many by n.
func pickWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// twoEach is the smallest plan size that gives every stratum of these
// sizes two items (or all of a smaller one).
func twoEach(size map[string]int) int {
	n := 0
	for _, s := range size {
		n += min(s, 2)
	}
	return n
}

// dimensionNames lists the names of dims, in order.
func dimensionNames(dims []judge.Dimension) []string {
	out := make([]string, len(dims))
	for i, d := range dims {
		out[i] = d.Name
	}
	return out
}

// short2 writes a number with two decimals.
func short2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// planColumns is what readPlans reads of a plan.
const planColumns = `p.id, p.design, p.n, p.seed, p.judge, coalesce(p.run_id, 0), p.stratify, p.floor, p.created,
	(SELECT count(*) FROM plan_units u WHERE u.plan_id = p.id)`

// Plans returns the session's plans, oldest first.
func (s *Store) Plans() ([]Plan, error) {
	var out []Plan
	err := s.read("reading the labelling plans", func(tx *sql.Tx) error {
		var err error
		out, err = readPlans(tx, "", nil)
		return err
	})
	return out, err
}

// PlanLabelled counts, per plan id, the items labelled following the
// plan ("plan:ID") on its dimension of the whole item, or marked can't
// judge there, by anyone, undone ones and re-tests left out: how far
// each plan got, for `gavel plan`'s list. One pass over the actions made
// following a plan.
func (s *Store) PlanLabelled() (map[int64]int, error) {
	out := map[int64]int{}
	err := s.read("counting the labels made on plans", func(tx *sql.Tx) error {
		plans, err := readPlans(tx, "", nil)
		if err != nil || len(plans) == 0 {
			return err
		}
		dim := map[int64]string{}
		for _, p := range plans {
			dim[p.ID] = p.Dimension
		}
		rows, err := tx.Query(`SELECT a.via, a.item_id, a.kind, a.criterion, a.dimension FROM actions a
			WHERE a.via LIKE 'plan:%' AND a.kind IN ('label', 'accept', 'cant_judge') AND a.retest = 0
			  AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id)`)
		if err != nil {
			return err
		}
		defer rows.Close()
		seen := map[int64]map[string]bool{}
		for rows.Next() {
			var (
				via, item, kind, d string
				criterion          int
			)
			if err := rows.Scan(&via, &item, &kind, &criterion, &d); err != nil {
				return err
			}
			id, ok := ParsePlanVia(via)
			want, known := dim[id]
			if !ok || !known {
				continue
			}
			if kind != string(KindCantJudge) && (criterion != 0 || (want != "" && d != want)) {
				continue
			}
			if seen[id] == nil {
				seen[id] = map[string]bool{}
			}
			if !seen[id][item] {
				seen[id][item] = true
				out[id]++
			}
		}
		return rows.Err()
	})
	return out, err
}

// readPlans reads the plans where keeps (a WHERE clause on plans p, with
// args), oldest first, each named by its run's current name.
func readPlans(tx *sql.Tx, where string, args []any) ([]Plan, error) {
	runs, err := readStatsRuns(tx)
	if err != nil {
		return nil, err
	}
	names := RunNames(runs)
	dims := map[int64][]string{}
	for _, r := range runs {
		if len(r.Info.Dimensions) > 0 {
			dims[r.ID] = dimensionNames(r.Info.Dimensions)
		}
	}
	rows, err := tx.Query(`SELECT `+planColumns+` FROM plans p `+where+` ORDER BY p.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Plan
	for rows.Next() {
		var (
			p       Plan
			design  string
			seed    int64
			created string
		)
		if err := rows.Scan(&p.ID, &design, &p.N, &seed, &p.Judge, &p.RunID, &p.Stratify, &p.Floor, &created, &p.Items); err != nil {
			return nil, err
		}
		p.Design, p.Seed = plan.Design(design), uint64(seed)
		if p.Created, err = parseStamp(created); err != nil {
			return nil, err
		}
		if n, ok := names[p.RunID]; ok {
			p.Judge, p.Dimensions = n, dims[p.RunID]
			if len(p.Dimensions) > 0 {
				p.Dimension = p.Dimensions[0]
			}
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Plan returns plan id with every item's row, as CreatePlan returned it
// (at the plan's current size).
func (s *Store) Plan(id int64) (PlanDraw, error) {
	var dr PlanDraw
	err := s.read("reading a labelling plan", func(tx *sql.Tx) error {
		var err error
		dr, err = s.readPlan(tx, id)
		return err
	})
	return dr, err
}

// readPlan reads plan id whole.
func (s *Store) readPlan(tx *sql.Tx, id int64) (PlanDraw, error) {
	ps, err := readPlans(tx, "WHERE p.id = ?", []any{id})
	if err != nil {
		return PlanDraw{}, err
	}
	if len(ps) == 0 {
		return PlanDraw{}, noPlan(tx, s.path, id)
	}
	p := ps[0]
	units, err := readPlanUnits(tx, id)
	if err != nil {
		return PlanDraw{}, err
	}
	verdicts := map[string]planVerdict{}
	if p.RunID != 0 {
		runs, err := readStatsRuns(tx)
		if err != nil {
			return PlanDraw{}, err
		}
		for _, r := range runs {
			if r.ID == p.RunID && len(r.Info.Dimensions) > 0 {
				run := planRun{id: r.ID, name: p.Judge, dimension: r.Info.Dimensions[0].Name, scale: r.Info.Dimensions[0].Scale}
				if verdicts, err = readPlanVerdicts(tx, run, `SELECT v.id, v.item_id, v.status, v.confidence, v.extra, vv.value
					FROM plan_units u JOIN verdicts v ON v.id = u.verdict_id
					LEFT JOIN verdict_values vv ON vv.verdict_id = v.id AND vv.dimension = ?
					WHERE u.plan_id = ?`, run.dimension, id); err != nil {
					return PlanDraw{}, err
				}
				if p.Design == plan.Active {
					if err := addOtherJudges(tx, run, verdicts, p.Created); err != nil {
						return PlanDraw{}, err
					}
				}
			}
		}
	}
	return finishDraw(p, units, verdicts), nil
}

// readPlanUnits reads plan id's rows in dataset order.
func readPlanUnits(tx *sql.Tx, id int64) ([]PlanUnit, error) {
	rows, err := tx.Query(`SELECT u.item_id, coalesce(u.verdict_id, 0), u.size, u.prn, u.stratum
		FROM plan_units u JOIN items i ON i.item_id = u.item_id
		WHERE u.plan_id = ? ORDER BY i.idx`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PlanUnit
	for rows.Next() {
		var u PlanUnit
		if err := rows.Scan(&u.ItemID, &u.VerdictID, &u.Size, &u.PRN, &u.Stratum); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// noPlan is the error for a plan id the session does not have, listing
// those it has.
func noPlan(tx *sql.Tx, path string, id int64) error {
	ids, err := readStrings(tx, `SELECT CAST(id AS TEXT) FROM plans ORDER BY id`)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return newError(ErrPlan, nil, "session %s has no labelling plan %d: it has none yet (draw one with gavel plan)", path, id)
	}
	return newError(ErrPlan, nil, "session %s has no labelling plan %d: its plans are %s", path, id, strings.Join(ids, ", "))
}

// ExtendPlan raises plan id's size to n, keeping every item it had
// chosen: the same permanent random numbers, so the larger plan holds
// the smaller one. When the probabilities of the larger size would leave
// one of the chosen items out (package plan's Superset: a stratum whose
// share shrank, several items capped at once), the plan takes the first
// larger size that keeps them all, and a note says so.
func (s *Store) ExtendPlan(id int64, n int) (PlanDraw, error) {
	var dr PlanDraw
	err := s.write("extending a labelling plan", func(tx *sql.Tx) error {
		cur, err := s.readPlan(tx, id)
		if err != nil {
			return err
		}
		N := len(cur.Units)
		switch {
		case n <= cur.Plan.N:
			return newError(ErrPlan, nil, "plan %d already chooses %d items: extend it to more than %d", id, cur.Plan.N, cur.Plan.N)
		case n > N:
			return newError(ErrPlan, nil, "plan %d covers %s: it cannot choose %d (ask for %d or fewer)", id, plural(N, "item", "items"), n, N)
		}
		pu := make([]plan.Unit, N)
		for i, u := range cur.Units {
			pu[i] = plan.Unit{ItemID: u.ItemID, Size: u.Size, PRN: u.PRN, Stratum: u.Stratum}
		}
		m := plan.Superset(cur.Plan.Design, pu, cur.Plan.N, n, cur.Plan.Floor)
		if _, err := tx.Exec(`UPDATE plans SET n = ? WHERE id = ?`, m, id); err != nil {
			return err
		}
		if dr, err = s.readPlan(tx, id); err != nil {
			return err
		}
		if m != n {
			dr.Notes = append(dr.Notes, fmt.Sprintf("Extended to %d items rather than %d: at %d the probabilities would have left out an item already in the plan.", m, n, n))
		}
		return nil
	})
	return dr, err
}

// SelectedIDs lists the ids of the items to label, in the plan's order.
func (d PlanDraw) SelectedIDs() []string {
	out := make([]string, len(d.Selected))
	for i, k := range d.Selected {
		out[i] = d.Units[k].ItemID
	}
	return out
}

// InPlan reports whether the plan chose the item with this id.
func (d PlanDraw) InPlan(itemID string) bool {
	return slices.ContainsFunc(d.Selected, func(k int) bool { return d.Units[k].ItemID == itemID })
}

// PlanChose reports whether plan id, at its current size, chose the item
// with this id, and how many items it chose of how many: what `gavel
// label --via plan:ID` checks, without reading the plan's verdicts.
func (s *Store) PlanChose(id int64, itemID string) (chosen bool, n, items int, err error) {
	err = s.read("reading a labelling plan", func(tx *sql.Tx) error {
		ps, err := readPlans(tx, "WHERE p.id = ?", []any{id})
		if err != nil {
			return err
		}
		if len(ps) == 0 {
			return noPlan(tx, s.path, id)
		}
		units, err := planRows(tx, id) // any order: the draw does not depend on it
		if err != nil {
			return err
		}
		pu := make([]plan.Unit, len(units))
		at := -1
		for i, u := range units {
			pu[i] = plan.Unit{ItemID: u.ItemID, Size: u.Size, PRN: u.PRN, Stratum: u.Stratum}
			if u.ItemID == itemID {
				at = i
			}
		}
		d := plan.Draw(ps[0].Design, pu, ps[0].N, ps[0].Floor)
		chosen, n, items = at >= 0 && d.In[at], len(d.Selected), len(units)
		return nil
	})
	return chosen, n, items, err
}
