package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// labellingItems are items i1…i24; the judge's verdict on item k is k mod
// 2 (odd YES, even NO).
func labellingItems() []judge.Item {
	var out []judge.Item
	for k := 1; k <= 24; k++ {
		out = append(out, judge.Item{Index: k - 1, ID: fmt.Sprintf("i%d", k), Question: "q", Gold: "g", Prediction: "p"})
	}
	return out
}

func verdictOf(k int) float64 { return float64(k % 2) }

// labellingSession is a session built with sessions.Open and Record as
// the screen records decisions (visibility, time on screen, re-tests,
// "can't judge", tags), with one binary judge, "match".
type labellingSession struct {
	t        *testing.T
	ann, bob *Store
	path     string
	// run is the judge "match"'s run, the one shown.
	run int64
}

func newLabellingSession(t *testing.T) *labellingSession {
	t.Helper()
	path := sessionPath(t)
	ann := openStore(t, path, "ann")
	if err := ann.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, labellingItems()); err != nil {
		t.Fatal(err)
	}
	run, err := ann.EnsureRun(judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	var vs []judge.Verdict
	for k := 1; k <= 24; k++ {
		vs = append(vs, judge.Verdict{ItemID: fmt.Sprintf("i%d", k), Status: judge.StatusOK, Values: map[string]float64{"correct": verdictOf(k)}, At: t0})
	}
	if err := ann.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	return &labellingSession{t: t, ann: ann, bob: openStore(t, path, "bob"), path: path, run: run.ID}
}

// decide records one decision of s on item k: a label or accept agreeing
// with the judge or not, with the verdict shown, hidden or unknown, on
// screen for onScreen (0: not recorded).
func (ls *labellingSession) decide(s *Store, kind ActionKind, k int, agree bool, shown Visibility, retest bool, onScreen time.Duration) {
	ls.t.Helper()
	v := verdictOf(k)
	if !agree {
		v = 1 - v
	}
	a := Action{Kind: kind, ItemID: fmt.Sprintf("i%d", k), Dimension: "correct", Value: v, Via: "random", Shown: shown, Retest: retest}
	if shown == ShownVerdict {
		a.ShownRun = ls.run
	}
	if onScreen > 0 {
		a.Appeared = time.Now().Add(-onScreen)
	}
	if _, err := s.Record([]Action{a}); err != nil {
		ls.t.Fatal(err)
	}
}

func (ls *labellingSession) record(s *Store, a Action) {
	ls.t.Helper()
	if _, err := s.Record([]Action{a}); err != nil {
		ls.t.Fatal(err)
	}
}

