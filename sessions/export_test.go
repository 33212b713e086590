package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// exportItems is a small dataset with segments, a rubric and text that
// needs quoting in CSV and escaping in JSON.
func exportItems() []judge.Item {
	return []judge.Item{
		{Index: 0, ID: "q1", Question: "2+2?", Gold: "4", Prediction: "four",
			Segments: map[string]string{"category": "math"},
			Fields:   json.RawMessage(`{"id":"q1","input":"2+2?","extra":[1,2]}`)},
		{Index: 1, ID: "q2", Question: "Capital of France?", Gold: "Paris", Prediction: "Lyon, \"probably\"\nor <Paris> & more",
			Segments: map[string]string{"category": "geo"}},
		{Index: 2, ID: "r1", Question: "Explain tides", Gold: "moon", Prediction: "The moon pulls…",
			Rubric: []string{"mentions the moon", "mentions gravity", "is concise"},
			Fields: json.RawMessage(`{"q":"Explain tides"}`)},
		{Index: 3, ID: "q3", Question: "Unlabelled", Gold: "", Prediction: "x"},
	}
}

// exportSession builds a session with three runs (binary, Likert and a
// per-criterion ternary judge), two annotators, notes and an undo.
func exportSession(t *testing.T) *Store {
	t.Helper()
	s := openStore(t, sessionPath(t), "ann")
	if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, exportItems()); err != nil {
		t.Fatal(err)
	}
	match, _ := s.EnsureRun(judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
	llm, _ := s.EnsureRun(judge.Info{Name: "quality", Model: "gpt-4o", Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Likert}}})
	rubric, _ := s.EnsureRun(judge.Info{Name: "rubric", Model: "gpt-4o", PerCriterion: true,
		Dimensions: []judge.Dimension{{Name: "compliance", Scale: judge.Ternary}}})
	ok := func(id string, crit int, dim string, x float64, reason string) judge.Verdict {
		return judge.Verdict{ItemID: id, Criterion: crit, Status: judge.StatusOK, Values: map[string]float64{dim: x}, Reason: reason}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SaveVerdicts(match.ID, []judge.Verdict{
		ok("q1", 0, "correct", 0, "no rule matched"),
		ok("q2", 0, "correct", 1, "wrong at first"),
		ok("r1", 0, "correct", 1, "contains moon"),
		{ItemID: "q3", Status: judge.StatusParseError, Raw: "??", Error: "no verdict line"},
	}))
	must(s.SaveVerdicts(match.ID, []judge.Verdict{ok("q2", 0, "correct", 0, "Lyon is not Paris")})) // a re-judge
	must(s.SaveVerdicts(llm.ID, []judge.Verdict{ok("q1", 0, "score", 5, ""), ok("q2", 0, "score", 2, "off")}))
	must(s.SaveVerdicts(rubric.ID, []judge.Verdict{ok("r1", 1, "compliance", 1, "yes"), ok("r1", 3, "compliance", 0.5, "wordy")}))

	_, err := s.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "order"},
		{Kind: KindNote, ItemID: "q1", Note: "numbers as words, \"four\"", Via: "order"}})
	must(err)
	_, err = s.Record([]Action{{Kind: KindLabel, ItemID: "q2", Dimension: "correct", Value: 1, Via: "order"}})
	must(err)
	_, err = s.Undo() // q2's label is undone…
	must(err)
	_, err = s.Record([]Action{{Kind: KindAccept, ItemID: "q2", Dimension: "correct", Value: 0, Via: "order"}})
	must(err) // …and replaced
	_, err = s.Record([]Action{{Kind: KindLabel, ItemID: "r1", Criterion: 1, Dimension: "compliance", Value: 1, Via: "order"},
		{Kind: KindLabel, ItemID: "r1", Criterion: 3, Dimension: "compliance", Value: 1, Via: "order"}})
	must(err)
	_, err = s.RecordAs("bo", []Action{{Kind: KindLabel, ItemID: "q2", Dimension: "score", Value: 1, Via: "filter:disagreements"}})
	must(err)
	return s
}

