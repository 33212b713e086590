package sessions

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// pairsJSONL is a small pairwise dataset: a judge's verdict in both
// orders, a human label on 1/2, and an annotator with 0 as tie.
const pairsJSONL = `{"id": "p1", "input": "Q1", "output_1": "a1", "output_2": "b1", "label": 1, "verdict": "1", "verdict_swapped": "1", "rater1": 0}
{"id": "p2", "input": "Q2", "output_1": "a2", "output_2": "b2", "label": 2, "verdict": "2", "verdict_swapped": "1", "rater1": 2}
{"id": "p3", "input": "Q3", "output_1": "a3", "output_2": "b3", "label": 2, "verdict": "oops", "verdict_swapped": "", "rater1": 9}
`

// importWith loads data as name and imports it into a new session with
// the given options.
func importWith(t *testing.T, path, name, data string, o ImportOptions) (*Store, ImportSummary) {
	t.Helper()
	ds, err := dataset.LoadBytes(name, []byte(data), dataset.Options{})
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	rv, err := OpenReview(path, "importer", ds)
	if err != nil {
		t.Fatalf("OpenReview: %v", err)
	}
	t.Cleanup(func() { rv.Store.Close() })
	sum, err := ImportDatasetWith(rv.Store, ds, o)
	if err != nil {
		t.Fatalf("ImportDatasetWith: %v", err)
	}
	return rv.Store, sum
}

// TestImportPairwiseWithoutScale: 1/2 and 0/1/2 columns are not guessed.
func TestImportPairwiseWithoutScale(t *testing.T) {
	_, sum := importWith(t, sessionPath(t), "pairs.jsonl", pairsJSONL, ImportOptions{})
	if len(sum.Runs) != 0 || len(sum.Annotators) != 0 || len(sum.Skipped) != 3 {
		t.Fatalf("summary %+v", sum)
	}
	for i, want := range []string{
		`verdict column verdict (with its swapped order verdict_swapped) is left out: it holds 1, 2 and "oops", which could be a pairwise preference (1 = A, 2 = B) (--scale verdict=pairwise), a 1–5 score (--scale verdict=likert)`,
		`human column label is left out: it holds 1 and 2, which could be a pairwise preference`,
		`human column rater1 is left out: it holds 0, 2 and 9, which could be a 0–9 score (--scale rater1=ordinal:0-9)`,
	} {
		if !strings.HasPrefix(sum.Skipped[i], want) {
			t.Errorf("skipped[%d]\n got: %s\nwant: %s…", i, sum.Skipped[i], want)
		}
	}
}