// build records the decisions the tests below count by hand.
func (ls *labellingSession) build() {
	const sec = 5 * time.Second
	ann, bob := ls.ann, ls.bob
	// Blind, first looks: i1–i10; i3 and i6 disagree with the judge.
	for k := 1; k <= 10; k++ {
		ls.decide(ann, KindLabel, k, k != 3 && k != 6, ShownBlind, false, sec)
	}
	// Shown: labels and accepts on i11–i16; i14 disagrees.
	for k := 11; k <= 16; k++ {
		kind := KindLabel
		if k == 12 || k == 15 {
			kind = KindAccept
		}
		ls.decide(ann, kind, k, k != 14, ShownVerdict, false, sec)
	}
	// i1's blind label changed after the reveal: a change, not a new look.
	ls.decide(ann, KindLabel, 1, false, ShownVerdict, false, 400*time.Second) // a pause
	// Visibility unknown (as gavel label writes it): no side of the check.
	ls.decide(ann, KindLabel, 17, true, ShownUnknown, false, 0)
	// An undone blind label counts nowhere.
	ls.decide(ann, KindLabel, 18, false, ShownBlind, false, sec)
	if _, err := ann.Undo(); err != nil {
		ls.t.Fatal(err)
	}
	// ann cannot judge i5 after all: its blind label leaves every figure.
	ls.record(ann, Action{Kind: KindCantJudge, ItemID: "i5", Reason: ReasonGoldWrong, Shown: ShownBlind, Appeared: time.Now().Add(-sec)})
	// Re-tests, blind: i2 same, i4 changed, i7 and i9 same.
	ls.decide(ann, KindLabel, 2, true, ShownBlind, true, sec)
	ls.decide(ann, KindLabel, 4, false, ShownBlind, true, sec)
	ls.decide(ann, KindLabel, 7, true, ShownBlind, true, sec)
	ls.decide(ann, KindLabel, 9, true, ShownBlind, true, sec)
	// Tags.
	for _, a := range []Action{
		{Kind: KindTag, ItemID: "i3", Tag: "format", Value: 1},
		{Kind: KindTag, ItemID: "i3", Tag: "hallucinated gold", Value: 1},
		{Kind: KindTag, ItemID: "i6", Tag: "format", Value: 1},
		{Kind: KindTag, ItemID: "i6", Tag: "format", Value: 0}, // taken off
		{Kind: KindTag, ItemID: "i14", Tag: "too strict", Value: 1},
		{Kind: KindTag, ItemID: "i20", Tag: "format", Value: 1},
	} {
		ls.record(ann, a)
	}
	// bob: i5 agrees, i6 disagrees (as ann), i7 labelled then can't judge.
	ls.decide(bob, KindLabel, 5, true, ShownVerdict, false, sec)
	ls.decide(bob, KindLabel, 6, false, ShownBlind, false, sec)
	ls.decide(bob, KindLabel, 7, true, ShownBlind, false, sec)
	ls.record(bob, Action{Kind: KindCantJudge, ItemID: "i7", Reason: ReasonAmbiguous, Shown: ShownBlind, Appeared: time.Now().Add(-sec)})
	ls.record(bob, Action{Kind: KindTag, ItemID: "i14", Tag: "format", Value: 1})
}

func (ls *labellingSession) report(o StatsOptions) (stats.Input, stats.Report) {
	ls.t.Helper()
	in, err := ls.ann.StatsInputWith(o)
	if err != nil {
		ls.t.Fatal(err)
	}
	return in, stats.Compute(in, stats.Options{Seed: 1, Resamples: 200})
}

func annotatorOf(t *testing.T, rep stats.Report, name string) stats.AnnotatorReliability {
	t.Helper()
	if rep.Labelling == nil {
		t.Fatal("no labelling section")
	}
	for _, a := range rep.Labelling.Annotators {
		if a.Annotator == name {
			return a
		}
	}
	t.Fatalf("no reliability for %s in %+v", name, rep.Labelling.Annotators)
	return stats.AnnotatorReliability{}
}

// The anchoring check of a session built with Record equals a hand count
// of the decisions above.
func TestLabellingAnchoringHandCount(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	_, rep := ls.report(StatsOptions{})
	ann := annotatorOf(t, rep, "ann")
	if len(ann.Anchoring) != 1 {
		t.Fatalf("anchoring = %+v", ann.Anchoring)
	}
	a := ann.Anchoring[0]
	// Blind first looks: i1–i10 without i5 (can't judge) = 9, of which i3
	// and i6 disagree = 7 agreed (i1 counts as its blind label). Shown:
	// i11–i16 = 6 (accepts included), i14 disagrees = 5 agreed. i17
	// (unknown), i18 (undone) and the re-tests are in neither.
	const blindN, blindAgreed, shownN, shownAgreed = 9, 7, 6, 5
	if a.Judge != "match" || a.Blind.N != blindN || a.Blind.Agreed != blindAgreed || a.Shown.N != shownN || a.Shown.Agreed != shownAgreed {
		t.Fatalf("anchoring = %+v", a)
	}
	want := float64(shownAgreed)/shownN - float64(blindAgreed)/blindN
	if math.Abs(a.Difference.Value-want) > 1e-12 {
		t.Errorf("difference %v, want %v", a.Difference.Value, want)
	}
	iv := stats.NewcombeIndependent(shownAgreed, shownN, blindAgreed, blindN)
	if a.Difference != iv || !(iv.Low < 0 && iv.High > 0) || a.Large || a.Sentence != "" {
		t.Errorf("difference %+v, want %+v and not large", a.Difference, iv)
	}
	if w := stats.Wilson(blindAgreed, blindN); a.Blind.Agreement != w {
		t.Errorf("blind agreement %+v, want %+v", a.Blind.Agreement, w)
	}
}

