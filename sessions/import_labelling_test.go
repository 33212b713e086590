package sessions

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

// labellingRecord renders what a session holds of labelling well, but
// the guidelines versions (a session's own numbers, which an export
// cannot carry to another session): current labels with their
// visibility, re-test labels, can't-judges and tags, per annotator.
func labellingRecord(t *testing.T, s *Store) string {
	t.Helper()
	var out []string
	shown := map[int64]Visibility{}
	acts, err := s.Actions("")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		shown[a.ID] = a.Shown
	}
	labels, err := s.Labels("")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range labels {
		out = append(out, fmt.Sprintf("label %s %s/%d/%s=%g shown=%d", l.Annotator, l.ItemID, l.Criterion, l.Dimension, l.Value, shown[l.ActionID]))
	}
	for _, who := range []string{"ann", "bo"} {
		cur, err := s.currentLabelling(who)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range cur.retests {
			out = append(out, fmt.Sprintf("retest %s %s/%d/%s=%g", who, k.ItemID, k.Criterion, k.Dimension, v))
		}
		for item, c := range cur.cantJudge {
			out = append(out, fmt.Sprintf("cant_judge %s %s %s %q", who, item, c[0], c[1]))
		}
		for k := range cur.tags {
			out = append(out, fmt.Sprintf("tag %s %s %s", who, k[0], k[1]))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// TestExportReimportLabelling: an export's labelling columns come back on
// import — re-tests (never replacing the first label), can't-judges with
// their reason and note, tags (joining the tag set), whether the verdict
// was shown — and importing the file again adds nothing.
func TestExportReimportLabelling(t *testing.T) {
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
			if got, want := labellingRecord(t, back), labellingRecord(t, s); got != want {
				t.Errorf("after the round trip:\n%s\nwant:\n%s", got, want)
			}
			var cj, tags, retests, unreadable int
			for _, a := range sum.Annotators {
				cj, tags, retests, unreadable = cj+a.CantJudges, tags+a.Tags, retests+a.Retests, unreadable+a.Unreadable
			}
			if cj != 2 || tags != 2 || retests != 1 || unreadable != 0 {
				t.Errorf("import counted %d can't-judges, %d tags, %d re-tests, %d unreadable; want 2, 2, 1, 0", cj, tags, retests, unreadable)
			}
			if set, err := back.TagSet(); err != nil || !reflect.DeepEqual(set, []string{"format", "too strict"}) {
				t.Errorf("tag set after the import: %q, %v", set, err)
			}
			// The replayed state agrees with the views: the re-test stays
			// apart, the can't-judge is ann's latest decision on q3.
			hist, err := back.Actions("ann")
			if err != nil {
				t.Fatal(err)
			}
			checkState(t, "ann after the import", ReplayLabels(hist), back, "ann")
			sum2, err := ImportDataset(back, ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range sum2.Annotators {
				if a.Labels+a.Notes+a.CantJudges+a.Tags+a.Retests != 0 {
					t.Errorf("importing again added %+v", a)
				}
			}
			if got, want := labellingRecord(t, back), labellingRecord(t, s); got != want {
				t.Errorf("after importing again:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestImportLabellingOrder: a label that differs from the session's takes
// the can't-judge back unless the file says the item cannot be judged,
// which then stays the latest decision; unknown reasons and bad tag names
// are counted as unreadable.
func TestImportLabellingOrder(t *testing.T) {
	s := labellingExportSession(t)
	out, _ := exportString(t, s, "jsonl", OnlyAll)
	// ann's q3: can't judge in the file; make the session's label differ
	// and take the can't-judge back, then import into the same session.
	if _, err := s.Record([]Action{label("q3", "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	if cj, _ := s.CantJudges("ann"); len(cj) != 0 {
		t.Fatalf("setup: %v", cj)
	}
	out = strings.Replace(out, `"tags:ann":"format,too strict"`, `"tags:ann":"format,bad\u001btag, too strict ,format"`, 1)
	out = strings.Replace(out, `"cant_judge:bo":"gold-wrong"`, `"cant_judge:bo":"boring"`, 1)
	ds, err := dataset.LoadBytes("calibration.jsonl", []byte(out), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ImportDataset(s, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cj, _ := s.CantJudges("ann"); len(cj) != 1 || cj[0].ItemID != "q3" || cj[0].Reason != ReasonOther {
		t.Errorf("ann's can't-judge after the import: %+v", cj)
	}
	unreadable := map[string]int{}
	for _, a := range sum.Annotators {
		unreadable[a.Name] = a.Unreadable
	}
	if unreadable["ann"] != 1 || unreadable["bo"] != 1 {
		t.Errorf("unreadable %v: want the bad tag (ann) and the unknown reason (bo)", unreadable)
	}
	if tags, _ := s.ItemTags("ann"); len(tags) != 2 {
		t.Errorf("ann's tags: %+v", tags)
	}
}
