package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// compareCSV holds two judges (a_verdict, b_verdict) and one human on 12
// items. Per item, whether each judge is right (= human_label):
//
//	q1  a ✓ b ✓   q2  a ✓ b ✓   q3  a ✓ b ✓   q4  a ✓ b ✓   (both right: 4)
//	q5  a ✗ b ✓   q6  a ✗ b ✓   q7  a ✗ b ✓   q8  a ✗ b ✓
//	q9  a blank (no verdict: wrong) b ✓                     (only B: 5)
//	q10 a ✓ b ✗                                             (only A: 1)
//	q11 a ✗ b ✗   q12 a ✗ b maybe (parse error: wrong)      (both wrong: 2)
//
// N = 12; accuracy A = 5/12, B = 9/12; B − A = (5 − 1)/12 = 1/3;
// McNemar: b + c = 6, min = 1: p = 2·(C(6,0) + C(6,1))/2^6 = 14/64 = 0.21875.
// The id of q5 carries an escape sequence and Markdown punctuation.
const compareCSV = "id,question,answer,prediction,a_verdict,b_verdict,human_label\n" +
	"q1,x,x,x,yes,yes,yes\n" +
	"q2,x,x,x,no,no,no\n" +
	"q3,x,x,x,yes,yes,yes\n" +
	"q4,x,x,x,no,no,no\n" +
	"\"q5\x1b[31m*evil*\",x,x,x,no,yes,yes\n" +
	"q6,x,x,x,yes,no,no\n" +
	"q7,x,x,x,no,yes,yes\n" +
	"q8,x,x,x,yes,no,no\n" +
	"q9,x,x,x,,yes,yes\n" +
	"q10,x,x,x,yes,no,yes\n" +
	"q11,x,x,x,yes,yes,no\n" +
	"q12,x,x,x,no,maybe,yes\n"

func compareJSON(t *testing.T, argv ...string) stats.Comparison {
	t.Helper()
	code, out, errs := run(t, append(argv, "--format", "json")...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	var c stats.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, `"schema_version": 1`) {
		t.Errorf("no schema_version in %s", out[:min(len(out), 200)])
	}
	return c
}

func TestCompareHandComputed(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "c.gavel")
	if code, _, errs := run(t, "import", writeFile(t, dir, "c.csv", compareCSV), "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	c := compareJSON(t, "compare", session, "--judge", "a_verdict", "--judge", "b_verdict", "--resamples", "0")
	if c.A != "imported · a_verdict" || c.B != "imported · b_verdict" || len(c.Dimensions) != 1 {
		t.Fatalf("compared %q with %q on %d dimensions", c.A, c.B, len(c.Dimensions))
	}
	p := c.Dimensions[0].Paired
	if p.N != 12 || p.BothRight != 4 || p.OnlyB != 5 || p.OnlyA != 1 || p.BothWrong != 2 {
		t.Fatalf("table: n %d, both %d, only A %d, only B %d, neither %d", p.N, p.BothRight, p.OnlyA, p.OnlyB, p.BothWrong)
	}
	if math.Abs(p.Difference.Value-1.0/3) > 1e-15 || math.Abs(p.McNemarP.Value-14.0/64) > 1e-15 {
		t.Errorf("difference %v, p %v", p.Difference.Value, p.McNemarP.Value)
	}
	if math.Abs(p.AccuracyA.Value-5.0/12) > 1e-15 || math.Abs(p.AccuracyB.Value-9.0/12) > 1e-15 {
		t.Errorf("accuracy %v, %v", p.AccuracyA.Value, p.AccuracyB.Value)
	}
	if !p.Difference.HasBounds() || p.Difference.Low >= 1.0/3 || p.Difference.High <= 1.0/3 {
		t.Errorf("interval %+v", p.Difference)
	}
	var fixed []string
	for _, u := range p.Fixed {
		fixed = append(fixed, u.ItemID)
	}
	if len(fixed) != 5 || fixed[0] != "q5\x1b[31m*evil*" || fixed[4] != "q9" || len(p.Broken) != 1 || p.Broken[0].ItemID != "q10" {
		t.Errorf("fixed %q, broken %+v", fixed, p.Broken)
	}
	if p.SmallSample == "" || c.Dimensions[0].A.NoVerdict != 1 || c.Dimensions[0].B.NoVerdict != 1 {
		t.Errorf("small sample %q, no verdict %d/%d", p.SmallSample, c.Dimensions[0].A.NoVerdict, c.Dimensions[0].B.NoVerdict)
	}

	code, out, errs := run(t, "compare", session, "--judge", "a_verdict", "--judge", "b_verdict", "--resamples", "0")
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"difference B − A        +33.3 pts [", "McNemar exact p         0.219",
		"fixed by B              5: q5", "broken by B             1: q10", "not yet stable",
		"A right             4        1", "A wrong             5        2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsRune(out, '\x1b') {
		t.Errorf("an escape sequence from an item id reached the terminal:\n%q", out)
	}
	if code, comp, _ := run(t, "__complete", "compare", session, "--judge", "imported · b"); code != 0 || !strings.Contains(comp, "imported · b_verdict") {
		t.Errorf("completion of --judge (exit %d): %q", code, comp)
	}
	code, md, _ := run(t, "compare", session, "--judge", "a_verdict", "--judge", "b_verdict", "--format", "markdown", "--items")
	if code != 0 || strings.ContainsRune(md, '\x1b') || !strings.Contains(md, `\*evil\*`) || !strings.Contains(md, "| **A right** | 4 | 1 |") {
		t.Errorf("markdown (exit %d):\n%s", code, md)
	}
}

