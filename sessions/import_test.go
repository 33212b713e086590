package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// importFile loads data as a dataset named name, opens a new session with
// its items and imports its judgments.
func importFile(t *testing.T, path, name, data string, parser *OutputParser) (*Store, ImportSummary) {
	t.Helper()
	ds, err := dataset.LoadBytes(name, []byte(data), dataset.Options{})
	if err != nil {
		t.Fatalf("LoadBytes: %v", err)
	}
	return importDataset(t, path, ds, parser)
}

func importDataset(t *testing.T, path string, ds *dataset.Dataset, parser *OutputParser) (*Store, ImportSummary) {
	t.Helper()
	rv, err := OpenReview(path, "importer", ds)
	if err != nil {
		t.Fatalf("OpenReview: %v", err)
	}
	t.Cleanup(func() { rv.Store.Close() })
	sum, err := ImportDataset(rv.Store, ds, parser)
	if err != nil {
		t.Fatalf("ImportDataset: %v", err)
	}
	return rv.Store, sum
}

const judgedCSV = `id,question,answer,prediction,gpt4_verdict,likert_result,human_label
a,2+2?,4,four,True,5,yes
b,Capital of France?,Paris,Lyon,False,1,no
c,Largest planet?,Jupiter,Jupiter,maybe,4,
d,Boiling point?,100,212,,2,yes
`

func TestImportDatasetVerdictsAndLabels(t *testing.T) {
	s, sum := importFile(t, sessionPath(t), "judged.csv", judgedCSV, nil)
	if sum.Rows != 4 || sum.Unknown != 0 || len(sum.Skipped) != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if sum.CreatedRuns() != 2 || sum.VerdictCount() != 7 || sum.LabelCount() != 3 {
		t.Fatalf("runs %d verdicts %d labels %d; want 2, 7, 3 (%+v)", sum.CreatedRuns(), sum.VerdictCount(), sum.LabelCount(), sum)
	}
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]judge.Dimension{
		"imported · gpt4_verdict":  {Name: "correct", Scale: judge.Binary},
		"imported · likert_result": {Name: "score", Scale: judge.Likert},
	}
	for _, r := range runs {
		d, ok := want[RunLabel(r)]
		if !ok || len(r.Info.Dimensions) != 1 || r.Info.Dimensions[0].Name != d.Name || r.Info.Dimensions[0].Scale != d.Scale {
			t.Errorf("run %s has dimensions %+v", RunLabel(r), r.Info.Dimensions)
		}
	}
	vs, err := s.Verdicts(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range vs {
		got[v.ItemID] = string(v.Status)
		if v.OK() {
			got[v.ItemID] = judge.Binary.Format(v.Values["correct"])
		}
	}
	if got["a"] != "YES" || got["b"] != "NO" || got["c"] != "parse_error" || got["d"] != "" {
		t.Errorf("gpt4 verdicts %v; want a YES, b NO, c parse_error, d none", got)
	}
	for _, v := range vs {
		if v.ItemID == "c" && (v.Raw != "maybe" || !strings.Contains(v.Error, `"maybe" is not on the binary scale`)) {
			t.Errorf("parse error keeps raw %q, error %q", v.Raw, v.Error)
		}
	}
	labels, err := s.Labels("human_label")
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 3 || labels[0].Via != ViaImported || labels[0].Dimension != "correct" || labels[0].Value != 1 {
		t.Errorf("labels %+v", labels)
	}
	if a, _ := s.Annotators(); len(a) != 1 || a[0] != "human_label" {
		t.Errorf("annotators %v: the importer must not appear", a)
	}
}