func exportString(t *testing.T, s *Store, format, only string) (string, ExportSummary) {
	t.Helper()
	var b bytes.Buffer
	sum, err := Export(s, &b, ExportOptions{Format: format, Only: only})
	if err != nil {
		t.Fatalf("Export(%s, %s): %v", format, only, err)
	}
	return b.String(), sum
}

func TestExportColumns(t *testing.T) {
	s := exportSession(t)
	_, sum := exportString(t, s, "jsonl", OnlyAll)
	want := []string{"id", "question", "gold", "prediction", "rubric", "segment:category",
		"verdict:match:correct", "verdict_status:match", "verdict_reason:match", "verdict_error:match",
		"verdict:quality · gpt-4o:score", "verdict_status:quality · gpt-4o", "verdict_reason:quality · gpt-4o", "verdict_error:quality · gpt-4o",
		"verdict:rubric · gpt-4o:compliance", "verdict_status:rubric · gpt-4o", "verdict_reason:rubric · gpt-4o", "verdict_error:rubric · gpt-4o",
		"label:ann:compliance", "label:ann:correct", "label_via:ann", "note:ann",
		"label:bo:score", "label_via:bo", "note:bo",
		"fields"}
	if strings.Join(sum.Columns, "|") != strings.Join(want, "|") {
		t.Errorf("columns\n got %q\nwant %q", sum.Columns, want)
	}
}

func TestExportRows(t *testing.T) {
	s := exportSession(t)
	out, _ := exportString(t, s, "jsonl", OnlyAll)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), out)
	}
	want := []string{
		`{"id":"q1","question":"2+2?","gold":"4","prediction":"four","rubric":null,"segment:category":"math",` +
			`"verdict:match:correct":"NO","verdict_status:match":"ok","verdict_reason:match":"no rule matched","verdict_error:match":null,` +
			`"verdict:quality · gpt-4o:score":5,"verdict_status:quality · gpt-4o":"ok","verdict_reason:quality · gpt-4o":null,"verdict_error:quality · gpt-4o":null,` +
			`"verdict:rubric · gpt-4o:compliance":null,"verdict_status:rubric · gpt-4o":null,"verdict_reason:rubric · gpt-4o":null,"verdict_error:rubric · gpt-4o":null,` +
			`"label:ann:compliance":null,"label:ann:correct":"YES","label_via:ann":"order","note:ann":"numbers as words, \"four\"",` +
			`"label:bo:score":null,"label_via:bo":null,"note:bo":null,"fields":{"id":"q1","input":"2+2?","extra":[1,2]}}`,
		`{"id":"q2","question":"Capital of France?","gold":"Paris","prediction":"Lyon, \"probably\"\nor <Paris> & more","rubric":null,"segment:category":"geo",` +
			`"verdict:match:correct":"NO","verdict_status:match":"ok","verdict_reason:match":"Lyon is not Paris","verdict_error:match":null,` +
			`"verdict:quality · gpt-4o:score":2,"verdict_status:quality · gpt-4o":"ok","verdict_reason:quality · gpt-4o":"off","verdict_error:quality · gpt-4o":null,` +
			`"verdict:rubric · gpt-4o:compliance":null,"verdict_status:rubric · gpt-4o":null,"verdict_reason:rubric · gpt-4o":null,"verdict_error:rubric · gpt-4o":null,` +
			`"label:ann:compliance":null,"label:ann:correct":"NO","label_via:ann":"order","note:ann":null,` +
			`"label:bo:score":1,"label_via:bo":"filter:disagreements","note:bo":null,"fields":null}`,
		`{"id":"r1","question":"Explain tides","gold":"moon","prediction":"The moon pulls…","rubric":["mentions the moon","mentions gravity","is concise"],"segment:category":null,` +
			`"verdict:match:correct":"YES","verdict_status:match":"ok","verdict_reason:match":"contains moon","verdict_error:match":null,` +
			`"verdict:quality · gpt-4o:score":null,"verdict_status:quality · gpt-4o":null,"verdict_reason:quality · gpt-4o":null,"verdict_error:quality · gpt-4o":null,` +
			`"verdict:rubric · gpt-4o:compliance":[null,1,null,0.5],"verdict_status:rubric · gpt-4o":[null,"ok",null,"ok"],"verdict_reason:rubric · gpt-4o":[null,"yes",null,"wordy"],"verdict_error:rubric · gpt-4o":[null,null,null,null],` +
			`"label:ann:compliance":[null,1,null,1],"label:ann:correct":null,"label_via:ann":"order","note:ann":null,` +
			`"label:bo:score":null,"label_via:bo":null,"note:bo":null,"fields":{"q":"Explain tides"}}`,
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
	if !strings.Contains(lines[3], `"verdict_status:match":"parse_error"`) || !strings.Contains(lines[3], `"verdict_error:match":"no verdict line"`) {
		t.Errorf("parse error row: %s", lines[3])
	}
}

