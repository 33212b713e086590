package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// splitCSV makes n items judged by a_verdict and b_verdict with a human
// label, drawn from a fixed seed (B right more often than A); keep says
// which ids to write. Items whose index is a multiple of 7 have no human
// label, so unlabelled items are split too.
func splitCSV(n int, keep func(id string) bool) string {
	r := rand.New(rand.NewPCG(3, 4))
	yn := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	var b strings.Builder
	b.WriteString("id,question,answer,prediction,a_verdict,b_verdict,human_label\n")
	for i := range n {
		id := fmt.Sprintf("item-%03d", i)
		human := r.IntN(2) == 0
		a := human != (r.IntN(10) < 3)
		bv := human != (r.IntN(10) < 1)
		label := yn(human)
		if i%7 == 0 {
			label = ""
		}
		if keep == nil || keep(id) {
			fmt.Fprintf(&b, "%s,q,g,p,%s,%s,%s\n", id, yn(a), yn(bv), label)
		}
	}
	return b.String()
}

func importCSV(t *testing.T, dir, name, csv string) string {
	t.Helper()
	session := filepath.Join(dir, name+".gavel")
	if code, _, errs := run(t, "import", writeFile(t, dir, name+".csv", csv), "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	return session
}

func readSplit(t *testing.T, path string) (sessions.Split, bool) {
	t.Helper()
	s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sp, has, err := s.Split()
	if err != nil {
		t.Fatal(err)
	}
	return sp, has
}

// countRow reads the count after a part's name in a table of gavel split's
// output (the first table: items; the second: labels).
func countRow(t *testing.T, out, part string, table int) []int {
	t.Helper()
	re := regexp.MustCompile(`(?m)^  ` + part + ` +([0-9 ]+)$`)
	m := re.FindAllStringSubmatch(out, -1)
	if len(m) <= table {
		t.Fatalf("no row %q in table %d of:\n%s", part, table, out)
	}
	var n []int
	for _, f := range strings.Fields(m[table][1]) {
		v, _ := strconv.Atoi(f)
		n = append(n, v)
	}
	return n
}

func TestSplitCommand(t *testing.T) {
	dir := t.TempDir()
	const n = 200
	session := importCSV(t, dir, "s", splitCSV(n, nil))

	// The counts gavel split prints, against a count made here.
	code, out, errs := run(t, "split", session, "--seed", "7")
	if code != 0 {
		t.Fatalf("split: exit %d: %s", code, errs)
	}
	sp, has := readSplit(t, session)
	if !has || sp.Seed != 7 || sp.Calibration != 0.5 {
		t.Fatalf("recorded %+v, %v", sp, has)
	}
	var items, labelled, yes [3]int // calibration (validation included), validation, evaluation
	r := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		human := r.IntN(2) == 0
		r.IntN(10)
		r.IntN(10)
		var in []int
		switch u := independentFraction(7, fmt.Sprintf("item-%03d", i)); {
		case u >= 0.5:
			in = []int{2}
		case u < 0.5/3:
			in = []int{0, 1}
		default:
			in = []int{0}
		}
		for _, k := range in {
			items[k]++
			if i%7 != 0 {
				labelled[k]++
				if human {
					yes[k]++
				}
			}
		}
	}
	for _, c := range []struct {
		part string
		i    int
	}{{"calibration", 0}, {"  validation", 1}, {"evaluation", 2}} {
		if got := countRow(t, out, c.part, 0); got[0] != items[c.i] {
			t.Errorf("%s: %d items, want %d\n%s", c.part, got[0], items[c.i], out)
		}
		// labelled, NO, YES, tied
		want := []int{labelled[c.i], labelled[c.i] - yes[c.i], yes[c.i], 0}
		if got := countRow(t, out, c.part, 1); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: labels %v, want %v\n%s", c.part, got, want, out)
		}
	}
	if got := countRow(t, out, "all", 0); got[0] != n {
		t.Errorf("all: %v items, want %d", got, n)
	}
	if items[1] < 30 && !strings.Contains(out, "warning: the validation part has") {
		t.Errorf("no warning for a validation part of %d items:\n%s", labelled[1], out)
	}

	for _, c := range []struct {
		name     string
		argv     []string
		code     int
		seed     uint64
		share    float64
		stdout   string
		stderr   string
		replaced bool
	}{
		{"again, no flags: kept", nil, 0, 7, 0.5, "already has a split", "", false},
		{"the same seed: kept", []string{"--seed", "7"}, 0, 7, 0.5, "kept", "", false},
		{"another seed: refused", []string{"--seed", "8"}, 1, 7, 0.5, "kept", "--replace draws a new one", false},
		{"another share: refused", []string{"--calibration", "0.6"}, 1, 7, 0.5, "kept", "would let evaluation items into tuning", false},
		{"a bad share: usage", []string{"--calibration", "1.2", "--replace"}, 2, 7, 0.5, "", "not between 0 and 1", false},
		{"replace", []string{"--seed", "8", "--calibration", "0.6", "--replace"}, 0, 8, 0.6, "Recorded the split", "no longer held out", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, append([]string{"split", session}, c.argv...)...)
			if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errs, c.stderr) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errs)
			}
			if sp, _ := readSplit(t, session); sp.Seed != c.seed || sp.Calibration != c.share {
				t.Errorf("split now %+v, want seed %d share %v", sp, c.seed, c.share)
			}
		})
	}

	// No --seed: a random seed, printed and recorded.
	other := importCSV(t, dir, "r", splitCSV(40, nil))
	code, out, errs = run(t, "split", other)
	sp, has = readSplit(t, other)
	if code != 0 || !has || !strings.Contains(out, "Seed "+strconv.FormatUint(sp.Seed, 10)+",") {
		t.Errorf("random seed %d (%v): exit %d\n%s%s", sp.Seed, has, code, out, errs)
	}
	if code, _, errs := run(t, "split", filepath.Join(dir, "missing.gavel")); code != 2 || !strings.Contains(errs, "no session") {
		t.Errorf("a missing session: exit %d: %s", code, errs)
	}
}

