package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// The first 200 rows of the TriviaQA file of "Judging the judges", its
// eleven judges' verdicts imported and its human column left out, are
// labelled one call of gavel label at a time with that column's values —
// five items marked "can't judge" instead (three gold-wrong, one of them
// labelled first, one ambiguous, one other), seven tagged — under one
// version of guidelines.
// gavel stats --format json then equals counts made here from the file:
// each judge's n (the can't-judge items left out), agreement and Cohen's
// kappa; can't judge by reason and annotator; tags overall and among each
// judge's disagreements; the labels per guidelines version.
func TestLabelTriviaQAStatsEqualAHandCount(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	src := sharedData(t, "judging_the_judges__TriviaQA_Judges_w_HumanJudgement_V1.csv")
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for len(rows) < 200 {
		rec, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rec)
	}
	f.Close()
	human := slices.Index(header, "HumanJudgement")
	judges := header[slices.Index(header, "Mistral-7B"):human]
	if human < 0 || len(judges) != 11 {
		t.Fatalf("unexpected columns %q", header)
	}

	dir := t.TempDir()
	data := filepath.Join(dir, "tq200.csv")
	out, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	drop := func(rec []string) []string { return slices.Delete(slices.Clone(rec), human, human+1) }
	_ = w.Write(drop(header))
	for _, rec := range rows {
		_ = w.Write(drop(rec))
	}
	w.Flush()
	out.Close()
	session := filepath.Join(dir, "tq.gavel")
	if code, _, errs := run(t, "import", data, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	s := readSession(t, session)
	ids, err := s.ItemIDs()
	if err != nil || len(ids) != 200 {
		t.Fatalf("%d items, %v", len(ids), err)
	}
	s.Close()
	guidelines := writeFile(t, dir, "guidelines.md", "# TriviaQA\nAny alias of the reference answer is correct.\n")

	yes := func(cell string) (bool, bool) {
		switch cell {
		case "True":
			return true, true
		case "False":
			return false, true
		}
		return false, false
	}
	col := func(name string) int { return slices.Index(header, name) }
	em := col("EM") // exact match: the strictest judge
	cant := map[int][]string{
		10: {"--cant-judge", "gold-wrong"}, 50: {"--cant-judge", "gold-wrong"}, 120: {"--cant-judge", "gold-wrong"},
		77:  {"--cant-judge", "ambiguous"},
		150: {"--cant-judge", "other", "--note", "the reference lists two answers"},
	}
	// "too strict" on the first three items EM fails and the human
	// passes; "format" on the first four items, one of them also too strict.
	tags := map[int][]string{}
	strict := 0
	for i, rec := range rows {
		h, _ := yes(rec[human])
		j, ok := yes(rec[em])
		if _, skip := cant[i]; !skip && ok && h && !j && strict < 3 {
			tags[i] = append(tags[i], "too strict")
			strict++
		}
	}
	for i := range 4 {
		tags[i] = append(tags[i], "format")
	}
	if strict != 3 {
		t.Fatalf("EM fails %d items the human passes among the first 200, want at least 3", strict)
	}

	// Row 10 is labelled first, then found impossible to judge: its label
	// stays in the history and is left out of every figure.
	if code, _, errs := run(t, "label", session, ids[10], rows[10][human], "--annotator", "ana", "--guidelines", guidelines); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for i, rec := range rows {
		args := []string{"label", session, ids[i], "--annotator", "ana", "--guidelines", guidelines}
		if c, ok := cant[i]; ok {
			args = append(args, c...)
		} else {
			args = append(args, rec[human])
		}
		for _, tag := range tags[i] {
			args = append(args, "--tag", tag)
		}
		if code, _, errs := run(t, args...); code != 0 {
			t.Fatalf("row %d: exit %d: %s", i, code, errs)
		}
	}

	code, js, errs := run(t, "stats", session, "--format", "json", "--resamples", "0")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	var rep stats.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}

	// Each judge against the human, the can't-judge items left out.
	type tally struct{ n, agree, jy, hy, yy int }
	disagree := map[string]map[int]bool{}
	for _, name := range judges {
		var c tally
		disagree[name] = map[int]bool{}
		for i, rec := range rows {
			if _, skip := cant[i]; skip {
				continue
			}
			h, okH := yes(rec[human])
			j, okJ := yes(rec[col(name)])
			if !okH || !okJ {
				continue
			}
			c.n++
			if h == j {
				c.agree++
			} else {
				disagree[name][i] = true
			}
			if j {
				c.jy++
			}
			if h {
				c.hy++
			}
			if h && j {
				c.yy++
			}
		}
		n := float64(c.n)
		po := float64(c.agree) / n
		pe := float64(c.jy)/n*float64(c.hy)/n + float64(c.n-c.jy)/n*float64(c.n-c.hy)/n
		kappa := (po - pe) / (1 - pe)
		key := "imported · " + name
		k := slices.IndexFunc(rep.JudgeTable, func(r stats.JudgeRow) bool { return r.Judge == key })
		if k < 0 {
			t.Errorf("%s is not in the judge table", key)
			continue
		}
		row := rep.JudgeTable[k]
		if row.N != c.n || math.Abs(row.PercentAgreement.Value-po) > 1e-9 || math.Abs(row.CohenKappa.Value-kappa) > 1e-9 {
			t.Errorf("%s: n %d, agreement %.6f, kappa %.6f; by hand %d, %.6f, %.6f", key, row.N, row.PercentAgreement.Value, row.CohenKappa.Value, c.n, po, kappa)
		}
	}

	lb := rep.Labelling
	if lb == nil {
		t.Fatal("no labelling section")
	}
	if cj := lb.CantJudge; cj == nil || cj.Total != 5 || cj.Items != 5 || cj.LabelsLeftOut != 1 ||
		cj.ByReason != (stats.ReasonCounts{GoldWrong: 3, Ambiguous: 1, Other: 1}) ||
		len(cj.ByAnnotator) != 1 || cj.ByAnnotator[0].Annotator != "ana" || cj.ByAnnotator[0].Total != 5 {
		t.Errorf("can't judge: %+v", cj)
	}

	tagged := func(items map[int]bool) map[string]int {
		out := map[string]int{}
		for i := range items {
			for _, tag := range tags[i] {
				out[tag]++
			}
		}
		return out
	}
	all := map[int]bool{}
	for i := range tags {
		all[i] = true
	}
	counts := func(tc []stats.TagCount) map[string]int {
		out := map[string]int{}
		for _, c := range tc {
			if c.Items > 0 {
				out[c.Tag] = c.Items
			}
		}
		return out
	}
	if lb.Tags == nil {
		t.Fatal("no tags in the labelling section")
	}
	if got, want := counts(lb.Tags.Tags), tagged(all); !mapsEqual(got, want) {
		t.Errorf("tags %v, by hand %v", got, want)
	}
	for _, name := range judges {
		key := "imported · " + name
		k := slices.IndexFunc(lb.Tags.Disagreements, func(d stats.TagDisagreements) bool { return d.Judge == key })
		if k < 0 {
			t.Errorf("%s: no tags among its disagreements", key)
			continue
		}
		d := lb.Tags.Disagreements[k]
		withTag := 0
		for i := range disagree[name] {
			if len(tags[i]) > 0 {
				withTag++
			}
		}
		if got, want := counts(d.Tags), tagged(disagree[name]); d.Items != len(disagree[name]) || d.Tagged != withTag || !mapsEqual(got, want) {
			t.Errorf("%s: %d disagreements, %d tagged, %v; by hand %d, %d, %v", key, d.Items, d.Tagged, got, len(disagree[name]), withTag, want)
		}
	}

	// A script records no time on screen nor whether a verdict was shown,
	// so its decisions alone give no reliability figures; if they ever
	// do, they count every call.
	if k := slices.IndexFunc(lb.Annotators, func(a stats.AnnotatorReliability) bool { return a.Annotator == "ana" }); k >= 0 && lb.Annotators[k].Decisions != 201 {
		t.Errorf("annotators %+v: want ana with 201 decisions (196 labels, 5 can't judge)", lb.Annotators)
	}
	// The current labels: 195, and row 10's, which its can't judge leaves
	// out of the figures but not out of the history.
	if g := lb.Guidelines; g == nil || len(g.Versions) != 1 || g.Versions[0].Labels != 196 || !g.Versions[0].Current {
		t.Errorf("guidelines %+v: want one version, current, with 196 labels", g)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