func TestImportDatasetIsIdempotent(t *testing.T) {
	path := sessionPath(t)
	ds, err := dataset.LoadBytes("judged.csv", []byte(judgedCSV), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := importDataset(t, path, ds, nil)
	again, err := ImportDataset(s, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.VerdictCount() != 0 || again.LabelCount() != 0 || again.CreatedRuns() != 0 {
		t.Fatalf("second import added %d verdicts, %d labels, %d runs", again.VerdictCount(), again.LabelCount(), again.CreatedRuns())
	}
	if again.Runs[0].Unchanged != 3 || again.Annotators[0].Unchanged != 3 {
		t.Errorf("unchanged counts %+v %+v", again.Runs[0], again.Annotators[0])
	}
	acts, _ := s.Actions("")
	if len(acts) != 3 {
		t.Errorf("%d actions after two imports, want 3", len(acts))
	}

	// A value changed in the file is added as the newer verdict; the old
	// one stays as history.
	changed := strings.Replace(judgedCSV, "b,Capital of France?,Paris,Lyon,False,1,no", "b,Capital of France?,Paris,Lyon,True,1,yes", 1)
	ds2, err := dataset.LoadBytes("judged.csv", []byte(changed), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	third, err := ImportDataset(s, ds2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if third.VerdictCount() != 1 || third.LabelCount() != 1 {
		t.Fatalf("changed row: %d verdicts, %d labels added; want 1, 1", third.VerdictCount(), third.LabelCount())
	}
	runs, _ := s.Runs()
	hist, _ := s.VerdictHistory(runs[0].ID, "b")
	if len(hist) != 2 || hist[1].Values["correct"] != 1 {
		t.Errorf("history of b: %+v", hist)
	}
}

func TestImportRawJudgeOutput(t *testing.T) {
	const data = `{"id":"1","question":"q","answer":"a","prediction":"p","judge_output":"Reasoning… VERDICT: YES"}
{"id":"2","question":"q","answer":"a","prediction":"p","judge_output":"VERDICT: NO"}
{"id":"3","question":"q","answer":"a","prediction":"p","judge_output":"I refuse"}
`
	t.Run("without a parser", func(t *testing.T) {
		_, sum := importFile(t, sessionPath(t), "raw.jsonl", data, nil)
		if len(sum.Runs) != 0 || len(sum.Skipped) != 1 || !strings.Contains(sum.Skipped[0], "--judge NAME") {
			t.Fatalf("summary %+v: want the column left out with a pointer to --judge", sum)
		}
	})
	t.Run("with a parser", func(t *testing.T) {
		p := &OutputParser{Judge: "toy", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}},
			Parse: func(raw string) (judge.Verdict, error) {
				_, after, ok := strings.Cut(raw, "VERDICT: ")
				if !ok {
					return judge.Verdict{}, errors.New("no VERDICT line")
				}
				if after == "crash" {
					panic("parser bug")
				}
				return judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"correct": map[string]float64{"YES": 1}[after]}, Reason: "toy"}, nil
			}}
		s, sum := importFile(t, sessionPath(t), "raw.jsonl", data+`{"id":"4","question":"q","answer":"a","prediction":"p","judge_output":"VERDICT: crash"}`+"\n", p)
		if len(sum.Runs) != 1 || sum.Runs[0].Verdicts != 4 || sum.Runs[0].ParseErrors != 2 {
			t.Fatalf("summary %+v", sum)
		}
		runs, _ := s.Runs()
		if runs[0].Info.Params["parser"] != "toy" || runs[0].Info.Model != "judge_output" {
			t.Errorf("run %+v", runs[0].Info)
		}
		vs, _ := s.Verdicts(runs[0].ID)
		if vs[0].Values["correct"] != 1 || vs[1].Values["correct"] != 0 || vs[2].Status != judge.StatusParseError ||
			vs[2].Raw != "I refuse" || vs[2].Error != "no VERDICT line" || !strings.Contains(vs[3].Error, "parser failed") {
			t.Errorf("verdicts %+v", vs)
		}
	})
}