// "Can't judge" leaves the annotator's labels on the item out of every
// agreement figure, judge–human and human–human, and is counted by reason.
func TestLabellingCantJudgeExcludedAndCounted(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	in, rep := ls.report(StatsOptions{})
	for _, u := range in.Units {
		for _, l := range u.Labels {
			if (u.ItemID == "i5" && l.Annotator == "ann") || (u.ItemID == "i7" && l.Annotator == "bob") {
				t.Errorf("%s's label on %s is in the input", l.Annotator, u.ItemID)
			}
		}
	}
	cj := rep.Labelling.CantJudge
	want := stats.CantJudgeReport{Total: 2, Items: 2, LabelsLeftOut: 2,
		ByReason: stats.ReasonCounts{GoldWrong: 1, Ambiguous: 1},
		ByAnnotator: []stats.AnnotatorCantJudge{
			{Annotator: "ann", Total: 1, ByReason: stats.ReasonCounts{GoldWrong: 1}},
			{Annotator: "bob", Total: 1, ByReason: stats.ReasonCounts{Ambiguous: 1}},
		}}
	if cj == nil || fmt.Sprint(*cj) != fmt.Sprint(want) {
		t.Errorf("cant_judge = %+v, want %+v", cj, want)
	}
	// Judge vs humans: ann labelled i1–i4, i6–i17 (16 items, i5 out), bob
	// i5 and i6 (i7 out): 17 items.
	if n := rep.Judges[0].Dimensions[0].Overall.VsHumans.N; n != 17 {
		t.Errorf("judge vs humans n = %d, want 17", n)
	}
	// Between people only i6 has both.
	h := rep.Humans[0]
	if len(h.Pairs) != 1 || h.Pairs[0].N != 1 || h.Pairable != 1 {
		t.Errorf("humans = %+v", h)
	}
	// Undone, the mark gives the label back.
	if _, err := ls.bob.Undo(); err != nil { // bob's tag
		t.Fatal(err)
	}
	if _, err := ls.bob.Undo(); err != nil { // bob's "can't judge"
		t.Fatal(err)
	}
	_, rep = ls.report(StatsOptions{})
	if cj := rep.Labelling.CantJudge; cj.Total != 1 || cj.ByReason.Ambiguous != 0 || cj.LabelsLeftOut != 1 {
		t.Errorf("after undo: %+v", cj)
	}
	if h := rep.Humans[0]; h.Pairable != 2 {
		t.Errorf("after undo, pairable = %d, want 2 (i6, i7)", h.Pairable)
	}
	// A label ends ann's mark on i5 and a new mark starts another: one
	// mark, on one item, not the first counted again.
	ls.record(ls.ann, Action{Kind: KindLabel, ItemID: "i5", Dimension: "correct", Value: 1, Shown: ShownBlind, Appeared: time.Now().Add(-time.Second)})
	if _, rep = ls.report(StatsOptions{}); rep.Labelling.CantJudge != nil && rep.Labelling.CantJudge.Total != 0 {
		t.Errorf("after ann's label on i5: %+v, want no mark", rep.Labelling.CantJudge)
	}
	ls.record(ls.ann, Action{Kind: KindCantJudge, ItemID: "i5", Reason: ReasonAmbiguous, Shown: ShownBlind, Appeared: time.Now().Add(-time.Second)})
	_, rep = ls.report(StatsOptions{})
	if cj := rep.Labelling.CantJudge; cj == nil || cj.Total != 1 || cj.Items != 1 || cj.ByReason.Ambiguous != 1 || cj.ByReason.GoldWrong != 0 {
		t.Errorf("marked, labelled, marked again: %+v, want one mark (ambiguous) on one item", cj)
	}
}