func TestExportSelections(t *testing.T) {
	s := exportSession(t)
	tests := []struct {
		only string
		ids  string
	}{
		{OnlyAll, "q1,q2,r1,q3"},
		{"", "q1,q2,r1"},
		{OnlyReviewed, "q1,q2,r1"},
		// q1: match NO, ann YES. q2: quality 2, bo 1. r1: criterion 3
		// rubric 0.5, ann 1. (q2's match NO equals ann's accept.)
		{OnlyDisagreements, "q1,q2,r1"},
	}
	for _, tc := range tests {
		out, sum := exportString(t, s, "csv", tc.only)
		var ids []string
		for _, line := range strings.Split(out, "\n")[1:] {
			if id, _, ok := strings.Cut(line, ","); ok && !strings.HasPrefix(line, "or <Paris>") {
				ids = append(ids, id)
			}
		}
		if strings.Join(ids, ",") != tc.ids || sum.Rows != len(ids) || sum.Items != 4 {
			t.Errorf("--only %q: rows %v (summary %d of %d), want %s", tc.only, ids, sum.Rows, sum.Items, tc.ids)
		}
	}

	// Agreeing everywhere leaves no disagreement.
	s2 := openStore(t, sessionPath(t), "ann")
	if err := s2.InitDataset(DatasetInfo{Path: "d", SHA256: "x", Format: "jsonl"}, exportItems()[:1]); err != nil {
		t.Fatal(err)
	}
	run, _ := s2.EnsureRun(binaryInfo("match", ""))
	s2.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}})
	s2.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "order"}})
	if _, sum := exportString(t, s2, "jsonl", OnlyDisagreements); sum.Rows != 0 {
		t.Errorf("%d disagreements where judge and human agree", sum.Rows)
	}
}

func TestExportBadOptions(t *testing.T) {
	s := exportSession(t)
	for _, o := range []ExportOptions{{Format: "xml"}, {Format: "csv", Only: "some"}} {
		if _, err := Export(s, &bytes.Buffer{}, o); err == nil {
			t.Errorf("Export(%+v) did not fail", o)
		}
	}
}

// ExportOptions.Runs keeps the named runs' verdict columns and leaves the
// item and label columns as they are; disagreements are that run's.
func TestExportRuns(t *testing.T) {
	s := exportSession(t)
	full, fullSum := exportString(t, s, "jsonl", OnlyAll)
	export := func(only string, runs ...string) (string, ExportSummary) {
		t.Helper()
		var b bytes.Buffer
		sum, err := Export(s, &b, ExportOptions{Format: "jsonl", Only: only, Runs: runs})
		if err != nil {
			t.Fatalf("Export(%s, %q): %v", only, runs, err)
		}
		return b.String(), sum
	}
	out, sum := export(OnlyAll, "quality · gpt-4o")
	var want []string
	for _, c := range fullSum.Columns {
		if !strings.HasPrefix(c, "verdict") || strings.HasSuffix(c, ":quality · gpt-4o") || strings.Contains(c, ":quality · gpt-4o:") {
			want = append(want, c)
		}
	}
	if strings.Join(sum.Columns, "|") != strings.Join(want, "|") || len(sum.Columns) != len(fullSum.Columns)-8 {
		t.Errorf("columns\n got %q\nwant %q", sum.Columns, want)
	}
	// Every remaining cell is the full export's, labels written the same
	// way (ann's ternary compliance labels take the rubric run's scale).
	fullRows, rows := strings.Split(strings.TrimSpace(full), "\n"), strings.Split(strings.TrimSpace(out), "\n")
	if len(rows) != len(fullRows) {
		t.Fatalf("%d rows, want %d", len(rows), len(fullRows))
	}
	for i := range rows {
		var a, b map[string]json.RawMessage
		if err := json.Unmarshal([]byte(fullRows[i]), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(rows[i]), &b); err != nil {
			t.Fatal(err)
		}
		for k, v := range b {
			if string(a[k]) != string(v) {
				t.Errorf("row %d, %s: %s, want %s", i+1, k, v, a[k])
			}
		}
	}
	// Disagreements: q2 alone for quality (2 vs bo's 1), q1 alone for
	// match (NO vs ann's YES); both runs give both.
	for _, tc := range []struct {
		runs []string
		ids  string
	}{
		{[]string{"quality · gpt-4o"}, "q2"},
		{[]string{"match"}, "q1"},
		{[]string{"match", "quality · gpt-4o"}, "q1,q2"},
	} {
		out, _ := export(OnlyDisagreements, tc.runs...)
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var row struct{ ID string }
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, row.ID)
		}
		if strings.Join(ids, ",") != tc.ids {
			t.Errorf("disagreements of %q: %v, want %s", tc.runs, ids, tc.ids)
		}
	}
	if _, err := Export(s, &bytes.Buffer{}, ExportOptions{Format: "csv", Runs: []string{"quality"}}); err == nil || !strings.Contains(err.Error(), `no judge run "quality"`) {
		t.Errorf("an unknown run: %v", err)
	}
}

