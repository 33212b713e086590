package sessions

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// truncatedSession has an LLM run whose verdicts are ok (one with a
// confidence, one with a confidence withheld), truncated (values kept)
// and api_error.
func truncatedSession(t *testing.T) (*Store, Run) {
	t.Helper()
	s := openStore(t, sessionPath(t), "ann")
	if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, exportItems()); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(judge.Info{Name: "docqa", Model: "llama", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	conf := 0.75
	why := "the server's logprobs cannot describe the answer"
	err = s.SaveVerdicts(run.ID, []judge.Verdict{
		{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Confidence: &conf},
		{ItemID: "q2", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}, Extra: map[string]any{ExtraConfidenceWithheld: why}},
		{ItemID: "r1", Status: judge.StatusTruncated, Values: map[string]float64{"correct": 0}, Reason: "no question given",
			Error: "the server read 512 of about 1700 prompt tokens"},
		{ItemID: "q3", Status: judge.StatusAPIError, Error: "timeout"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, run
}

// The next run asks again what ended api_error or truncated.
func TestTruncatedIsAskedAgain(t *testing.T) {
	s, run := truncatedSession(t)
	vs, err := s.Verdicts(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.ItemID == "r1" && (v.Status != judge.StatusTruncated || v.Values["correct"] != 0 || len(v.Values) != 1) {
			t.Errorf("the truncated verdict reads back as %+v", v)
		}
	}
	items, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range TasksToDo(run.Info, items, vs, false) {
		ids = append(ids, tk.Item.ID)
	}
	if got := strings.Join(ids, ","); got != "r1,q3" {
		t.Errorf("tasks to do: %s, want r1,q3 (truncated and api_error)", got)
	}
}

// The export writes the status truncated with the verdict's values, and
// the confidence columns (a number, or why it was withheld); the import
// reads them back.
func TestExportTruncatedAndWithheld(t *testing.T) {
	for _, format := range []string{"jsonl", "csv"} {
		t.Run(format, func(t *testing.T) {
			s, _ := truncatedSession(t)
			out, sum := exportString(t, s, format, OnlyAll)
			want := "verdict:docqa · llama:correct|verdict_status:docqa · llama|verdict_reason:docqa · llama|verdict_error:docqa · llama|verdict_confidence:docqa · llama|verdict_confidence_withheld:docqa · llama"
			if !strings.Contains(strings.Join(sum.Columns, "|"), want) {
				t.Errorf("columns %q lack %q", sum.Columns, want)
			}
			if format == "jsonl" {
				rows := map[string]map[string]any{}
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					var r map[string]any
					if err := json.Unmarshal([]byte(l), &r); err != nil {
						t.Fatal(err)
					}
					rows[r["id"].(string)] = r
				}
				check := func(id, col string, want any) {
					t.Helper()
					if got := rows[id][col+"docqa · llama"]; fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s %s = %v, want %v", id, col, got, want)
					}
				}
				check("r1", "verdict_status:", "truncated")
				check("r1", "verdict_error:", "the server read 512 of about 1700 prompt tokens")
				check("q1", "verdict_confidence:", 0.75)
				check("q1", "verdict_confidence_withheld:", nil)
				check("q2", "verdict_confidence:", nil)
				check("q2", "verdict_confidence_withheld:", "the server's logprobs cannot describe the answer")
				if rows["r1"]["verdict:docqa · llama:correct"] != "NO" {
					t.Errorf("r1's value: %v", rows["r1"]["verdict:docqa · llama:correct"])
				}
			}
			ds, err := dataset.LoadBytes("calibration."+format, []byte(out), dataset.Options{})
			if err != nil {
				t.Fatalf("the export does not load: %v", err)
			}
			back, isum := importDataset(t, sessionPath(t), ds, nil)
			if len(isum.Skipped) != 0 {
				t.Errorf("skipped: %q", isum.Skipped)
			}
			if got, want := state(t, back), state(t, s); got != want {
				t.Errorf("state after the round trip\n got:\n%s\nwant:\n%s", got, want)
			}
			if again, _ := exportString(t, back, format, OnlyAll); again != out {
				t.Errorf("exporting the re-imported session gives another file:\n%s\nvs\n%s", again, out)
			}
		})
	}
}

// The statistics read a truncated verdict with its status and values.
func TestStatsInputTruncated(t *testing.T) {
	s, _ := truncatedSession(t)
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, u := range in.Units {
		for _, v := range u.Verdicts {
			if u.ItemID == "r1" && u.Criterion == 0 {
				found = true
				if v.Status != judge.StatusTruncated || v.Values["correct"] != 0 || len(v.Values) != 1 {
					t.Errorf("r1's verdict: %+v", v)
				}
			}
		}
	}
	if !found {
		t.Fatal("no verdict for r1")
	}
	for _, include := range []bool{false, true} {
		rep := stats.Compute(in, stats.Options{Resamples: -1, IncludeTruncated: include})
		if j := rep.Judges[0].Dimensions[0].Overall.Judging; j.Truncated != 1 || j.OK != 2 || j.APIErrors != 1 {
			t.Errorf("include=%v: %+v", include, j)
		}
	}
}
