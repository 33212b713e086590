package report

import (
	"bytes"
	"encoding/json"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// planInput is a session of 40 items judged by one binary judge (named
// name) with an active plan of 10, 8 of them labelled following it.
func planInput(name string) stats.Input {
	in := stats.Input{Judges: []stats.JudgeSpec{{Key: name, Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}}}
	pl := &stats.PlanInput{ID: 2, Design: "active", Seed: 5, Judge: name, Dimension: "correct", Target: 10}
	for i := range 40 {
		v := float64(i % 2)
		u := stats.Unit{ItemID: "q" + strconv.Itoa(i), Verdicts: []stats.Verdict{{Judge: name, Status: judge.StatusOK, Values: map[string]float64{"correct": v}}}}
		prob := 0.2
		if i%3 == 0 {
			prob = 0.3
		}
		pu := stats.PlanUnit{Unit: i, Probability: prob, Selected: i < 20 && i%4 < 2, Verdict: &v}
		if pu.Selected && i != 16 && i != 17 {
			y := v
			if i == 8 || i == 13 {
				y = 1 - v
			}
			u.Labels = []stats.Label{{Annotator: "cy", Values: map[string]float64{"correct": y}, Provenance: "plan:2"}}
		}
		in.Units = append(in.Units, u)
		pl.Units = append(pl.Units, pu)
	}
	in.Plan, in.PlanDesigns = pl, map[int]string{2: "active"}
	return in
}

var planFigRE = regexp.MustCompile(`<span class="fig( undef)?" data-fig="(plan\.[^"]*)" data-unit="([^"]*)">((?:[^<]|<span class="ci">[^<]*</span>|<small>[^<]*</small>)*)</span>`)

// TestPlanSection: every figure of the plan section equals gavel stats'
// JSON at the precision shown, and hostile names stay inert.
func TestPlanSection(t *testing.T) {
	name := "m<b>atch\u202e"
	rep := stats.Compute(planInput(name), stats.Options{Seed: 1, Resamples: -1})
	var buf bytes.Buffer
	if err := WriteHTML(&buf, &Data{Session: "s.gavel", Stats: rep}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, `<section id="plan">`) || !strings.Contains(page, `<a href="#plan">`) {
		t.Fatal("no plan section")
	}
	if strings.Contains(page, "<b>atch") || strings.Contains(page, "\u202e") {
		t.Error("the judge's name reached the page as it is")
	}
	if !strings.Contains(page, "human-only means (Horvitz–Thompson, Hájek) are less reliable than the corrected score") {
		t.Error("an active plan's page lacks the human means' caution")
	}
	js, _ := json.Marshal(rep)
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	plan := doc["plan"].(map[string]any)
	figs := planFigRE.FindAllStringSubmatch(page, -1)
	if len(figs) < 15 {
		t.Fatalf("%d plan figures on the page", len(figs))
	}
	num := regexp.MustCompile(`[+-]?\d+(?:\.\d+)?`)
	for _, m := range figs {
		path, unit := m[2], m[3]
		text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[4], ""))
		var cur any = plan
		for _, part := range strings.Split(strings.TrimPrefix(path, "plan."), ".") {
			cur = cur.(map[string]any)[part]
		}
		var want []float64
		switch v := cur.(type) {
		case float64:
			want = []float64{v}
		case map[string]any:
			if v["value"] == nil {
				if m[1] == "" {
					t.Errorf("%s: undefined in the JSON, the page shows %q", path, text)
				}
				continue
			}
			for _, k := range []string{"value", "low", "high"} {
				if x, ok := v[k].(float64); ok {
					want = append(want, x)
				}
			}
		}
		shown := num.FindAllString(strings.ReplaceAll(text, ",", ""), -1)
		if len(shown) != len(want) {
			t.Errorf("%s: the page shows %q, the JSON %v", path, text, want)
			continue
		}
		for i, s := range shown {
			got, _ := strconv.ParseFloat(s, 64)
			w := want[i]
			if unit == unitPercent || unit == unitPoints {
				w *= 100
			}
			dec := 0
			if j := strings.IndexByte(s, '.'); j >= 0 {
				dec = len(s) - j - 1
			}
			if math.Abs(got-w) > 0.5*math.Pow(10, -float64(dec))+1e-9 {
				t.Errorf("%s: the page shows %s, the JSON %v", path, s, w)
			}
		}
	}
}

// A report without a plan has no plan section.
func TestNoPlanSection(t *testing.T) {
	in := planInput("match")
	in.Plan = nil
	var buf bytes.Buffer
	if err := WriteHTML(&buf, &Data{Session: "s.gavel", Stats: stats.Compute(in, stats.Options{Resamples: -1})}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `id="plan"`) {
		t.Error("a plan section without a plan")
	}
}