func TestCompareMistakes(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "c.gavel")
	if code, _, errs := run(t, "import", writeFile(t, dir, "c.csv", compareCSV), "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	one := filepath.Join(dir, "one.gavel")
	if code, _, errs := run(t, "import", writeFile(t, dir, "one.csv", judgedCSV), "--session", one); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	unlabelled := filepath.Join(dir, "u.gavel")
	noLabels := "id,question,answer,prediction,a_verdict,b_verdict\nq1,x,x,x,yes,no\nq2,x,x,x,no,no\n"
	if code, _, errs := run(t, "import", writeFile(t, dir, "u.csv", noLabels), "--session", unlabelled); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	tests := []struct {
		name string
		argv []string
		code int
		want []string
	}{
		{"unknown judge", []string{"compare", session, "--judge", "a_verdict", "--judge", "gpt-9"}, 2,
			[]string{`no judge "gpt-9"`, `"imported · a_verdict", "imported · b_verdict"`}},
		{"one --judge", []string{"compare", session, "--judge", "a_verdict"}, 2, []string{"needs two judges"}},
		{"same judge", []string{"compare", session, "--judge", "a_verdict", "--judge", "imported · a_verdict"}, 2, []string{"two different judges"}},
		{"fewer than 2 judges", []string{"compare", one, "--judge", "gpt4_verdict", "--judge", "x"}, 2,
			[]string{`has one judge ("imported · gpt4_verdict")`, "needs two"}},
		{"no labelled items", []string{"compare", unlabelled, "--judge", "a_verdict", "--judge", "b_verdict"}, 1, []string{"no item of", "human label"}},
		{"unknown dimension", []string{"compare", session, "--judge", "a_verdict", "--judge", "b_verdict", "--dimension", "style"}, 2, []string{`dimension "style"`, "correct"}},
		{"bad format", []string{"compare", session, "--judge", "a_verdict", "--judge", "b_verdict", "--format", "xml"}, 2, []string{"unknown --format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := run(t, tt.argv...)
			if code != tt.code {
				t.Errorf("exit %d, want %d: %s", code, tt.code, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

// TestCompareTriviaQA compares two judges of the TriviaQA file of "Judging
// the judges" and checks the table and the fixed and broken items against
// counts made here from the CSV rows (item ids are row numbers from 1).
func TestCompareTriviaQA(t *testing.T) {
	src := sharedData(t, "judging_the_judges__TriviaQA_Judges_w_HumanJudgement_V1.csv")
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range records[0] {
		col[h] = i
	}
	const judgeA, judgeB = "EM", "GPT-4"
	var both, onlyA, onlyB, neither int
	var fixed, broken []string
	for i, r := range records[1:] {
		human := strings.ToLower(r[col["HumanJudgement"]])
		if human != "true" && human != "false" {
			continue
		}
		// A blank verdict is no verdict: wrong.
		ra := strings.ToLower(r[col[judgeA]]) == human
		rb := strings.ToLower(r[col[judgeB]]) == human
		id := strconv.Itoa(i + 1)
		switch {
		case ra && rb:
			both++
		case ra:
			onlyA++
			broken = append(broken, id)
		case rb:
			onlyB++
			fixed = append(fixed, id)
		default:
			neither++
		}
	}
	n := both + onlyA + onlyB + neither

	session := filepath.Join(t.TempDir(), "tq.gavel")
	if code, _, errs := run(t, "import", src, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	c := compareJSON(t, "compare", session, "--judge", judgeA, "--judge", judgeB, "--resamples", "200")
	p := c.Dimensions[0].Paired
	if p.N != n || p.BothRight != both || p.OnlyA != onlyA || p.OnlyB != onlyB || p.BothWrong != neither {
		t.Fatalf("table %d/%d/%d/%d of %d, counted from the CSV %d/%d/%d/%d of %d",
			p.BothRight, p.OnlyA, p.OnlyB, p.BothWrong, p.N, both, onlyA, onlyB, neither, n)
	}
	if got, want := p.Difference.Value, float64(onlyB-onlyA)/float64(n); math.Abs(got-want) > 1e-15 {
		t.Errorf("difference %v, want %v", got, want)
	}
	if got, want := p.McNemarP.Value, stats.McNemarExact(onlyA, onlyB); got != want || !(got < 1e-10) {
		t.Errorf("McNemar p %v, want %v (and tiny: GPT-4 fixes %d, breaks %d)", got, want, onlyB, onlyA)
	}
	ids := func(us []stats.UnitRef) []string {
		out := make([]string, len(us))
		for i, u := range us {
			out[i] = u.ItemID
		}
		return out
	}
	if strings.Join(ids(p.Fixed), ",") != strings.Join(fixed, ",") || strings.Join(ids(p.Broken), ",") != strings.Join(broken, ",") {
		t.Errorf("fixed/broken differ from the CSV: %d/%d vs %d/%d", len(p.Fixed), len(p.Broken), len(fixed), len(broken))
	}
	// Per judge: the figures gavel stats gives (kappa 0.458 and 0.788 in the README).
	if a, b := c.Dimensions[0].A.VsHumans, c.Dimensions[0].B.VsHumans; math.Abs(a.CohenKappa.Value-0.458) > 0.0005 ||
		math.Abs(b.CohenKappa.Value-0.788) > 0.0005 || a.N != 3595 || !a.Binary.FalsePassRate.HasBounds() {
		t.Errorf("kappa %v and %v, n %d", a.CohenKappa.Value, b.CohenKappa.Value, a.N)
	}

	code, out, errs := run(t, "compare", session, "--judge", judgeA, "--judge", judgeB, "--resamples", "200")
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	if want := "fixed by B              " + strconv.Itoa(len(fixed)) + ": " + strings.Join(fixed[:5], ", ") + " …"; !strings.Contains(out, want) {
		t.Errorf("text lacks %q:\n%s", want, out)
	}
}
