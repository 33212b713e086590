package sessions

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

// TestImportConfidencePairs: --map confidence=VERDICT:COLUMN pairs each
// confidence column with its verdict column; the confidences land in
// verdicts.confidence (first order, ok verdicts only), a second import
// with changed confidences adds them as newer verdicts, and a column the
// mapping does not name is never read as one.
func TestImportConfidencePairs(t *testing.T) {
	const data = "id,question,answer,prediction,gpt_result,gpt_conf,em_result,em_conf,confidence\n" +
		"a,q,g,p,yes,0.9,no,0.25,0.1\n" +
		"b,q,g,p,huh,0.8,yes,,0.1\n" +
		"c,q,g,p,no,1,yes,0,0.1\n"
	load := func(data string) *dataset.Dataset {
		ds, err := dataset.LoadBytes("pairs.csv", []byte(data), dataset.Options{Map: map[string]string{
			"verdict": "gpt_result+em_result", "confidence": "gpt_result:gpt_conf+em_result:em_conf"}})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	s, sum := importDataset(t, sessionPath(t), load(data), nil)
	got := map[string]int{}
	for _, r := range sum.Runs {
		got[r.Column+" "+r.ConfidenceColumn] = r.Confidences
	}
	if got["gpt_result gpt_conf"] != 2 || got["em_result em_conf"] != 2 {
		t.Errorf("runs %v", got)
	}
	rows := dumpRows(t, s.w, `SELECT r.model, v.item_id, v.status, v.confidence FROM verdicts v JOIN runs r ON r.id = v.run_id ORDER BY v.id`)
	want := []string{
		"model=gpt_result item_id=a status=ok confidence=0.9",
		"model=gpt_result item_id=b status=parse_error confidence=<nil>",
		"model=gpt_result item_id=c status=ok confidence=1",
		"model=em_result item_id=a status=ok confidence=0.25",
		"model=em_result item_id=b status=ok confidence=<nil>",
		"model=em_result item_id=c status=ok confidence=0",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdicts:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	// Again with one confidence changed: that verdict alone is added.
	sum, err := ImportDataset(s, load(strings.Replace(data, "yes,0.9", "yes,0.7", 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := sum.VerdictCount(); n != 1 {
		t.Errorf("%d verdicts added by the second import, want 1", n)
	}
	// A bad cell on a row stops the import before anything is written.
	before := dumpRows(t, s.w, `SELECT count(*) FROM verdicts`)
	_, err = ImportDataset(s, load(strings.Replace(data, "no,0.25", "no,2", 1)), nil)
	if err == nil || !strings.Contains(err.Error(), `pairs.csv row 1 (id "a"): the confidence of "em_result" in column "em_conf": "2" is outside 0 to 1`) {
		t.Errorf("bad cell: %v", err)
	}
	if after := dumpRows(t, s.w, `SELECT count(*) FROM verdicts`); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("verdicts written despite the refusal: %v -> %v", before, after)
	}
}

func FuzzReadConfidence(f *testing.F) {
	for _, s := range []string{"0.5", " 1 ", "0", "", "1.0000001", "-0", "NaN", "+Inf", "85%", "1e-3", "0x1p-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok, err := readConfidence(s)
		switch {
		case err != nil && ok:
			t.Fatalf("%q: ok with error %v", s, err)
		case ok && !(c >= 0 && c <= 1):
			t.Fatalf("%q read as %v", s, c)
		case !ok && err == nil && strings.TrimSpace(s) != "":
			t.Fatalf("%q: neither read nor refused", s)
		}
	})
}