// Tags are counted per item, overall and among the judge's disagreements
// with the humans.
func TestLabellingTagsAmongDisagreements(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	_, rep := ls.report(StatsOptions{})
	tg := rep.Labelling.Tags
	if tg == nil {
		t.Fatal("no tags")
	}
	got := map[string]int{}
	for _, c := range tg.Tags {
		got[c.Tag] = c.Items
	}
	// format: i3, i14 (bob), i20 (i6's was taken off); hallucinated gold:
	// i3; too strict: i14.
	if fmt.Sprint(got) != fmt.Sprint(map[string]int{"format": 3, "hallucinated gold": 1, "too strict": 1}) {
		t.Errorf("tags = %v", got)
	}
	// The judge disagrees with the humans on i1 (ann changed it), i3, i6
	// (both people) and i14: 4 items, 2 tagged (i3, i14).
	d := tg.Disagreements
	if len(d) != 1 || d[0].Items != 4 || d[0].Tagged != 2 {
		t.Fatalf("disagreements = %+v", d)
	}
	among := map[string]int{}
	for _, c := range d[0].Tags {
		among[c.Tag] = c.Items
	}
	if fmt.Sprint(among) != fmt.Sprint(map[string]int{"format": 2, "hallucinated gold": 1, "too strict": 1}) {
		t.Errorf("tags among disagreements = %v", among)
	}
}

// The re-test figures equal a hand computation, and a re-test never
// replaces the first label.
func TestLabellingRetestHandCount(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	in, rep := ls.report(StatsOptions{})
	for _, u := range in.Units {
		if u.ItemID == "i4" {
			if v := u.Labels[0].Values["correct"]; v != verdictOf(4) {
				t.Errorf("i4's label %v: the re-test replaced it", v)
			}
		}
	}
	ann := annotatorOf(t, rep, "ann")
	if len(ann.Retest) != 1 {
		t.Fatalf("retest = %+v", ann.Retest)
	}
	r := ann.Retest[0]
	// Pairs (first, re-test): i2 (NO, NO), i4 (NO, YES), i7 (YES, YES),
	// i9 (YES, YES). Agreement 3/4. Kappa: po = 3/4; first 2 NO 2 YES,
	// re-test 1 NO 3 YES, pe = (2·1 + 2·3)/16 = 1/2; (3/4 − 1/2)/(1/2) = 1/2.
	if r.Dimension != "correct" || r.Pairs != 4 || r.Stable {
		t.Errorf("retest = %+v", r)
	}
	if w := stats.Wilson(3, 4); r.PercentAgreement != w {
		t.Errorf("percent agreement %+v, want %+v", r.PercentAgreement, w)
	}
	if math.Abs(r.CohenKappa.Value-0.5) > 1e-12 {
		t.Errorf("kappa %v, want 0.5", r.CohenKappa.Value)
	}
}

// Decisions, time on screen and the first and last quarter of the
// sitting.
func TestLabellingDecisionsAndTime(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	_, rep := ls.report(StatsOptions{})
	ann := annotatorOf(t, rep, "ann")
	// 10 blind + 6 shown + the change of i1 + the "can't judge" + 4
	// re-tests; the undone label and the tags are not decisions, nor is
	// i17's label, which records nothing of how it was made (as gavel
	// label writes it): not a key press.
	if ann.Decisions != 22 {
		t.Errorf("decisions = %d, want 22", ann.Decisions)
	}
	// The change of i1 took 400 s, a pause.
	if ann.Timed != 21 || ann.Paused != 1 {
		t.Errorf("timed %d, paused %d", ann.Timed, ann.Paused)
	}
	if m := ann.MedianSeconds.Value; !(m >= 5 && m < 7) {
		t.Errorf("median seconds %v, want about 5", m)
	}
	f := ann.Fatigue
	if f == nil || f.Sittings != 1 || f.First.Decisions != 5 || f.Last.Decisions != 5 {
		t.Fatalf("fatigue = %+v", f)
	}
	// The first quarter, i1–i5: i5 is can't judge, i3 disagrees: 3 of 4.
	// The last: the "can't judge" and four re-tests, none compared.
	if j := f.First.Judges; len(j) != 1 || j[0].N != 4 || j[0].Agreed != 3 {
		t.Errorf("first quarter = %+v", f.First)
	}
	if len(f.Last.Judges) != 0 {
		t.Errorf("last quarter = %+v", f.Last)
	}
	bob := annotatorOf(t, rep, "bob")
	if bob.Decisions != 4 || bob.Fatigue == nil || bob.Fatigue.First.Decisions != 1 {
		t.Errorf("bob = %+v", bob)
	}
}