func TestImportLeavesOutUnreadableColumns(t *testing.T) {
	const data = `id,question,answer,prediction,pair_result,annotator1
1,q,a,p,0,2
2,q,a,p,1,7
3,q,a,p,2,1
`
	_, sum := importFile(t, sessionPath(t), "pairs.csv", data, nil)
	if len(sum.Runs) != 0 || len(sum.Annotators) != 0 || len(sum.Skipped) != 2 {
		t.Fatalf("summary %+v", sum)
	}
	// 0/1/2 may be a preference with 0 as tie or a score: not guessed.
	if !strings.Contains(sum.Skipped[0], "pair_result") || !strings.Contains(sum.Skipped[0], "0, 1 and 2") ||
		!strings.Contains(sum.Skipped[0], "--scale pair_result=pairwise") {
		t.Errorf("message %q should name the column, its values and the scales it could be on", sum.Skipped[0])
	}
}

// realData returns the path of a file in shared/data, skipping the test
// when it is not there.
func realData(t *testing.T, name string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(here), "..", "..", "shared", "data", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not found under CI=true: %v", name, err)
		}
		t.Skipf("%s not found: %v", name, err)
	}
	return p
}

// TestImportTriviaQAStats imports the TriviaQA judges file and checks that
// the statistics compare each imported judge with HumanJudgement without
// any model call, with figures that match the file. Under the race
// detector it keeps the first 400 rows: 40,000 inserts take a minute there.
func TestImportTriviaQAStats(t *testing.T) {
	ds, err := dataset.Load(realData(t, "judging_the_judges__TriviaQA_Judges_w_HumanJudgement_V1.csv"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if raceDetector || testing.Short() {
		const keep = 400
		ds.Items = ds.Items[:keep]
		for i := range ds.Imported {
			ds.Imported[i].Values = ds.Imported[i].Values[:keep]
		}
	}
	rows := len(ds.Items)
	present := map[string]int{} // non-blank values per column, as the file has them
	for _, c := range ds.Imported {
		for _, v := range c.Values {
			if strings.TrimSpace(v) != "" {
				present[c.Field]++
			}
		}
	}
	s, sum := importDataset(t, sessionPath(t), ds, nil)
	if sum.CreatedRuns() != 11 || len(sum.Annotators) != 1 || sum.Annotators[0].Name != "HumanJudgement" || sum.LabelCount() != rows {
		t.Fatalf("summary: %d runs, annotators %+v, %d labels", sum.CreatedRuns(), sum.Annotators, sum.LabelCount())
	}
	for _, r := range sum.Runs {
		if r.Verdicts != present[r.Column] || r.ParseErrors != 0 {
			t.Errorf("run %s: %d verdicts, %d parse errors; want %d, 0", r.Name, r.Verdicts, r.ParseErrors, present[r.Column])
		}
	}
	if rows == 3600 && (present["GPT-4"] != 3595 || present["Llama-70B"] != 3465) {
		t.Errorf("the file's counts changed: %v", present)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	rep := stats.Compute(in, stats.Options{Seed: 1, Resamples: -1})
	byJudge := map[string]stats.Figures{}
	for _, j := range rep.Judges {
		byJudge[j.Judge] = j.Dimensions[0].Overall
	}
	gpt4 := byJudge["imported · GPT-4"]
	if gpt4.Labelled != rows || gpt4.VsHumans.N != present["GPT-4"] {
		t.Fatalf("GPT-4: %d labelled, n %d; want %d, %d", gpt4.Labelled, gpt4.VsHumans.N, rows, present["GPT-4"])
	}
	agree := gpt4.VsHumans.PercentAgreement.Value
	em := byJudge["imported · EM"].VsHumans.PercentAgreement.Value
	if !(agree >= 0.9 && agree > em+0.1) {
		t.Errorf("GPT-4 agrees %v with humans, EM %v: GPT-4 should agree well and much better than exact match", agree, em)
	}
	if len(rep.Humans) == 0 || rep.Humans[0].Annotators[0] != "HumanJudgement" {
		t.Errorf("humans: %+v", rep.Humans)
	}
}