// state is what a round trip must keep: current verdicts per run name,
// labels and notes, as comparable text.
func state(t *testing.T, s *Store) string {
	t.Helper()
	var b strings.Builder
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	names := RunNames(runs)
	for _, r := range runs {
		fmt.Fprintf(&b, "run %s per-criterion=%v dims=%v\n", names[r.ID], r.Info.PerCriterion, r.Info.Dimensions)
		vs, _ := s.Verdicts(r.ID)
		for _, v := range vs {
			fmt.Fprintf(&b, "  %s/%d %s %v %q %q\n", v.ItemID, v.Criterion, v.Status, v.Values, v.Reason, v.Error)
		}
	}
	labels, _ := s.Labels("")
	for _, l := range labels {
		fmt.Fprintf(&b, "label %s %s/%d %s=%v via %s\n", l.Annotator, l.ItemID, l.Criterion, l.Dimension, l.Value, l.Via)
	}
	notes, _ := s.Notes("")
	for _, n := range notes {
		fmt.Fprintf(&b, "note %s %s %q\n", n.Annotator, n.ItemID, n.Text)
	}
	items, _ := s.Items()
	for _, it := range items {
		fmt.Fprintf(&b, "item %s %q %q %q %q %v %s\n", it.ID, it.Question, it.Gold, it.Prediction, it.Rubric, it.Segments, it.Fields)
	}
	return b.String()
}

// TestExportReimport exports a session, imports the file into a new
// session, and checks that the runs, verdicts, labels, notes and items
// came back — and that exporting again gives the same file.
func TestExportReimport(t *testing.T) {
	for _, format := range []string{"jsonl", "csv"} {
		t.Run(format, func(t *testing.T) {
			s := exportSession(t)
			out, _ := exportString(t, s, format, OnlyAll)
			ds, err := dataset.LoadBytes("calibration."+format, []byte(out), dataset.Options{})
			if err != nil {
				t.Fatalf("the export does not load: %v", err)
			}
			back, sum := importDataset(t, sessionPath(t), ds, nil)
			if len(sum.Skipped) != 0 {
				t.Errorf("skipped: %q", sum.Skipped)
			}
			if got, want := state(t, back), state(t, s); got != want {
				t.Errorf("state after the round trip\n got:\n%s\nwant:\n%s", got, want)
			}
			again, _ := exportString(t, back, format, OnlyAll)
			if again != out {
				t.Errorf("exporting the re-imported session gives another file:\n%s\nvs\n%s", again, out)
			}
			// Importing the same file again adds nothing.
			sum2, err := ImportDataset(back, ds, nil)
			if err != nil || sum2.VerdictCount() != 0 || sum2.LabelCount() != 0 {
				t.Errorf("second import: %+v, %v", sum2, err)
			}
		})
	}
}
