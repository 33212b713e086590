package sessions

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

func TestParseImportScales(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		all     judge.Scale
		columns map[string]judge.Scale
		err     string
	}{
		{"none", nil, "", nil, ""},
		{"every column", []string{"pairwise"}, judge.Pairwise, nil, ""},
		{"canonical spelling", []string{" Preference "}, judge.Pairwise, nil, ""},
		{"one column", []string{"label=pairwise"}, "", map[string]judge.Scale{"label": judge.Pairwise}, ""},
		{"both, repeated", []string{"likert", "label=pairwise", "gpt=nominal:CORRECT,INCORRECT,NOT_ATTEMPTED", "likert"}, judge.Likert,
			map[string]judge.Scale{"label": judge.Pairwise, "gpt": "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED"}, ""},
		{"labels with spaces", []string{"q=ordinal:1-3:very bad,ok,good"}, "", map[string]judge.Scale{"q": "ordinal:1-3:very bad,ok,good"}, ""},
		{"a column named with '='", []string{"a=b=ordinal:1-10"}, "", map[string]judge.Scale{"a=b": "ordinal:1-10"}, ""},
		{"same column twice, same scale", []string{"x=likert", "x=ordinal:1-5"}, "", map[string]judge.Scale{"x": judge.Likert}, ""},

		{"unknown scale", []string{"pairwize"}, "", nil,
			`--scale "pairwize": unknown kind "pairwize"; write binary, ternary, likert, ordinal:1-10 (any range, optionally ordinal:1-4:poor,fair,good,excellent), nominal:CAT1,CAT2,… or pairwise (pairwise:notie when a tie is not allowed); for one column write --scale COLUMN=SCALE`},
		{"unknown scale for a column", []string{"label=1-10"}, "", nil, `--scale "1-10": unknown kind "1-10"`},
		{"no column", []string{"=pairwise"}, "", nil, "--scale =pairwise: no column before '=': write --scale COLUMN=SCALE for one column, or --scale SCALE for every one"},
		{"two defaults", []string{"pairwise", "likert"}, "", nil, "--scale pairwise and --scale likert: give one scale for every column, and COLUMN=SCALE for the columns on another"},
		{"a column twice", []string{"x=pairwise", "x=likert"}, "", nil, "--scale x=pairwise and --scale x=likert: a column has one scale; keep one"},
		{"several in one", []string{"a=pairwise,b=likert"}, "", nil, "--scale a=pairwise,b=likert: one column per --scale; repeat the flag for each"},
		{"empty", []string{""}, "", nil, `--scale "": no scale given`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseImportScales(tc.args)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error\n got: %v\nwant: %s…", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.All != tc.all || len(got.Columns) != len(tc.columns) {
				t.Fatalf("got %+v, want all %q columns %v", got, tc.all, tc.columns)
			}
			for c, s := range tc.columns {
				if got.Columns[c] != s {
					t.Errorf("column %s: %q, want %q", c, got.Columns[c], s)
				}
			}
		})
	}
}

func TestCheckImportScales(t *testing.T) {
	ds, err := dataset.LoadBytes("j.jsonl", []byte(`{"id": 1, "prediction": "p", "gpt_result": "1", "gpt_result_swapped": "2", "gpt_reason": "r", "annotator1": 1}`+"\n"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"pairwise"}, ""},
		{[]string{"gpt_result=pairwise", "annotator1=pairwise"}, ""},
		{[]string{"gpt_result=pairwise", "gpt_result_swapped=pairwise"}, ""},
		{[]string{"gpt_reslt=pairwise"}, "--scale gpt_reslt=pairwise: gpt_reslt is no verdict or human column of j.jsonl; they are gpt_result, annotator1"},
		{[]string{"gpt_reason=pairwise"}, "--scale gpt_reason=pairwise: gpt_reason is no verdict or human column"},
		{[]string{"gpt_result_swapped=pairwise"}, "--scale gpt_result_swapped=pairwise: gpt_result_swapped holds the swapped order of gpt_result, so it is on gpt_result's scale (none given): give the scale for gpt_result alone"},
	}
	for _, tc := range tests {
		s, err := ParseImportScales(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckImportScales(ds, s)
		if (err == nil) != (tc.err == "") || err != nil && !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
		}
	}
}

// FuzzParseImportScales checks that any --scale arguments parse to known
// canonical scales or fail with a one-line message that starts "--scale".
func FuzzParseImportScales(f *testing.F) {
	f.Add("pairwise", "label=likert")
	f.Add("a=b=nominal:x,y", "=")
	f.Add("ordinal:1-4:poor,fair,good,excellent", "ordinal:0-100")
	f.Add("x=pairwise:notie", "x=pairwise")
	f.Fuzz(func(t *testing.T, a, b string) {
		s, err := ParseImportScales([]string{a, b})
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "--scale ") || strings.Contains(msg, "%!") {
				t.Fatalf("error %q", msg)
			}
			return
		}
		check := func(sc judge.Scale) {
			if sc == "" {
				return
			}
			canon, err := judge.ParseScale(string(sc))
			if err != nil || canon != sc || !sc.Known() {
				t.Fatalf("scale %q is not canonical: %q, %v", sc, canon, err)
			}
		}
		check(s.All)
		for c, sc := range s.Columns {
			if strings.TrimSpace(c) == "" {
				t.Fatalf("empty column name from %q, %q", a, b)
			}
			check(sc)
		}
	})
}