// --guidelines: only labels made under the version kept count, and the
// report says which.
func TestLabellingGuidelinesFilter(t *testing.T) {
	ls := newLabellingSession(t)
	db := rawDB(t, ls.path)
	for i, text := range []string{"# v1", "# v2"} {
		if _, err := db.Exec(`INSERT INTO guidelines (id, sha256, text, first_seen) VALUES (?, ?, ?, ?)`, i+1, fmt.Sprintf("%064d", i), text, stamp(t0)); err != nil {
			t.Fatal(err)
		}
	}
	label := func(k int, g int64) {
		ls.record(ls.ann, Action{Kind: KindLabel, ItemID: fmt.Sprintf("i%d", k), Dimension: "correct", Value: verdictOf(k), Via: "random", Guidelines: g})
	}
	label(1, 1)
	label(2, 1)
	label(3, 2)
	label(4, 0)
	label(2, 2) // re-made under the new version: replaces the old one
	in, rep := ls.report(StatsOptions{Guidelines: GuidelinesCurrent})
	if rep.Guidelines != (stats.GuidelinesFilter{Filter: stats.FilterCurrent, Version: 2}) {
		t.Errorf("guidelines = %+v", rep.Guidelines)
	}
	var labelled []string
	for _, u := range in.Units {
		if len(u.Labels) > 0 {
			labelled = append(labelled, u.ItemID)
		}
	}
	if fmt.Sprint(labelled) != "[i2 i3]" {
		t.Errorf("labelled under the current version: %v", labelled)
	}
	g := rep.Labelling.Guidelines
	if g == nil || len(g.Versions) != 2 || g.Versions[0].Labels != 1 || g.Versions[1].Labels != 2 || !g.Versions[1].Current || g.WithoutGuidelines != 1 || g.LeftOut != 2 {
		t.Errorf("guidelines report = %+v", g)
	}
	_, rep = ls.report(StatsOptions{Guidelines: 1})
	if rep.Guidelines.Filter != stats.FilterVersion || rep.Judges[0].Dimensions[0].Overall.Labelled != 1 {
		t.Errorf("version 1: %+v, %d labelled", rep.Guidelines, rep.Judges[0].Dimensions[0].Overall.Labelled)
	}
	_, rep = ls.report(StatsOptions{})
	if rep.Guidelines.Filter != stats.FilterAll || rep.Judges[0].Dimensions[0].Overall.Labelled != 4 {
		t.Errorf("all: %+v", rep.Guidelines)
	}
	if _, err := ls.ann.StatsInputWith(StatsOptions{Guidelines: 3}); !errors.Is(err, ErrGuidelinesVersion) {
		t.Errorf("version 3: %v", err)
	}
}

func TestLabellingGuidelinesFilterWithoutGuidelines(t *testing.T) {
	s, _ := newSession(t)
	_, err := s.StatsInputWith(StatsOptions{Guidelines: GuidelinesCurrent})
	if !errors.Is(err, ErrGuidelinesVersion) {
		t.Errorf("err = %v", err)
	}
}

// A session whose history records nothing of how people labelled (labels
// imported for another annotator, no sitting) has no labelling section.
func TestLabellingNoneWithoutV8Data(t *testing.T) {
	s, _ := newSession(t)
	if _, err := s.RecordAs("imported", []Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "import"}}); err != nil {
		t.Fatal(err)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if in.Labelling != nil {
		t.Errorf("labelling = %+v", in.Labelling)
	}
	if rep := stats.Compute(in, stats.Options{Seed: 1}); rep.Labelling != nil {
		t.Errorf("report labelling = %+v", rep.Labelling)
	}
}

