package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// planTestSession writes a session of 30 items judged by "conf" (binary,
// item i given with confidence 0.5 + i/60) and, with second, by "other"
// too; it returns the session's path.
func planTestSession(t *testing.T, dir string, second bool) string {
	t.Helper()
	path := filepath.Join(dir, "plan.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "builder"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var items []judge.Item
	for i := range 30 {
		items = append(items, judge.Item{Index: i, ID: fmt.Sprintf("i%02d", i), Question: "q", Gold: "g", Prediction: "p",
			Segments: map[string]string{"category": []string{"x", "y", "y"}[i%3]}})
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "plan.jsonl", SHA256: "x", Format: "jsonl", Items: len(items)}, items); err != nil {
		t.Fatal(err)
	}
	names := []string{"conf"}
	if second {
		names = append(names, "other")
	}
	for _, name := range names {
		run, err := s.EnsureRun(judge.Info{Name: name, Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
		if err != nil {
			t.Fatal(err)
		}
		var vs []judge.Verdict
		for i := range 30 {
			c := 0.5 + float64(i)/60
			vs = append(vs, judge.Verdict{ItemID: fmt.Sprintf("i%02d", i), Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Confidence: &c})
		}
		if err := s.SaveVerdicts(run.ID, vs); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// planRows reads gavel plan's JSON lines.
func planRows(t *testing.T, out string) []planRow {
	t.Helper()
	var rows []planRow
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r planRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		rows = append(rows, r)
	}
	return rows
}

func TestPlanCommand(t *testing.T) {
	path := planTestSession(t, t.TempDir(), false)
	code, out, errs := run(t, "plan", path, "-n", "6", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := planRows(t, out)
	if len(rows) != 6 {
		t.Fatalf("%d rows: %s", len(rows), out)
	}
	sum := 0.0
	for k, r := range rows {
		if r.Rank != k+1 || !(r.Probability > 0 && r.Probability <= 1) || !strings.Contains(r.Why, "uncertainty") {
			t.Errorf("row %d: %+v", k, r)
		}
		sum += r.Probability
	}
	for _, want := range []string{"Recorded plan 1 of " + path + ": active, 6 of 30 items, seed 3, drawn from the verdicts of \"conf\" on correct.",
		"All 30 verdicts say how unsure they are", "--via plan:1",
		"(gavel review plan.jsonl --session " + path + " follows the plan)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// The same seed draws the same items; the text table lists them.
	code, _, errs = run(t, "plan", path, "-n", "6", "--seed", "3")
	if code != 2 || !strings.Contains(errs, "already has this plan: plan 1") {
		t.Errorf("the same plan again: exit %d, %s", code, errs)
	}
	code, text, errs := run(t, "plan", path, "--show", "1", "--format", "text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "rank") {
		t.Fatalf("text:\n%s", text)
	}
	for k, r := range rows {
		if f := strings.Fields(lines[k+1]); f[1] != r.ID {
			t.Errorf("text row %d is %s, the JSON row %s", k, f[1], r.ID)
		}
	}
	// Extended, every item stays; listed; shown again.
	code, out, errs = run(t, "plan", path, "--extend", "1", "-n", "12")
	if code != 0 || !strings.Contains(errs, "Extended plan 1") {
		t.Fatalf("extend: exit %d: %s", code, errs)
	}
	ext := map[string]bool{}
	for _, r := range planRows(t, out) {
		ext[r.ID] = true
	}
	for _, r := range rows {
		if !ext[r.ID] {
			t.Errorf("%s left the plan on extension", r.ID)
		}
	}
	code, out, _ = run(t, "plan", path)
	if code != 0 || !strings.Contains(out, "1     active  12") {
		t.Errorf("list: exit %d:\n%s", code, out)
	}
	code, out, _ = run(t, "plan", path, "--show", "1")
	if code != 0 || len(planRows(t, out)) != 12 {
		t.Errorf("show: exit %d:\n%s", code, out)
	}
	// Stratified and uniform.
	code, out, errs = run(t, "plan", path, "--design", "stratified", "--stratify", "category", "-n", "3", "--seed", "1")
	if code != 0 || !strings.Contains(out, `"why":"stratum category=x: 1 of 10"`) || !strings.Contains(out, `"stratum":"y"`) {
		t.Errorf("stratified: exit %d: %s\n%s", code, errs, out)
	}
	code, out, _ = run(t, "plan", path, "--design", "uniform", "-n", "3", "--seed", "1")
	if code != 0 || strings.Count(out, `"why":"uniform: 3 of 30"`) != 3 {
		t.Errorf("uniform: exit %d:\n%s", code, out)
	}
}

func TestPlanCommandRefusals(t *testing.T) {
	dir := t.TempDir()
	path := planTestSession(t, dir, true)
	bare := filepath.Join(t.TempDir(), "bare.gavel")
	s, err := sessions.Open(bare, sessions.Options{Annotator: "builder"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "b.jsonl", SHA256: "x", Format: "jsonl", Items: 1}, []judge.Item{{ID: "only", Prediction: "p"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"several judges", []string{"plan", path, "-n", "3"}, 2, `verdicts of 2 judges ("conf", "other"): say which one the plan reads with --judge NAME`},
		{"unknown judge", []string{"plan", path, "-n", "3", "--judge", "nope"}, 2, `no judge "nope" in ` + path + `: its judges are "conf", "other"`},
		{"too many", []string{"plan", path, "-n", "31", "--judge", "conf"}, 2, "-n 31 but session " + path + " has 30 items"},
		{"no verdicts for active", []string{"plan", bare, "-n", "1"}, 2, "an active plan samples by how unsure the judge is"},
		{"bad design", []string{"plan", path, "-n", "3", "--design", "smart"}, 2, `unknown design "smart"`},
		{"bad format", []string{"plan", path, "-n", "3", "--format", "csv"}, 2, `unknown --format "csv"`},
		{"extend with design", []string{"plan", path, "--extend", "1", "-n", "9", "--design", "uniform"}, 2, "--extend keeps the plan's design"},
		{"extend unknown", []string{"plan", path, "--extend", "4", "-n", "9"}, 2, "has no labelling plan 4: it has none yet"},
		{"no n", []string{"plan", path, "--design", "uniform"}, 2, "say how many items to label with -n N"},
		{"no session", []string{"plan", filepath.Join(dir, "none.gavel"), "-n", "3"}, 2, "no session"},
		{"no demo session", []string{"plan", "-n", "3"}, 2, "no session given, and the demo has no session yet"},
	} {
		code, _, errs := run(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%s: exit %d, stderr %q; want %d with %q", c.name, code, errs, c.code, c.msg)
		}
	}
	// A uniform plan needs no judge.
	if code, out, errs := run(t, "plan", bare, "--design", "uniform", "-n", "1", "--seed", "2"); code != 0 || !strings.Contains(out, `"id":"only"`) {
		t.Errorf("uniform without a judge: exit %d %s %s", code, out, errs)
	}
}

// TestLabelViaPlan: gavel label --via plan:ID records the plan as the
// label's provenance on an item the plan chose, and refuses any other.
func TestLabelViaPlan(t *testing.T) {
	path := planTestSession(t, t.TempDir(), false)
	code, out, errs := run(t, "plan", path, "-n", "4", "--seed", "9")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	chosen := map[string]bool{}
	for _, r := range planRows(t, out) {
		chosen[r.ID] = true
	}
	var in, out1 string
	for i := range 30 {
		id := fmt.Sprintf("i%02d", i)
		if chosen[id] && in == "" {
			in = id
		}
		if !chosen[id] && out1 == "" {
			out1 = id
		}
	}
	if code, _, errs := run(t, "label", path, in, "YES", "--via", "plan:1", "--annotator", "ana"); code != 0 {
		t.Fatalf("label on a planned item: exit %d: %s", code, errs)
	}
	rows := actionRows(t, path, "ana")
	if len(rows) != 1 || rows[0].Via != "plan:1" || rows[0].Item != in {
		t.Errorf("recorded %v", rows)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"label", path, out1, "YES", "--via", "plan:1"}, "plan 1 did not choose " + fmt.Sprintf("%q", out1) + " (it chose 4 of 30 items"},
		{[]string{"label", path, in, "YES", "--via", "plan:7"}, "--via plan:7: session " + path + " has no labelling plan 7: its plans are 1"},
		{[]string{"label", path, in, "YES", "--via", "plan:x"}, "or plan:ID when following labelling plan ID"},
		{[]string{"label", path, in, "YES", "--via", "plan:01"}, "or plan:ID when following labelling plan ID"},
	} {
		if code, _, errs := run(t, append(c.args, "--annotator", "bob")...); code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, %q; want 2 with %q", c.args, code, errs, c.msg)
		}
	}
	// The statistics read the plan and the label's provenance.
	s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stin, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if stin.Plan == nil || stin.Plan.ID != 1 || stin.Plan.Target != 4 {
		t.Fatalf("plan in the statistics: %+v", stin.Plan)
	}
	found := false
	for _, u := range stin.Units {
		for _, l := range u.Labels {
			found = found || (u.ItemID == in && l.Provenance == "plan:1")
		}
	}
	if !found {
		t.Error("the label's provenance plan:1 is not in the statistics input")
	}
}

// TestImportConfidenceIntoPlan: --map confidence=COLUMN stores each
// verdict's confidence, which an active plan reads as √(1−c); a value
// that is no probability stops the import, naming its row.
func TestImportConfidenceIntoPlan(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,question,answer,prediction,verdict,judge_conf\n")
	for i := range 20 {
		conf := fmt.Sprintf("%.2f", 0.5+float64(i)/40)
		if i == 4 {
			conf = "" // no confidence: the mean
		}
		fmt.Fprintf(&b, "c%02d,q,a,p,%s,%s\n", i, []string{"yes", "no"}[i%2], conf)
	}
	data := writeFile(t, dir, "conf.csv", b.String())
	session := filepath.Join(dir, "conf.gavel")
	code, out, errs := run(t, "import", data, "--session", session, "--map", "confidence=judge_conf")
	if code != 0 || !strings.Contains(out, "run imported · verdict: 20 verdicts (19 with a confidence)") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, "plan", session, "-n", "20", "--seed", "1")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	for _, r := range planRows(t, out) {
		var i int
		fmt.Sscanf(r.ID, "c%d", &i)
		want := fmt.Sprintf("(confidence %s)", strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", 0.5+float64(i)/40), "0"), "."))
		if i == 4 {
			want = "the mean (the verdict says nothing of its certainty)"
		}
		if !strings.Contains(r.Why, want) {
			t.Errorf("%s: why %q, want %q", r.ID, r.Why, want)
		}
	}
	if !strings.Contains(errs, "19 of 20 verdicts say how unsure they are") {
		t.Errorf("stderr: %s", errs)
	}

	for _, bad := range []struct{ cell, msg string }{
		{"1.3", `"1.3" is outside 0 to 1`},
		{"85%", `"85%" is not a number`},
		{"-0.1", `"-0.1" is outside 0 to 1`},
		{"NaN", `"NaN" is not a number`},
	} {
		file := writeFile(t, dir, "bad.csv", "id,question,answer,prediction,verdict,judge_conf\nb1,q,a,p,yes,0.9\nb2,q,a,p,no,"+bad.cell+"\n")
		code, _, errs := run(t, "import", file, "--session", filepath.Join(t.TempDir(), "bad.gavel"), "--map", "confidence=judge_conf")
		want := `bad.csv row 2 (id "b2"): the confidence of "verdict" in column "judge_conf": ` + bad.msg
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, %q; want 1 with %q", bad.cell, code, errs, want)
		}
	}
}

// TestPlanCompletion: gavel plan completes its designs, formats and the
// session's judges.
func TestPlanCompletion(t *testing.T) {
	path := planTestSession(t, t.TempDir(), true)
	for _, c := range []struct {
		argv []string
		want []string
	}{
		{[]string{"plan", path, "--design", ""}, []string{"active", "uniform", "stratified"}},
		{[]string{"plan", path, "--format", ""}, []string{"jsonl", "text"}},
		{[]string{"plan", path, "--judge", ""}, []string{"conf", "other"}},
	} {
		got, directive := completions(t, c.argv...)
		if !contains(got, c.want...) || len(got) != len(c.want) || directive != ":4" {
			t.Errorf("%v: %v %s, want %v", c.argv, got, directive, c.want)
		}
	}
}

// TestStatsPlanUnderSplit: figures read from one part of a split give
// the plan's estimates on that part's items (a domain of the plan), with
// a note; the plan's rows point at the part's units, every label on a
// planned item of the part is counted.
func TestStatsPlanUnderSplit(t *testing.T) {
	path := planTestSession(t, t.TempDir(), false)
	if code, _, errs := run(t, "split", path, "--seed", "4"); code != 0 {
		t.Fatalf("split: exit %d: %s", code, errs)
	}
	code, out, errs := run(t, "plan", path, "-n", "6", "--seed", "3")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	for _, r := range planRows(t, out) {
		if code, _, errs := run(t, "label", path, r.ID, "YES", "--via", "plan:1", "--annotator", "ana"); code != 0 {
			t.Fatalf("label: exit %d: %s", code, errs)
		}
	}
	for _, c := range []struct {
		args     []string
		plan     bool
		stderrIn string
	}{
		{[]string{"stats", path, "--format", "json", "--split", "evaluation"}, true, "its estimates here cover the evaluation part's"},
		{[]string{"stats", path, "--format", "json", "--split", "calibration"}, true, "cover the calibration part's"},
		{[]string{"stats", path, "--format", "json"}, true, ""},
		{[]string{"stats", path, "--format", "json", "--split", "all"}, true, ""},
		{[]string{"compare", path, "--format", "json"}, false, ""},
	} {
		code, out, errs := run(t, c.args...)
		if c.args[0] == "compare" {
			// One judge: compare refuses; what matters is that it does
			// not fail on the plan.
			if strings.Contains(errs, "panic") {
				t.Errorf("compare: %s", errs)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var rep map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if _, has := rep["plan"]; has != c.plan {
			t.Errorf("%v: plan in the report %v, want %v", c.args, has, c.plan)
		}
		if c.stderrIn != "" && !strings.Contains(errs, c.stderrIn) || c.stderrIn == "" && strings.Contains(errs, "drawn over every item") {
			t.Errorf("%v: stderr %q", c.args, errs)
		}
	}
}

// TestPlanHostileText: ids and strata from the dataset reach the terminal
// escaped: the JSON lines hold no DEL, C1 or bidi control (as \uXXXX,
// decoding to the original text), the table none at all.
func TestPlanHostileText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "builder"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"a\u009b31m", "b\u202eevil", "c\x7f", "d\u2066x\u2069", "e\u200f", "plain"}
	var items []judge.Item
	for i, id := range ids {
		items = append(items, judge.Item{Index: i, ID: id, Prediction: "p",
			Segments: map[string]string{"category": []string{"\u202eq", "\u009bz"}[i%2]}})
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "h.jsonl", SHA256: "x", Format: "jsonl", Items: len(items)}, items); err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, out, errs := run(t, "plan", path, "--design", "stratified", "--stratify", "category", "-n", "6", "--seed", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	bad := func(r rune) bool { return jsonControl(r) || r < 0x20 && r != '\n' }
	if strings.IndexFunc(out, bad) >= 0 {
		t.Errorf("JSON lines hold a control: %q", out)
	}
	got := map[string]bool{}
	for _, r := range planRows(t, out) {
		got[r.ID] = true
		if !strings.Contains(r.Why, r.Stratum) || (r.Stratum != "\u202eq" && r.Stratum != "\u009bz") {
			t.Errorf("row %+v", r)
		}
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("id %q lost in the JSON", id)
		}
	}
	code, text, errs := run(t, "plan", path, "--show", "1", "--format", "text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.IndexFunc(text, bad) >= 0 || strings.IndexFunc(errs, bad) >= 0 {
		t.Errorf("the table or the summary holds a control:\n%q\n%q", text, errs)
	}
}

// TestStatsPlanFlag: gavel stats --plan picks the plan estimated from,
// none leaves it out, an unknown one is a usage error.
func TestStatsPlanFlag(t *testing.T) {
	path := planTestSession(t, t.TempDir(), false)
	for _, args := range [][]string{{"-n", "4", "--seed", "1"}, {"--design", "uniform", "-n", "5", "--seed", "1"}} {
		if code, _, errs := run(t, append([]string{"plan", path}, args...)...); code != 0 {
			t.Fatalf("plan: exit %d: %s", code, errs)
		}
	}
	planOf := func(args ...string) (int, string) {
		code, out, errs := run(t, append([]string{"stats", path, "--format", "json"}, args...)...)
		if code != 0 {
			return code, errs
		}
		var rep struct {
			Plan *struct {
				ID int `json:"id"`
			} `json:"plan"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Plan == nil {
			return 0, "none"
		}
		return 0, fmt.Sprint(rep.Plan.ID)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 0, "2"},
		{[]string{"--plan", "1"}, 0, "1"},
		{[]string{"--plan", "none"}, 0, "none"},
		{[]string{"--plan", "3"}, 2, "has no labelling plan 3: its plans are 1, 2"},
		{[]string{"--plan", "x"}, 2, `unknown --plan "x"`},
	} {
		code, got := planOf(c.args...)
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, got, c.code, c.want)
		}
	}
}

// TestPlanDomain: a split part keeps the plan rows of its items, each
// pointing at the item's Criterion-0 unit in the part.
func TestPlanDomain(t *testing.T) {
	all := []stats.Unit{{ItemID: "a"}, {ItemID: "b"}, {ItemID: "r"}, {ItemID: "r", Criterion: 1}, {ItemID: "c"}}
	kept := []stats.Unit{{ItemID: "b"}, {ItemID: "r"}, {ItemID: "r", Criterion: 1}}
	p := &stats.PlanInput{ID: 1, Target: 2, Units: []stats.PlanUnit{
		{Unit: 0, ItemID: "a", Probability: 0.5, Selected: true},
		{Unit: 1, ItemID: "b", Probability: 0.25},
		{Unit: 2, Probability: 0.75, Selected: true}, // no ItemID: read from the unit
		{Unit: 4, ItemID: "c", Probability: 0.5},
	}}
	d := planDomain(p, all, kept)
	want := []stats.PlanUnit{{Unit: 0, ItemID: "b", Probability: 0.25}, {Unit: 1, ItemID: "r", Probability: 0.75, Selected: true}}
	if fmt.Sprint(d.Units) != fmt.Sprint(want) || d.Target != 2 || len(p.Units) != 4 {
		t.Errorf("domain %+v, want %+v (the plan itself unchanged: %d rows)", d.Units, want, len(p.Units))
	}
	if planDomain(nil, all, kept) != nil {
		t.Error("no plan gave one")
	}
}

// TestStatsItemsAfterThePlan: items a dataset gained after the plan was
// drawn are outside its estimates, and gavel stats says so.
func TestStatsItemsAfterThePlan(t *testing.T) {
	dir := t.TempDir()
	rows := func(n int) string {
		var b strings.Builder
		b.WriteString("id,question,answer,prediction,verdict\n")
		for i := range n {
			fmt.Fprintf(&b, "r%02d,q,a,p,%s\n", i, []string{"yes", "no"}[i%2])
		}
		return b.String()
	}
	session := filepath.Join(dir, "grow.gavel")
	data := writeFile(t, dir, "grow.csv", rows(10))
	if code, _, errs := run(t, "import", data, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "plan", session, "--design", "uniform", "-n", "3", "--seed", "1"); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	writeFile(t, dir, "grow.csv", rows(12))
	if code, _, errs := run(t, "import", data, "--session", session); code != 0 {
		t.Fatalf("second import: exit %d: %s", code, errs)
	}
	code, _, errs := run(t, "stats", session, "--format", "json")
	if code != 0 || !strings.Contains(errs, "2 of these 12 items came after labelling plan 1 was drawn: its estimates cover the 10 items") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
