package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// sharedData returns the path of a real eval file in ../shared/data,
// skipping the test when the files are not on this machine and failing
// under CI=true, where they must be.
func sharedData(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "data", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not available under CI=true: %v", p, err)
		}
		t.Skipf("%s not available: %v", p, err)
	}
	return p
}

// readSession opens a session read-only for the test's checks.
func readSession(t *testing.T, path string) *sessions.Store {
	t.Helper()
	s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// preferenceCounts counts verdicts by status, and ok ones by their preference.
func preferenceCounts(vs []judge.Verdict) map[string]int {
	out := map[string]int{}
	for _, v := range vs {
		if !v.OK() {
			out[string(v.Status)]++
			continue
		}
		out[judge.Pairwise.Format(v.Values["preference"])]++
	}
	return out
}

// TestImportPandaLMJoined imports PandaLM's test set (three annotators,
// 0 tie / 1 / 2) and joins its two judges' files to it by idx.
func TestImportPandaLMJoined(t *testing.T) {
	testset := sharedData(t, "pandalm__testset-v1.json")
	gpt := sharedData(t, "pandalm__gpt-3.5-turbo-testset-v1.json")
	pandalm := sharedData(t, "pandalm__pandalm-7b-testset-v1.json")
	session := filepath.Join(t.TempDir(), "pandalm.gavel")

	// Without --scale, 0/1/2 is a preference or a score: not guessed.
	code, out, errs := run(t, "import", testset, "--session", session)
	if code != 0 || !strings.Contains(out, "999 items, 0 runs created, 0 verdicts, 0 labels") ||
		!strings.Contains(errs, "human column annotator1 is left out: it holds 0, 1 and 2, which could be a pairwise preference (1 = A, 2 = B, 0 = tie) (--scale annotator1=pairwise)") ||
		!strings.Contains(errs, "Nothing was imported from pandalm__testset-v1.json: see above.") {
		t.Fatalf("without --scale: exit %d\n%s\n%s", code, out, errs)
	}

	code, out, errs = run(t, "import", testset, "--session", session, "--scale", "pairwise")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "pandalm__testset-v1.json -> " + session + ": 999 items, 0 runs created, 0 verdicts, 2997 labels\n" +
		"  annotator annotator1: 999 labels\n  annotator annotator2: 999 labels\n  annotator annotator3: 999 labels\n"
	if out != want {
		t.Errorf("stdout\n got %q\nwant %q", out, want)
	}
	if !strings.Contains(errs, "mapped question=instruction+input,response_a=response1,response_b=response2,id=idx,human=annotator1+annotator2+annotator3") {
		t.Errorf("stderr %q should show the pairwise mapping", errs)
	}

	// The judges' files hold idx and results only: joined by id.
	code, out, errs = run(t, "import", gpt, "--session", session, "--join", "--scale", "pairwise")
	if code != 0 {
		t.Fatalf("gpt join: exit %d: %s", code, errs)
	}
	want = "pandalm__gpt-3.5-turbo-testset-v1.json -> " + session + ": 999 items, 1 run created, 999 verdicts, 0 labels\n" +
		"  run imported · gpt_result: 999 verdicts (25 parse errors)\n"
	if out != want || !strings.Contains(errs, "mapped id=idx,verdict=gpt_result,reason=gpt_result:gpt_reason") {
		t.Errorf("gpt join\n got %q\nwant %q\nstderr %q", out, want, errs)
	}
	code, out, errs = run(t, "import", pandalm, "--session", session, "--join", "--scale", "pandalm_result=pairwise")
	if code != 0 {
		t.Fatalf("pandalm join: exit %d: %s", code, errs)
	}
	if want := "  run imported · pandalm_result: 999 verdicts\n"; !strings.HasSuffix(out, want) {
		t.Errorf("pandalm join: %q, want it to end %q", out, want)
	}
	// Joining again adds nothing.
	if code, out, _ = run(t, "import", gpt, "--session", session, "--join", "--scale", "pairwise"); code != 0 ||
		!strings.Contains(out, "0 runs created, 0 verdicts") || !strings.Contains(out, "999 already there") {
		t.Errorf("second join: exit %d, %q", code, out)
	}

	s := readSession(t, session)
	annotators, err := s.Annotators()
	if err != nil || strings.Join(annotators, ",") != "annotator1,annotator2,annotator3" {
		t.Fatalf("annotators %v, %v", annotators, err)
	}
	// The file's counts of 0 (tie), 1 (A) and 2 (B) per annotator.
	wantLabels := map[string][3]int{"annotator1": {427, 97, 475}, "annotator2": {417, 116, 466}, "annotator3": {411, 113, 475}}
	for _, a := range annotators {
		labels, err := s.Labels(a)
		if err != nil {
			t.Fatal(err)
		}
		var got [3]int
		for _, l := range labels {
			if l.Dimension != "preference" {
				t.Fatalf("%s label on %q", a, l.Dimension)
			}
			got[judge.Pairwise.Index(l.Value)]++
		}
		if got != wantLabels[a] {
			t.Errorf("%s: A/tie/B = %v, want %v", a, got, wantLabels[a])
		}
	}
	runs, err := s.Runs()
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	wantRuns := map[string]map[string]int{
		"imported · gpt_result":     {"A": 460, "B": 476, "tie": 38, "parse_error": 25},
		"imported · pandalm_result": {"A": 433, "B": 459, "tie": 107},
	}
	for _, r := range runs {
		if d := r.Info.Dimensions; len(d) != 1 || d[0].Scale != judge.Pairwise || d[0].Scale.Ordinal() {
			t.Errorf("%s: dimensions %+v, want one pairwise (never ordinal)", sessions.RunLabel(r), d)
		}
		vs, err := s.Verdicts(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := preferenceCounts(vs), wantRuns[sessions.RunLabel(r)]; !equalCounts(got, want) {
			t.Errorf("%s: %v, want %v", sessions.RunLabel(r), got, want)
		}
		for _, v := range vs {
			if v.ItemID == "0" && !strings.HasPrefix(v.Reason, "Response ") {
				t.Errorf("%s: item 0's reason %q", sessions.RunLabel(r), v.Reason)
			}
			if v.Status == judge.StatusParseError && v.Raw != "garbage" {
				t.Errorf("parse error keeps %q", v.Raw)
			}
		}
	}
	items, err := s.Items()
	if err != nil || len(items) != 999 || items[0].ResponseA == "" || items[0].ResponseB == "" || !strings.Contains(items[0].Question, "\n\n") {
		t.Errorf("items: %d, first %+v, %v", len(items), items[0], err)
	}
	checkPairwiseStats(t, session, fleissFromFile(t, testset))
}

// checkPairwiseStats reads gavel stats' JSON of a pairwise session: no
// ordinal figure anywhere (0/1/2 and 1/2 read as a preference are
// categories), and the annotators' Fleiss kappa as computed from the file
// (NaN: not checked).
func checkPairwiseStats(t *testing.T, session string, fleiss float64) {
	t.Helper()
	code, out, errs := run(t, "stats", session, "--format", "json", "--resamples", "0")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	var doc struct {
		Judges []struct {
			Judge      string `json:"judge"`
			Dimensions []struct {
				Overall struct {
					VsHumans map[string]json.RawMessage `json:"vs_humans"`
				} `json:"overall"`
			} `json:"dimensions"`
		} `json:"judges"`
		Humans []struct {
			Scale        string `json:"scale"`
			AlphaOrdinal struct {
				Value *float64 `json:"value"`
			} `json:"alpha_ordinal"`
			FleissKappa struct {
				Value *float64 `json:"value"`
			} `json:"fleiss_kappa"`
		} `json:"humans"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stats JSON: %v", err)
	}
	for _, j := range doc.Judges {
		for _, d := range j.Dimensions {
			if o, ok := d.Overall.VsHumans["ordinal"]; ok && string(o) != "null" {
				t.Errorf("%s: ordinal figures %s on a pairwise scale", j.Judge, o)
			}
		}
	}
	if len(doc.Humans) != 1 || doc.Humans[0].Scale != "pairwise" || doc.Humans[0].AlphaOrdinal.Value != nil {
		t.Fatalf("humans %+v", doc.Humans)
	}
	if k := doc.Humans[0].FleissKappa.Value; !math.IsNaN(fleiss) && (k == nil || math.Abs(*k-fleiss) > 1e-9) {
		t.Errorf("Fleiss kappa %v, computed from the file %.6f", k, fleiss)
	}
}

// fleissFromFile computes the annotators' Fleiss kappa from PandaLM's
// test set directly: three raters, categories 0, 1 and 2.
func fleissFromFile(t *testing.T, path string) float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	var share [3]float64
	agree := 0.0
	for _, r := range rows {
		var n [3]float64
		for _, a := range []string{"annotator1", "annotator2", "annotator3"} {
			n[int(r[a].(float64))]++
		}
		for c := range n {
			share[c] += n[c]
			agree += n[c] * (n[c] - 1) / 6 // 3 raters: r(r-1) = 6
		}
	}
	total := float64(len(rows) * 3)
	pe := 0.0
	for _, x := range share {
		pe += (x / total) * (x / total)
	}
	po := agree / float64(len(rows))
	return (po - pe) / (1 - pe)
}

func equalCounts(a, b map[string]int) bool {
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

// llmbarJSONL turns LLMBar's result file into one JSONL row per pair: the
// two outputs, the gold label and the judge's winner in both orders (the
// swapped one already in the original terms), as the README's jq does.
func llmbarJSONL(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Input   string `json:"input"`
		Output1 string `json:"output_1"`
		Output2 string `json:"output_2"`
		Label   int    `json:"label"`
		Results []map[string]struct {
			Winner string `json:"winner"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, r := range rows {
		line, err := json.Marshal(map[string]any{
			"id": i + 1, "input": r.Input, "output_1": r.Output1, "output_2": r.Output2, "label": r.Label,
			"verdict": r.Results[0]["swap = False"].Winner, "verdict_swapped": r.Results[0]["swap = True"].Winner,
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// TestImportLLMBarSwapped imports LLMBar's judge in both orders into one
// run and reproduces the published statistics from what the session holds:
// 80/100 right in the original order, 83/100 swapped, 67 both, 71
// positional agreement, kappa between the orders 0.4287.
func TestImportLLMBarSwapped(t *testing.T) {
	src := sharedData(t, "llmbar__Natural__ChatGPT__Vanilla__result.json")
	dir := t.TempDir()
	data := writeFile(t, dir, "llmbar.jsonl", string(llmbarJSONL(t, src)))
	session := filepath.Join(dir, "llmbar.gavel")
	code, out, errs := run(t, "import", data, "--session", session, "--scale", "pairwise", "--map", "swapped=verdict_swapped")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "llmbar.jsonl -> " + session + ": 100 items, 1 run created, 200 verdicts, 100 labels\n" +
		"  run imported · verdict: 200 verdicts (100 swapped)\n" +
		"  annotator label: 100 labels\n"
	if out != want {
		t.Errorf("stdout\n got %q\nwant %q", out, want)
	}

	s := readSession(t, session)
	runs, err := s.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	orig, err := s.Verdicts(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	swapped, err := s.SwappedVerdicts(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	labels, err := s.Labels("label")
	if err != nil {
		t.Fatal(err)
	}
	if len(orig) != 100 || len(swapped) != 100 || len(labels) != 100 {
		t.Fatalf("%d original verdicts, %d swapped, %d labels; want 100 each", len(orig), len(swapped), len(labels))
	}
	gold := map[string]float64{}
	for _, l := range labels {
		gold[l.ItemID] = l.Value
	}
	first := map[string]float64{}
	for _, v := range orig {
		if !v.OK() || v.Swapped {
			t.Fatalf("original verdict %+v", v)
		}
		first[v.ItemID] = v.Values["preference"]
	}
	right1, right2, both, agree := 0, 0, 0, 0
	var a1, a2 int // times each order chose A
	for _, v := range swapped {
		if !v.OK() || !v.Swapped {
			t.Fatalf("swapped verdict %+v", v)
		}
		x, y, g := first[v.ItemID], v.Values["preference"], gold[v.ItemID]
		right1 += b2i(x == g)
		right2 += b2i(y == g)
		both += b2i(x == g && y == g)
		agree += b2i(x == y)
		a1 += b2i(x == judge.PreferA)
		a2 += b2i(y == judge.PreferA)
	}
	pe := float64(a1*a2+(100-a1)*(100-a2)) / 1e4
	kappa := (float64(agree)/100 - pe) / (1 - pe)
	if right1 != 80 || right2 != 83 || both != 67 || agree != 71 || math.Abs(kappa-0.4287) > 5e-5 {
		t.Errorf("right %d / %d, both %d, agree %d, kappa %s; want 80 / 83, 67, 71, 0.4287",
			right1, right2, both, agree, strconv.FormatFloat(kappa, 'f', 4, 64))
	}
	checkPairwiseStats(t, session, math.NaN())
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestImportScaleAndJoinErrors: each mistake with --scale and --join says
// what to do.
func TestImportScaleAndJoinErrors(t *testing.T) {
	dir := t.TempDir()
	pairs := writeFile(t, dir, "pairs.jsonl",
		`{"id": "a", "input": "Q", "response1": "x", "response2": "y", "label": 1}`+"\n"+
			`{"id": "b", "input": "Q", "response1": "x", "response2": "y", "label": 2}`+"\n")
	results := writeFile(t, dir, "results.jsonl", `{"id": "a", "judge_result": "B"}`+"\n"+`{"id": "z", "judge_result": "tie"}`+"\n")
	other := writeFile(t, dir, "other.jsonl", `{"id": "q", "judge_result": "B"}`+"\n")
	noIDs := writeFile(t, dir, "noids.jsonl", `{"judge_result": "B"}`+"\n")
	session := filepath.Join(dir, "pairs.gavel")
	if code, _, errs := run(t, "import", pairs, "--session", session, "--scale", "label=pairwise"); code != 0 {
		t.Fatalf("setup: exit %d: %s", code, errs)
	}
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown scale", []string{"import", pairs, "--scale", "pairwize"}, 2, `--scale "pairwize": unknown kind "pairwize"; write binary, ternary, likert`},
		{"two scales for all", []string{"import", pairs, "--scale", "pairwise", "--scale", "likert"}, 2, "give one scale for every column"},
		{"no such column", []string{"import", pairs, "--session", session, "--scale", "lable=pairwise"}, 2, "--scale lable=pairwise: lable is no verdict or human column of " + pairs + "; they are label"},
		{"join without a session", []string{"import", results, "--join"}, 2, "--join adds the columns of " + results + " to the items of an existing session: name it with --session FILE"},
		{"join to no session", []string{"import", results, "--join", "--session", filepath.Join(dir, "none.gavel")}, 1, "none.gavel does not exist: make it first"},
		{"join a file without ids", []string{"import", noIDs, "--join", "--session", session}, 1, "no id field: rows have keys \"judge_result\"; say which one holds the id with --map id=FIELD (--join matches the rows to the session's items by id)"},
		{"join a file sharing no id", []string{"import", other, "--join", "--session", session}, 1, `--join: none of the 1 ids of other.jsonl is an item of ` + session + ` (its first id is "q", the session's first is "a")`},
		{"a results file without --join", []string{"import", results, "--session", session}, 1, "To add its verdicts and labels to the items of " + session + " by id, add --join"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.msg)
			}
		})
	}

	// A join counts the rows the session lacks and the items the file
	// does not cover.
	code, out, errs := run(t, "import", results, "--join", "--session", session)
	if code != 0 {
		t.Fatalf("join: exit %d: %s", code, errs)
	}
	want := "results.jsonl -> " + session + ": 2 items, 1 run created, 1 verdict, 0 labels\n" +
		"  run imported · judge_result: 1 verdict\n" +
		"  1 row left out: the session does not hold its id\n" +
		"  1 of the session's items has no row in results.jsonl\n"
	if out != want {
		t.Errorf("stdout\n got %q\nwant %q", out, want)
	}
}