// independentFraction is u as README documents it: the first 8 bytes of
// SHA-256 of "SEED\x00ID", big-endian, over 2^64.
func independentFraction(seed uint64, id string) float64 {
	sum := sha256.Sum256([]byte(strconv.FormatUint(seed, 10) + "\x00" + id))
	var x uint64
	for _, b := range sum[:8] {
		x = x<<8 | uint64(b)
	}
	return float64(x) / math.Pow(2, 64)
}

// TestCompareOnTheEvaluationSplit builds a session of 300 items with a
// split and a second session holding only its evaluation items: compare
// (by default, and with --split evaluation) on the first equals compare
// on the second; --split all covers every item; the text says which.
func TestCompareOnTheEvaluationSplit(t *testing.T) {
	dir := t.TempDir()
	const n, seed = 300, 11
	full := importCSV(t, dir, "full", splitCSV(n, nil))
	sp := sessions.Split{Seed: seed, Calibration: 0.5}
	evalOnly := importCSV(t, dir, "eval", splitCSV(n, func(id string) bool { return sp.PartOf(id) == sessions.PartEvaluation }))
	calOnly := importCSV(t, dir, "cal", splitCSV(n, func(id string) bool { return sp.PartOf(id).InCalibration() }))

	compareOut := func(argv ...string) compareOutput {
		t.Helper()
		code, out, errs := run(t, append([]string{"compare", "--judge", "a_verdict", "--judge", "b_verdict", "--format", "json"}, argv...)...)
		if code != 0 {
			t.Fatalf("compare %v: exit %d: %s", argv, code, errs)
		}
		var c compareOutput
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	// Before the split: every item, and the JSON says so.
	before := compareOut(full)
	if before.Split.Part != "all" || before.Split.Seed != nil || before.Split.Items != n {
		t.Errorf("no split: %+v", before.Split)
	}
	if code, _, errs := run(t, "compare", full, "--judge", "a_verdict", "--judge", "b_verdict", "--split", "evaluation"); code != 2 || !strings.Contains(errs, "gavel split") {
		t.Errorf("--split evaluation without a split: exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "split", full, "--seed", strconv.Itoa(seed)); code != 0 {
		t.Fatalf("split: %s", errs)
	}
	want := compareOut(evalOnly)
	for _, c := range []struct {
		argv  []string
		part  string
		equal compareOutput
	}{
		{nil, "evaluation", want},
		{[]string{"--split", "evaluation"}, "evaluation", want},
		{[]string{"--split", "calibration"}, "calibration", compareOut(calOnly)},
		{[]string{"--split", "all"}, "all", before},
	} {
		got := compareOut(append([]string{full}, c.argv...)...)
		if jsonOf(t, got.Comparison) != jsonOf(t, c.equal.Comparison) {
			t.Errorf("%v: the comparison differs from the session of those items only:\n%+v\nwant\n%+v", c.argv, got.Comparison.Dimensions[0].Paired, c.equal.Comparison.Dimensions[0].Paired)
		}
		if got.Split.Part != c.part || got.Split.Seed == nil || *got.Split.Seed != seed || got.Split.Calibration == nil || *got.Split.Calibration != 0.5 || got.Split.Items != c.equal.Split.Items {
			t.Errorf("%v: split %+v, want %s of %d items", c.argv, got.Split, c.part, c.equal.Split.Items)
		}
	}
	if p := want.Dimensions[0].Paired; p.N == 0 || p.N >= before.Dimensions[0].Paired.N {
		t.Fatalf("the evaluation session compares %d of %d items", p.N, before.Dimensions[0].Paired.N)
	}
	code, out, _ := run(t, "compare", full, "--judge", "a_verdict", "--judge", "b_verdict")
	if line := fmt.Sprintf("On the evaluation split (seed %d): %d items.", seed, want.Split.Items); code != 0 || !strings.HasPrefix(out, line) {
		t.Errorf("text output does not start with %q:\n%s", line, out)
	}
	code, out, _ = run(t, "compare", full, "--judge", "a_verdict", "--judge", "b_verdict", "--format", "markdown")
	if code != 0 || !strings.HasPrefix(out, "_On the evaluation split") {
		t.Errorf("markdown does not say the split:\n%s", out)
	}
}

// TestStatsSplit: gavel stats reports on every item by default, and with
// --split on the part's items only, as a session of them alone would.
func TestStatsSplit(t *testing.T) {
	dir := t.TempDir()
	const n, seed = 150, 5
	full := importCSV(t, dir, "full", splitCSV(n, nil))
	sp := sessions.Split{Seed: seed, Calibration: 0.4}
	evalOnly := importCSV(t, dir, "eval", splitCSV(n, func(id string) bool { return sp.PartOf(id) == sessions.PartEvaluation }))
	report := func(argv ...string) stats.Report {
		t.Helper()
		code, out, errs := run(t, append([]string{"stats", "--format", "json", "--resamples", "200"}, argv...)...)
		if code != 0 {
			t.Fatalf("stats %v: exit %d: %s", argv, code, errs)
		}
		var r stats.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if code, _, errs := run(t, "split", full, "--seed", strconv.Itoa(seed), "--calibration", "0.4"); code != 0 {
		t.Fatalf("split: %s", errs)
	}
	all, eval, alone := report(full), report(full, "--split", "evaluation"), report(evalOnly)
	if all.Units != n || all.Split == nil || all.Split.Part != "all" || all.Split.Items != n || *all.Split.Seed != seed {
		t.Errorf("default: %d units, split %+v", all.Units, all.Split)
	}
	if eval.Split == nil || eval.Split.Part != "evaluation" || eval.Units != alone.Units || eval.Split.Items != alone.Units || eval.Units >= n {
		t.Errorf("--split evaluation: %d units, split %+v; the evaluation items alone: %d", eval.Units, eval.Split, alone.Units)
	}
	// Everything but the split, as JSON (undefined figures are NaN, which
	// DeepEqual never finds equal).
	eval.Split, alone.Split = nil, nil
	if a, b := jsonOf(t, eval), jsonOf(t, alone); a != b {
		t.Errorf("--split evaluation differs from a session of the evaluation items alone:\n%s\nwant\n%s", a, b)
	}
	cal := report(full, "--split", "calibration")
	if cal.Units+eval.Units != n {
		t.Errorf("calibration %d + evaluation %d units, want %d", cal.Units, eval.Units, n)
	}
	code, out, _ := run(t, "stats", full, "--split", "evaluation")
	if code != 0 || !strings.HasPrefix(out, fmt.Sprintf("On the evaluation split (seed %d): %d items.", seed, eval.Units)) {
		t.Errorf("text output does not say the split:\n%s", out[:min(len(out), 300)])
	}
	if code, _, errs := run(t, "stats", full, "--split", "test"); code != 2 || !strings.Contains(errs, "evaluation, calibration or all") {
		t.Errorf("--split test: exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "stats", evalOnly, "--split", "calibration"); code != 2 || !strings.Contains(errs, "no calibration / evaluation split") {
		t.Errorf("--split calibration without a split: exit %d: %s", code, errs)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