// stampMillis reads the stored layout as time.Parse does.
func TestStampMillis(t *testing.T) {
	for _, s := range []string{"1970-01-01T00:00:00.000Z", "2026-11-26T23:40:05.123Z", "2000-02-29T12:00:00.999Z",
		"1969-12-31T23:59:59.999Z", "2400-03-01T00:00:00.000Z", "1600-02-29T01:02:03.004Z"} {
		want, err := time.Parse(timeLayout, s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := stampMillis(s)
		if !ok || got != want.UnixMilli() {
			t.Errorf("%s: %d, %v; want %d", s, got, ok, want.UnixMilli())
		}
	}
	for i := range 2000 {
		tm := time.UnixMilli(int64(i) * 987_654_321_987 % 9_000_000_000_000).UTC()
		if got, ok := stampMillis(stamp(tm)); !ok || got != tm.UnixMilli() {
			t.Errorf("%s: %d, want %d", stamp(tm), got, tm.UnixMilli())
		}
	}
	for _, bad := range []string{"", "2026-11-26T23:40:05Z", "2026-13-26T23:40:05.123Z", "2026-11-26 23:40:05.123Z", "2026-11-2xT23:40:05.123Z"} {
		if _, ok := stampMillis(bad); ok {
			t.Errorf("%q read", bad)
		}
	}
	// Another layout still gives a time.
	if s, ok := secondsBetween("2026-11-26T23:40:05Z", "2026-11-26T23:40:07.500Z"); !ok || s != 2.5 {
		t.Errorf("secondsBetween = %v, %v", s, ok)
	}
}

// The packed read of the history and the row reader give the same input,
// a category's name, a can't judge re-marked and a tag turned off and on
// included.
func TestLabellingPackedEqualsRows(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	pref, err := ls.ann.EnsureRun(judge.Info{Name: "pref", Dimensions: []judge.Dimension{{Name: "which", Scale: judge.Pairwise}}})
	if err != nil {
		t.Fatal(err)
	}
	ls.record(ls.ann, Action{Kind: KindLabel, ItemID: "i21", Dimension: "which", Value: 0.5, Via: "random", Shown: ShownBlind})
	ls.record(ls.ann, Action{Kind: KindCantJudge, ItemID: "i21", Reason: ReasonOther, Note: "a, b"})
	ls.record(ls.ann, Action{Kind: KindTag, ItemID: "i3", Tag: "format", Value: 0})
	ls.record(ls.ann, Action{Kind: KindTag, ItemID: "i3", Tag: "format", Value: 1})
	// Runs up to id 12, so that a shown run's id has one digit or two.
	names := map[int64]string{ls.run: "match", pref.ID: "pref"}
	for k := pref.ID + 1; k <= 12; k++ {
		r, err := ls.ann.EnsureRun(judge.Info{Name: fmt.Sprintf("j%d", k), Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
		if err != nil {
			t.Fatal(err)
		}
		names[r.ID] = fmt.Sprintf("j%d", k)
	}
	for k, run := range map[int]int64{22: 2, 23: 12, 24: ls.run} {
		ls.record(ls.ann, Action{Kind: KindLabel, ItemID: fmt.Sprintf("i%d", k), Dimension: "correct", Value: 1, Via: "random", Shown: ShownVerdict, ShownRun: run})
	}
	// Actions whose sitting is not recorded, after ones whose sitting is
	// (an import of an export, a hand edit): no sitting, in both readers.
	db := rawDB(t, ls.path)
	if _, err := db.Exec(`UPDATE actions SET sitting = NULL WHERE item_id IN ('i3', 'i9', 'i22')`); err != nil {
		t.Fatal(err)
	}
	packedMissed = func(a string) { t.Errorf("the packed read of %s's history fell back to the row reader", a) }
	t.Cleanup(func() { packedMissed = nil })
	read := func(packed bool) stats.Input {
		setPacked(t, packed)
		in, err := ls.ann.StatsInput()
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	before := logRanges.Load()
	packed, rows := read(true), read(false)
	if labellingText(packed) != labellingText(rows) {
		t.Errorf("packed:\n%s\nrows:\n%s", labellingText(packed), labellingText(rows))
	}
	if logRanges.Load() == before {
		t.Error("no history was read from the decision log")
	}
	// Read from actions instead of the decision log, the same.
	logReads = false
	fromActions := read(true)
	logReads = true
	if labellingText(fromActions) != labellingText(rows) {
		t.Errorf("packed from actions:\n%s\nrows:\n%s", labellingText(fromActions), labellingText(rows))
	}
	// Read in chunks of 3 ids (many per history), the same.
	saved := historyChunk
	historyChunk = 3
	chunked := read(true)
	historyChunk = saved
	if labellingText(chunked) != labellingText(rows) {
		t.Errorf("packed in chunks of 3:\n%s\nrows:\n%s", labellingText(chunked), labellingText(rows))
	}
	var which *stats.Decision
	for i, d := range packed.Labelling.Decisions {
		if d.Dimension == "which" {
			which = &packed.Labelling.Decisions[i]
		}
	}
	if which == nil || !which.HasValue || which.Value != 0.5 {
		t.Errorf("the tie label reads %+v", which)
	}
	if len(packed.Labelling.CantJudge) != 3 {
		t.Errorf("marks = %+v", packed.Labelling.CantJudge)
	}
	for _, d := range packed.Labelling.Decisions {
		if d.Annotator != "ann" {
			continue
		}
		if nullSitting := d.ItemID == "i3" || d.ItemID == "i9" || d.ItemID == "i22"; nullSitting != (d.Sitting == "") {
			t.Errorf("%s's decision on %s has sitting %q", d.Annotator, d.ItemID, d.Sitting)
		}
		want := map[string]string{"i22": names[2], "i23": names[12], "i24": "match"}[d.ItemID]
		if names[2] == "" || names[12] == "" {
			t.Fatalf("runs %v", names)
		}
		if want != "" && (d.Shown != stats.ShownVerdict || d.ShownJudge != want) {
			t.Errorf("decision on %s: shown %q judge %q, want judge %q", d.ItemID, d.Shown, d.ShownJudge, want)
		}
	}
}

// labellingText is in's labelling input as text, its labels left out per
// item in item order (the order the labels were read in, which differs
// between the packed and the row readers of the labels).
func labellingText(in stats.Input) string {
	li := *in.Labelling
	li.LeftOut = slices.Clone(li.LeftOut)
	slices.SortFunc(li.LeftOut, func(a, b stats.ItemLeftOut) int { return strings.Compare(a.ItemID, b.ItemID) })
	return fmt.Sprintf("%+v", li)
}

// A history the packed read cannot split (a sitting holding one of its
// separators, as only a hand edit can write) is read by the row reader,
// with the same result.
func TestLabellingPackedFallsBack(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	read := func(packed bool) stats.Input {
		setPacked(t, packed)
		in, err := ls.ann.StatsInput()
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	db := rawDB(t, ls.path)
	for _, sitting := range []string{"a\x1fb", "a\x1eb", "a,b"} {
		if _, err := db.Exec(`UPDATE actions SET sitting = ? WHERE item_id = 'i2' AND annotator = 'ann'`, sitting); err != nil {
			t.Fatal(err)
		}
		missed := 0
		packedMissed = func(string) { missed++ }
		packed, rows := read(true), read(false)
		packedMissed = nil
		if want := map[bool]int{true: 0, false: 1}[sitting == "a,b"]; missed != want {
			t.Errorf("sitting %q: %d fallbacks, want %d", sitting, missed, want)
		}
		if labellingText(packed) != labellingText(rows) {
			t.Errorf("sitting %q: packed:\n%s\nrows:\n%s", sitting, labellingText(packed), labellingText(rows))
		}
	}
}

// keepItems keeps the units of the items named, as gavel stats --split
// keeps the units of one part.
func keepItems(in stats.Input, ids ...string) stats.Input {
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	var units []stats.Unit
	for _, u := range in.Units {
		if keep[u.ItemID] {
			units = append(units, u)
		}
	}
	in.Units = units
	return in
}

// On part of the units (a split), the labels left out by "can't judge"
// marks and by the guidelines filter are counted on that part's items
// only, as every other figure is.
func TestLabellingLeftOutOnPartOfTheUnits(t *testing.T) {
	ls := newLabellingSession(t)
	ls.build()
	in, rep := ls.report(StatsOptions{})
	if n := rep.Labelling.CantJudge.LabelsLeftOut; n != 2 {
		t.Fatalf("whole session: %d labels left out, want 2 (ann's on i5, bob's on i7)", n)
	}
	part := stats.Compute(keepItems(in, "i1", "i2", "i3", "i4", "i5", "i6"), stats.Options{Seed: 1, Resamples: -1})
	if cj := part.Labelling.CantJudge; cj == nil || cj.LabelsLeftOut != 1 || cj.Total != 1 {
		t.Errorf("i1–i6: %+v, want 1 mark and 1 label left out (ann's on i5)", cj)
	}

	ls = newLabellingSession(t)
	db := rawDB(t, ls.path)
	for i, text := range []string{"# v1", "# v2"} {
		if _, err := db.Exec(`INSERT INTO guidelines (id, sha256, text, first_seen) VALUES (?, ?, ?, ?)`, i+1, fmt.Sprintf("%064d", i), text, stamp(t0)); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []struct {
		k int
		g int64
	}{{1, 1}, {2, 1}, {3, 2}, {4, 0}, {2, 2}} {
		ls.record(ls.ann, Action{Kind: KindLabel, ItemID: fmt.Sprintf("i%d", l.k), Dimension: "correct", Value: verdictOf(l.k), Via: "random", Guidelines: l.g})
	}
	in, rep = ls.report(StatsOptions{Guidelines: GuidelinesCurrent})
	if n := rep.Labelling.Guidelines.LeftOut; n != 2 {
		t.Fatalf("whole session: %d labels left out by the filter, want 2 (i1, i4)", n)
	}
	part = stats.Compute(keepItems(in, "i1", "i2", "i3"), stats.Options{Seed: 1, Resamples: -1})
	if n := part.Labelling.Guidelines.LeftOut; n != 1 {
		t.Errorf("i1–i3: %d labels left out by the filter, want 1 (i1)", n)
	}
}

// An annotator whose actions record only a sitting (gavel label, a
// script: visibility unknown, no time on screen, no re-test) is not in
// the actions_labelling index, so nothing of their history is read; with
// a "can't judge" or a tag they are, and only the history of those items
// is read, for the marks and tags (their decisions say nothing of how
// they were made, so none go into the input).
func TestLabellingScriptAnnotatorNotRead(t *testing.T) {
	ls := newLabellingSession(t)
	script := openStore(t, ls.path, "script")
	for k := 1; k <= 12; k++ {
		ls.record(script, Action{Kind: KindLabel, ItemID: fmt.Sprintf("i%d", k), Dimension: "correct", Value: verdictOf(k), Via: stats.ProvenanceScript})
	}
	who := func() []string {
		var out []string
		err := ls.ann.read("test", func(tx *sql.Tx) (err error) {
			out, err = labellingAnnotators(tx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := who(); len(got) != 0 {
		t.Errorf("annotators read: %v, want none", got)
	}
	in, err := ls.ann.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if in.Labelling != nil {
		t.Errorf("labelling input %+v, want none", *in.Labelling)
	}
	ls.record(script, Action{Kind: KindCantJudge, ItemID: "i3", Reason: ReasonAmbiguous})
	ls.record(script, Action{Kind: KindLabel, ItemID: "i4", Dimension: "correct", Value: 0, Via: stats.ProvenanceScript}) // not marked
	ls.record(script, Action{Kind: KindTag, ItemID: "i5", Tag: "format", Value: 1})
	if got := who(); fmt.Sprint(got) != "[script]" {
		t.Errorf("annotators read: %v, want [script]", got)
	}
	for _, packed := range []bool{true, false} {
		setPacked(t, packed)
		in, err = ls.ann.StatsInput()
		if err != nil {
			t.Fatal(err)
		}
		li := in.Labelling
		if li == nil || fmt.Sprint(li.CantJudge) != "[{i3 script ambiguous}]" || fmt.Sprint(li.Tags) != "[{i5 script format}]" || len(li.Decisions) != 0 || li.CantJudgeLabels != 1 {
			t.Errorf("packed=%v: labelling input %+v", packed, li)
		}
	}
	// Both looks are at the index, not a walk of the actions.
	for _, q := range []string{
		`SELECT annotator FROM actions WHERE (` + labellingPredicate + `) AND annotator > 'a' ORDER BY annotator LIMIT 1`,
		`SELECT 1 FROM actions WHERE annotator = 'script' AND (` + labellingPredicate + `) AND (shown IS NOT NULL OR appeared_at IS NOT NULL OR retest = 1) LIMIT 1`,
	} {
		if p := queryPlan(t, rawDB(t, ls.path), q); !strings.Contains(p, "actions_labelling") {
			t.Errorf("%s\nplan: %s", q, p)
		}
	}
}
