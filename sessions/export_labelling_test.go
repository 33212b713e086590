package sessions

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

// labellingExportSession is exportSession with a labelling record: ann
// relabels q2 under guidelines version 1 with the verdict hidden, re-tests
// q1, marks q3 as impossible to judge (other, with a note) and tags q1;
// bo marks q1 gold-wrong.
func labellingExportSession(t *testing.T) *Store {
	t.Helper()
	s := exportSession(t)
	g, _, err := s.AddGuidelines("# Guidelines\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, acts := range [][]Action{
		{{Kind: KindLabel, ItemID: "q2", Dimension: "correct", Value: 1, Via: "random", Guidelines: g.ID, Shown: ShownBlind}},
		{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 0, Via: "retest", Retest: true, Shown: ShownBlind}},
		{{Kind: KindCantJudge, ItemID: "q3", Reason: ReasonOther, Note: "the prediction is cut off", Via: "order", Guidelines: g.ID}},
		{{Kind: KindTag, ItemID: "q1", Tag: "format", Value: 1, Via: "order"}, {Kind: KindTag, ItemID: "q1", Tag: "too strict", Value: 1, Via: "order"}},
	} {
		if _, err := s.Record(acts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RecordAs("bo", []Action{{Kind: KindCantJudge, ItemID: "q1", Reason: ReasonGoldWrong, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExportLabellingColumns(t *testing.T) {
	s := labellingExportSession(t)
	out, sum := exportString(t, s, "jsonl", OnlyAll)
	cols := strings.Join(sum.Columns, "|")
	want := "label:ann:compliance|label:ann:correct|label_via:ann|note:ann|" +
		"label_guidelines:ann|label_shown:ann|retest:ann:correct|cant_judge:ann|cant_judge_note:ann|tags:ann|" +
		"label:bo:score|label_via:bo|note:bo|cant_judge:bo|fields"
	if !strings.HasSuffix(cols, want) {
		t.Errorf("columns\n got %s\nwant …%s", cols, want)
	}
	lines := strings.Split(out, "\n")
	for i, w := range []string{
		`"label_guidelines:ann":null,"label_shown:ann":null,"retest:ann:correct":"NO","cant_judge:ann":null,"cant_judge_note:ann":null,"tags:ann":"format,too strict","label:bo:score":null,"label_via:bo":null,"note:bo":null,"cant_judge:bo":"gold-wrong"`,
		`"label:ann:correct":"YES","label_via:ann":"random","note:ann":null,"label_guidelines:ann":1,"label_shown:ann":"blind","retest:ann:correct":null,"cant_judge:ann":null`,
		`"label_guidelines:ann":null,"label_shown:ann":null,"retest:ann:correct":null,"cant_judge:ann":null,"cant_judge_note:ann":null,"tags:ann":null,`,
		`"cant_judge:ann":"other","cant_judge_note:ann":"the prediction is cut off","tags:ann":null`,
	} {
		if !strings.Contains(lines[i], w) {
			t.Errorf("row %d lacks %s:\n%s", i+1, w, lines[i])
		}
	}
}

func TestExportLabellingSelections(t *testing.T) {
	s := labellingExportSession(t)
	for _, tc := range []struct {
		name string
		opts ExportOptions
		ids  []string
	}{
		{"reviewed: a can't judge counts", ExportOptions{Only: OnlyReviewed}, []string{"q1", "q2", "r1", "q3"}},
		{"can't judge", ExportOptions{Only: OnlyAll, CantJudge: true}, []string{"q1", "q3"}},
		{"the fix list", ExportOptions{Only: OnlyAll, CantJudge: true, Reason: ReasonGoldWrong}, []string{"q1"}},
		{"a reason no one gave", ExportOptions{Only: OnlyAll, CantJudge: true, Reason: ReasonUnreadable}, nil},
		{"a tag", ExportOptions{Only: OnlyAll, Tag: "too strict"}, []string{"q1"}},
		{"a tag and can't judge", ExportOptions{Only: OnlyAll, Tag: "format", CantJudge: true, Reason: ReasonOther}, nil},
		{"narrowing --only", ExportOptions{Only: OnlyDisagreements, CantJudge: true}, []string{"q1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.opts.Format = "csv"
			if _, err := Export(s, &b, tc.opts); err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(&b).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, rec := range recs[1:] {
				ids = append(ids, rec[0])
			}
			if !slices.Equal(ids, tc.ids) {
				t.Errorf("rows %q, want %q", ids, tc.ids)
			}
		})
	}
	if _, err := Export(s, &bytes.Buffer{}, ExportOptions{Format: "csv", CantJudge: true, Reason: "boring"}); err == nil || !strings.Contains(err.Error(), "gold-wrong, ambiguous, unreadable, other") {
		t.Errorf("an unknown reason: %v", err)
	}
}

// An export with labelling columns imports as one without them: the same
// runs, verdicts, labels, notes and items, and no column taken for a
// verdict or a label (the re-test column among them).
func TestExportLabellingReimport(t *testing.T) {
	for _, format := range []string{"jsonl", "csv"} {
		t.Run(format, func(t *testing.T) {
			s := labellingExportSession(t)
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
		})
	}
}
