package sessions

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

func TestLabelsExceptShowsOtherAnnotatorsImportedIncluded(t *testing.T) {
	path := sessionPath(t)
	s, sum := importFile(t, path, "judged.csv", judgedCSV, nil) // the reviewer is "importer"
	if sum.LabelCount() != 3 {
		t.Fatalf("imported %d labels, want 3", sum.LabelCount())
	}
	bob := openStore(t, path, "bob")
	for _, g := range [][]Action{
		{label("a", "correct", 0)},
		{label("c", "correct", 1), note("c", "bob thinks so")},
		{label("d", "correct", 0)},
	} {
		if _, err := bob.Record(g); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := bob.Undo(); err != nil { // d goes
		t.Fatal(err)
	}
	if _, err := s.Record([]Action{label("b", "correct", 1)}); err != nil {
		t.Fatal(err)
	}

	show := func(ls []Label) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.Annotator+":"+labelKey(l)+":"+l.Via)
		}
		return out
	}
	others, err := s.LabelsExcept("importer")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"bob:a/0/correct=0:order", "human_label:a/0/correct=1:imported",
		"human_label:b/0/correct=0:imported",
		"bob:c/0/correct=1:order",
		"human_label:d/0/correct=1:imported",
	}
	if got := show(others); !reflect.DeepEqual(got, want) {
		t.Errorf("LabelsExcept(importer) = %v\nwant %v", got, want)
	}
	all, err := s.Labels("")
	if err != nil {
		t.Fatal(err)
	}
	var mine []Label
	for _, l := range all {
		if l.Annotator == "importer" {
			mine = append(mine, l)
		}
	}
	if len(all) != len(others)+1 || len(mine) != 1 || mine[0].ItemID != "b" {
		t.Errorf("Labels(\"\") = %v: want the others and the reviewer's one label", show(all))
	}
	if ls, _ := s.LabelsExcept("nobody"); !reflect.DeepEqual(ls, all) {
		t.Errorf("LabelsExcept(nobody) = %v, want every label %v", show(ls), show(all))
	}
}

// TestLabelsExceptTriviaQA checks the TriviaQA file's HumanJudgement
// column arrives as another annotator's labels, one per judged row.
func TestLabelsExceptTriviaQA(t *testing.T) {
	ds, err := dataset.Load(realData(t, "judging_the_judges__TriviaQA_Judges_w_HumanJudgement_V1.csv"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const keep = 200
	ds.Items = ds.Items[:keep]
	want := map[string]float64{}
	for i := range ds.Imported {
		ds.Imported[i].Values = ds.Imported[i].Values[:keep]
		if ds.Imported[i].Field != "HumanJudgement" {
			continue
		}
		for j, v := range ds.Imported[i].Values {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true", "yes", "1":
				want[ds.Items[j].ID] = 1
			case "false", "no", "0":
				want[ds.Items[j].ID] = 0
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no HumanJudgement values in the file")
	}
	s, _ := importDataset(t, sessionPath(t), ds, nil)
	if _, err := s.Record([]Action{label(ds.Items[0].ID, "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	others, err := s.LabelsExcept(s.Annotator())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, l := range others {
		if l.Annotator != "HumanJudgement" || l.Criterion != 0 || l.Dimension != "correct" || l.Via != ViaImported {
			t.Fatalf("unexpected label %+v", l)
		}
		got[l.ItemID] = l.Value
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HumanJudgement labels: %d, want %d as in the file", len(got), len(want))
	}
}
