package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gradedSession imports a file in gavel's export format with a binary
// judge carrying logprob confidences (some missing), a Likert judge and
// random binary labels.
func gradedSession(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "graded.csv")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"id", "question", "answer", "prediction", "verdict:docqa · m:correct", "verdict_confidence:docqa · m",
		"verdict:quality · m:correctness", "label:ann:correct", "label_via:ann"})
	r := rand.New(rand.NewPCG(4, 2))
	for i := range 120 {
		truth := r.Float64() < 0.6
		conf := 0.5 + r.Float64()/2
		yes := truth != (r.Float64() < (1-conf)*1.2)
		score := min(5, max(1, map[bool]int{true: 4, false: 2}[truth]+r.IntN(3)-1))
		c := fmt.Sprintf("%.3f", conf)
		if i%9 == 0 {
			c = ""
		}
		label, via := "", ""
		if r.Float64() < 0.8 {
			label, via = map[bool]string{true: "1", false: "0"}[truth], "random"
		}
		w.Write([]string{fmt.Sprint("q", i), "q?", "a", "p", map[bool]string{true: "1", false: "0"}[yes], c, fmt.Sprint(score), label, via})
	}
	w.Flush()
	f.Close()
	session := filepath.Join(dir, "g.gavel")
	if code, _, errs := gavel(t, "import", src, "--session", session, "--scale", "correct=binary", "--scale", "correctness=likert"); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	return session
}

// The operating points and reliability curves of the report equal gavel
// stats --format json, under costs given to both.
func TestReportOperatingPointsEqualStats(t *testing.T) {
	session := gradedSession(t)
	flags := []string{"--cost-false-pass", "3", "--cost-false-fail", "1", "--resamples", "200"}
	page := filepath.Join(t.TempDir(), "report.html")
	if code, _, errs := gavel(t, append([]string{"report", session, "-o", page, "--no-date"}, flags...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	code, js, errs := gavel(t, append([]string{"stats", session, "--format", "json"}, flags...)...)
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	var doc struct {
		OperatingPoints []struct {
			Costs struct {
				FalsePass float64 `json:"false_pass"`
			} `json:"costs"`
		} `json:"operating_points"`
		Reliability []any `json:"reliability"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	// quality's sweep; docqa's logprob confidence gets a reliability curve
	// and no sweep.
	if len(doc.OperatingPoints) != 1 || len(doc.Reliability) != 1 || doc.OperatingPoints[0].Costs.FalsePass != 3 {
		t.Fatalf("stats JSON: %d operating points, %d reliability curves, %+v", len(doc.OperatingPoints), len(doc.Reliability), doc.OperatingPoints)
	}
	checkFiguresAgainstJSON(t, string(b), js)
	figs := readFigures(t, string(b))
	n := 0
	for _, f := range figs {
		if strings.HasPrefix(f.path, "operating_points.") || strings.HasPrefix(f.path, "reliability.") {
			n++
		}
	}
	if n < 60 { // quality's sweep and docqa's curve
		t.Errorf("only %d operating-point and reliability figures in the report", n)
	}
	for _, want := range []string{`data-chart="sweep"`, `data-chart="reliability"`, `id="graded"`} {
		if c := strings.Count(string(b), want); c == 0 {
			t.Errorf("the report lacks %s", want)
		}
	}
	// Bad costs are a usage error, for both commands.
	for _, cmd := range []string{"stats", "report"} {
		if code, _, errs := gavel(t, cmd, session, "--cost-false-pass", "-1"); code != 2 || !strings.Contains(errs, "--cost-false-pass") {
			t.Errorf("%s --cost-false-pass -1: exit %d, %s", cmd, code, errs)
		}
	}
}
