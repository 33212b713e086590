package sessions

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// raw4ratersCSV is irrCAC's cac.raw4raters (Krippendorff 2011's
// four-observer example, units 1–12), one annotator column per rater, a
// blank where the rater gave no rating.
const raw4ratersCSV = `id,question,prediction,annotator1,annotator2,annotator3,annotator4
u01,q,p,1,1,,1
u02,q,p,2,2,3,2
u03,q,p,3,3,3,3
u04,q,p,3,3,3,3
u05,q,p,2,2,2,2
u06,q,p,1,2,3,4
u07,q,p,4,4,4,4
u08,q,p,1,1,2,1
u09,q,p,2,2,2,2
u10,q,p,,5,5,5
u11,q,p,,,1,1
u12,q,p,,3,,
`

// near1e12 fails unless got is defined and within 1e-12 of want.
func near1e12(t *testing.T, name string, got stats.Interval, want float64) {
	t.Helper()
	if !got.Defined() || math.Abs(got.Value-want) > 1e-12 {
		t.Errorf("%s = %v (%q), want %.12f", name, got.Value, got.Reason, want)
	}
}

func TestLabelOnlySessionReportsAnnotatorAgreement(t *testing.T) {
	// A session imported from a file of four annotators and no judge: the
	// report's humans hold the published figures for these data (irrCAC
	// README and weighting vignette for cac.raw4raters, Krippendorff 2011
	// for alpha; exact values from sessions/stats/testdata/reference.py).
	s, sum := importFile(t, sessionPath(t), "raw4raters.csv", raw4ratersCSV, nil)
	if sum.CreatedRuns() != 0 || len(sum.Annotators) != 4 || sum.LabelCount() != 41 {
		t.Fatalf("import: %+v", sum)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if want := []judge.Dimension{{Name: "score", Scale: judge.Likert}}; !reflect.DeepEqual(in.Dimensions, want) {
		t.Fatalf("dimensions = %+v, want %+v", in.Dimensions, want)
	}
	rep := stats.Compute(in, stats.Options{Seed: 1})
	if len(rep.Humans) != 1 {
		t.Fatalf("humans = %+v, want one dimension", rep.Humans)
	}
	h := rep.Humans[0]
	if h.Labelled != 12 || h.Pairable != 11 || strings.Join(h.Annotators, ",") != "annotator1,annotator2,annotator3,annotator4" {
		t.Errorf("humans: labelled %d, pairable %d, annotators %v", h.Labelled, h.Pairable, h.Annotators)
	}
	near1e12(t, "percent agreement (published 0.8181818)", h.PercentAgreement, 9.0/11)
	near1e12(t, "Fleiss' kappa (published 0.76117)", h.FleissKappa, 0.7611692754224111)
	near1e12(t, "Gwet's AC1 (published 0.77544)", h.GwetAC1, 0.775444068126995)
	near1e12(t, "Gwet's AC2 (published 0.914)", h.GwetAC2, 0.9140007235516048)
	near1e12(t, "alpha nominal (published 0.743)", h.AlphaNominal, 113.0/152)
	near1e12(t, "alpha ordinal (published 0.815)", h.AlphaOrdinal, 108577.0/133160)
	near1e12(t, "alpha interval (published 0.849)", h.AlphaInterval, 951.0/1120)
	near1e12(t, "alpha ratio (published 0.797)", h.AlphaRatio, 18222619.0/22852465)
	if len(h.Pairs) != 6 {
		t.Errorf("pairs = %+v, want every two of four annotators", h.Pairs)
	}
}

func TestLabelOnlyDimensionsByStoreAPI(t *testing.T) {
	s, path := newSession(t)
	bob := openStore(t, path, "bob")
	grade := judge.Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED")
	if err := s.DeclareScales([]judge.Dimension{{Name: "grade", Scale: grade}}); err != nil {
		t.Fatal(err)
	}
	label := func(st *Store, item, dim string, v float64) {
		t.Helper()
		if _, err := st.Record([]Action{{Kind: KindLabel, ItemID: item, Dimension: dim, Value: v, Via: "random"}}); err != nil {
			t.Fatal(err)
		}
	}
	// ann and bob on "ok" (binary) over q1, q2, q3 and r1, ann alone on
	// q1's grade and bob on q2's; "stars" is labelled 1–3 only.
	for i, item := range []string{"q1", "q2", "q3", "r1"} {
		label(s, item, "ok", float64(i%2))
		label(bob, item, "ok", float64(min(i, 1)))
		label(s, item, "stars", float64(1+i%3))
	}
	label(s, "q1", "grade", 2)
	label(bob, "q2", "grade", 0)
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	want := []judge.Dimension{{Name: "grade", Scale: grade}, {Name: "ok", Scale: judge.Binary}, {Name: "stars", Scale: judge.Likert}}
	if !reflect.DeepEqual(in.Dimensions, want) {
		t.Fatalf("dimensions = %+v, want %+v", in.Dimensions, want)
	}
	rep := stats.Compute(in, stats.Options{Seed: 2})
	var ok *stats.HumanAgreement
	for i := range rep.Humans {
		if rep.Humans[i].Dimension == "ok" {
			ok = &rep.Humans[i]
		}
	}
	if len(rep.Humans) != 3 || ok == nil {
		t.Fatalf("humans = %+v", rep.Humans)
	}
	// ann: 0 1 0 1, bob: 0 1 1 1 — by hand: agreement 3/4; Cohen's kappa
	// po = 3/4, pe = (2/4)(1/4) + (2/4)(3/4) = 1/2, kappa = 1/2; Fleiss
	// (pooled shares 3/8, 5/8): pe = 34/64, kappa = (3/4 − 17/32)/(15/32)
	// = 7/15.
	near1e12(t, "percent agreement", ok.PercentAgreement, 0.75)
	near1e12(t, "Fleiss' kappa", ok.FleissKappa, 7.0/15)
	if len(ok.Pairs) != 1 || ok.Pairs[0].A != "ann" || ok.Pairs[0].B != "bob" || ok.Pairs[0].N != 4 {
		t.Fatalf("pairs = %+v", ok.Pairs)
	}
	near1e12(t, "Cohen's kappa", ok.Pairs[0].CohenKappa, 0.5)
}

func TestLabelOnlyDimensionsLeaveJudgedOnesOut(t *testing.T) {
	// statsSession's labels are all on dimensions its runs rate.
	s, _ := statsSession(t)
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Dimensions) != 0 {
		t.Errorf("dimensions = %+v, want none: every labelled dimension has a judge", in.Dimensions)
	}
}

func TestLabelScale(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   judge.Scale
	}{
		{[]float64{0, 1}, judge.Binary},
		{[]float64{1}, judge.Binary},
		{[]float64{0, 0.5, 1}, judge.Ternary},
		{[]float64{0.5}, judge.Ternary},
		{[]float64{1, 2}, judge.Likert},
		{[]float64{2, 5}, judge.Likert},
		{[]float64{0, 3, 7}, "ordinal:0-10"},
		{[]float64{1, 2, 9}, "ordinal:1-10"},
		{[]float64{3, 42}, "ordinal:1-100"},
		{[]float64{-1, 1}, ""},
		{[]float64{1.5, 2}, ""},
		{[]float64{1, 101}, ""},
		{[]float64{math.Inf(1)}, ""},
	} {
		values := map[float64]bool{}
		for _, v := range tc.values {
			values[v] = true
		}
		got, ok := labelScale(values)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("labelScale(%v) = %q, %v; want %q", tc.values, got, ok, tc.want)
		}
	}
}