func TestImportPairwiseWithScale(t *testing.T) {
	scales, err := ParseImportScales([]string{"pairwise"})
	if err != nil {
		t.Fatal(err)
	}
	s, sum := importWith(t, sessionPath(t), "pairs.jsonl", pairsJSONL, ImportOptions{Scales: scales})
	if len(sum.Skipped) != 0 || len(sum.Runs) != 1 || len(sum.Annotators) != 2 {
		t.Fatalf("summary %+v", sum)
	}
	r := sum.Runs[0]
	if r.Name != "imported · verdict" || r.Verdicts != 5 || r.Swapped != 2 || r.ParseErrors != 1 || r.SwappedParseErrors != 0 ||
		r.SwappedColumn != "verdict_swapped" || r.Scale != judge.Pairwise {
		t.Errorf("run %+v; want 5 verdicts, 2 swapped, 1 parse error", r)
	}
	label, rater := sum.Annotators[0], sum.Annotators[1]
	if label.Labels != 3 || label.Dimension != "preference" || label.Scale != judge.Pairwise {
		t.Errorf("label %+v", label)
	}
	// 9 is no preference: counted and shown, never dropped silently.
	if rater.Labels != 2 || rater.Unreadable != 1 || rater.FirstUnreadable != "9" {
		t.Errorf("rater1 %+v", rater)
	}

	// What the session holds: the items' two responses, both orders of the
	// verdicts in one run, the labels on the pairwise scale.
	items, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].ResponseA != "a1" || items[0].ResponseB != "b1" || items[0].Question != "Q1" {
		t.Errorf("items %+v", items)
	}
	runs, err := s.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	if d := runs[0].Info.Dimensions; len(d) != 1 || d[0].Name != "preference" || d[0].Scale != judge.Pairwise {
		t.Errorf("dimensions %+v", d)
	}
	orig, err := s.Verdicts(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	swapped, err := s.SwappedVerdicts(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	got := func(vs []judge.Verdict) string {
		var out []string
		for _, v := range vs {
			x := string(v.Status)
			if v.OK() {
				x = judge.Pairwise.Format(v.Values["preference"])
			}
			out = append(out, v.ItemID+"="+x)
		}
		return strings.Join(out, " ")
	}
	if g := got(orig); g != "p1=A p2=B p3=parse_error" {
		t.Errorf("original order: %s", g)
	}
	if g := got(swapped); g != "p1=A p2=A" {
		t.Errorf("swapped order: %s", g)
	}
	for _, v := range swapped {
		if !v.Swapped {
			t.Errorf("swapped verdict %+v lacks Swapped", v)
		}
	}
	for _, v := range orig {
		if v.ItemID == "p3" && (v.Raw != "oops" || !strings.Contains(v.Error, `"oops" is not on the pairwise scale`)) {
			t.Errorf("parse error %+v", v)
		}
	}
	labels, err := s.Labels("rater1")
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 2 || labels[0].Value != judge.PreferTie || labels[1].Value != judge.PreferB || labels[0].Dimension != "preference" {
		t.Errorf("rater1's labels %+v", labels)
	}

	// Again: nothing new, in either order.
	ds, _ := dataset.LoadBytes("pairs.jsonl", []byte(pairsJSONL), dataset.Options{})
	again, err := ImportDatasetWith(s, ds, ImportOptions{Scales: scales})
	if err != nil {
		t.Fatal(err)
	}
	if again.VerdictCount() != 0 || again.LabelCount() != 0 || again.Runs[0].Unchanged != 5 {
		t.Errorf("second import %+v", again)
	}
}

// TestImportJoinByID adds a judge's results file, which holds only ids,
// verdicts and reasons, to the items of an earlier import.
func TestImportJoinByID(t *testing.T) {
	path := sessionPath(t)
	scales, _ := ParseImportScales([]string{"pairwise"})
	s, _ := importWith(t, path, "pairs.jsonl", pairsJSONL, ImportOptions{Scales: scales})

	const results = `{"id": "p1", "gpt_result": "2", "gpt_reason": "B is shorter"}
{"id": "p2", "gpt_result": "Tie", "gpt_reason": "same"}
{"id": "p9", "gpt_result": "1", "gpt_reason": "not in the session"}
`
	ds, err := dataset.LoadBytes("gpt.jsonl", []byte(results), dataset.Options{Require: []string{dataset.RoleID}})
	if err != nil {
		t.Fatal(err)
	}
	if got := dataset.FormatMap(ds.Mapping); got != "id=id,verdict=gpt_result,reason=gpt_result:gpt_reason" {
		t.Errorf("mapping %s", got)
	}
	sum, err := ImportDatasetWith(s, ds, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// 1, 2 and Tie: only a preference writes "Tie", so no --scale is needed.
	if sum.Rows != 3 || sum.Unknown != 1 || sum.Missing != 1 || len(sum.Runs) != 1 || len(sum.Skipped) != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if r := sum.Runs[0]; r.Name != "imported · gpt_result" || r.Verdicts != 2 || r.ReasonColumn != "gpt_reason" || !r.Created {
		t.Errorf("run %+v", r)
	}
	items, _ := s.Items()
	if len(items) != 3 {
		t.Errorf("the join changed the items: %d", len(items))
	}
	runs, _ := s.Runs()
	for _, run := range runs {
		if run.Info.Model != "gpt_result" {
			continue
		}
		vs, err := s.Verdicts(run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 2 || vs[0].Reason != "B is shorter" || vs[0].Values["preference"] != judge.PreferB || vs[1].Values["preference"] != judge.PreferTie {
			t.Errorf("verdicts %+v", vs)
		}
	}
}

// TestImportPairwiseExportRoundTrip: a pairwise session exported and
// imported again keeps its scale, both orders and the labels.
func TestImportPairwiseExportRoundTrip(t *testing.T) {
	scales, _ := ParseImportScales([]string{"pairwise"})
	s, _ := importWith(t, sessionPath(t), "pairs.jsonl", pairsJSONL, ImportOptions{Scales: scales})
	var buf bytes.Buffer
	if _, err := Export(s, &buf, ExportOptions{Format: "jsonl", Only: OnlyAll}); err != nil {
		t.Fatal(err)
	}
	back, sum := importWith(t, sessionPath(t), "export.jsonl", buf.String(), ImportOptions{})
	if len(sum.Skipped) != 0 || len(sum.Runs) != 1 || len(sum.Annotators) != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if r := sum.Runs[0]; r.Verdicts != 5 || r.Swapped != 2 || r.ParseErrors != 1 {
		t.Errorf("run %+v", r)
	}
	for _, a := range sum.Annotators {
		if a.Unreadable != 0 {
			t.Errorf("annotator %+v", a)
		}
	}
	runs, _ := back.Runs()
	if d := runs[0].Info.Dimensions; len(d) != 1 || d[0].Scale != judge.Pairwise {
		t.Errorf("dimensions %+v", d)
	}
	sw, err := back.SwappedVerdicts(runs[0].ID)
	if err != nil || len(sw) != 2 || sw[1].Values["preference"] != judge.PreferA {
		t.Errorf("swapped %+v, %v", sw, err)
	}
	labels, _ := back.Labels("rater1")
	if len(labels) != 2 || labels[0].Value != judge.PreferTie {
		t.Errorf("labels %+v", labels)
	}
}

func TestExportedScale(t *testing.T) {
	tests := []struct {
		texts []string
		want  judge.Scale
		ok    bool
	}{
		{[]string{"YES", "NO", ""}, judge.Binary, true},
		{[]string{"A", "tie", "B"}, judge.Pairwise, true},
		{[]string{"CORRECT", "NOT_ATTEMPTED"}, "nominal:CORRECT,NOT_ATTEMPTED", true},
		{[]string{"0", "0.5"}, judge.Ternary, true},
		{[]string{"1"}, judge.Ternary, true},
		{[]string{"2", "4"}, judge.Likert, true},
		{[]string{"3", "9"}, "ordinal:1-10", true},
		{[]string{"0", "7"}, "ordinal:0-10", true},
		{[]string{"1", "55"}, "ordinal:1-100", true},
		{[]string{"YES", "3"}, "", false},
		{[]string{"2.5", "3"}, "", false},
		{[]string{"", ""}, "", false},
	}
	for _, tc := range tests {
		got, ok := exportedScale(tc.texts)
		if got != tc.want || ok != tc.ok {
			t.Errorf("exportedScale(%q) = %q, %v; want %q, %v", tc.texts, got, ok, tc.want, tc.ok)
		}
	}
}

// TestImportScaleForAllLeavesRawOutputToParser: --scale SCALE for every
// column does not turn a column of a judge's raw output into parse errors
// when --judge names its parser; --scale COLUMN=SCALE does what it says.
func TestImportScaleForAllLeavesRawOutputToParser(t *testing.T) {
	const data = `{"id": "1", "prediction": "p", "verdict": "A", "judge_output": "I prefer the first one, [[A]]"}
{"id": "2", "prediction": "p", "verdict": "tie", "judge_output": "Both are fine. [[C]]"}
`
	parser := &OutputParser{Judge: "stub", Dimensions: []judge.Dimension{{Name: "preference", Scale: judge.Pairwise}},
		Parse: func(raw string) (judge.Verdict, error) {
			return judge.Verdict{Values: map[string]float64{"preference": judge.PreferA}}, nil
		}}
	for _, tc := range []struct {
		scales          []string
		parsed, errorsN int
	}{
		{[]string{"pairwise"}, 2, 0},
		{[]string{"judge_output=pairwise"}, 0, 2},
	} {
		scales, err := ParseImportScales(tc.scales)
		if err != nil {
			t.Fatal(err)
		}
		_, sum := importWith(t, sessionPath(t), "raw.jsonl", data, ImportOptions{Scales: scales, Parser: parser})
		var out *ImportedRun
		for i := range sum.Runs {
			if sum.Runs[i].Column == "judge_output" {
				out = &sum.Runs[i]
			}
		}
		if out == nil || out.Verdicts-out.ParseErrors != tc.parsed || out.ParseErrors != tc.errorsN {
			t.Errorf("%q: judge_output run %+v; want %d read, %d parse errors (%+v)", tc.scales, out, tc.parsed, tc.errorsN, sum)
		}
	}
}
