package stats

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestCountExtras(t *testing.T) {
	v := func(status judge.Status, extra map[string]string) Verdict {
		return Verdict{Judge: "bbh", Status: status, Extra: extra}
	}
	units := []Unit{
		{ItemID: "a", Verdicts: []Verdict{v(judge.StatusOK, map[string]string{"error_type": "wrong_logic"}), v(judge.StatusOK, map[string]string{"error_type": "none", "reasoning_score": "5"})}},
		{ItemID: "b", Verdicts: []Verdict{v(judge.StatusOK, map[string]string{"error_type": "none", "reasoning_score": "4"})}},
		{ItemID: "c", Verdicts: []Verdict{v(judge.StatusOK, map[string]string{"error_type": "hallucination", "reasoning_score": "4"})}},
		{ItemID: "d", Verdicts: []Verdict{v(judge.StatusParseError, map[string]string{"error_type": "none"})}},
		{ItemID: "e", Verdicts: []Verdict{{Judge: "other", Status: judge.StatusOK, Extra: map[string]string{"error_type": "none"}}}},
		{ItemID: "f", Criterion: 1, Verdicts: []Verdict{v(judge.StatusOK, map[string]string{"error_type": "none"})}},
	}
	got := countExtras(units, "bbh", false)
	want := []ExtraField{
		// Only current ok verdicts of bbh on whole items: a's earlier
		// verdict, d's parse error, e's other judge and f's criterion are
		// left out.
		{Field: "error_type", Values: []ExtraValue{{"none", 2}, {"hallucination", 1}}},
		{Field: "reasoning_score", Values: []ExtraValue{{"4", 2}, {"5", 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("countExtras = %+v\nwant %+v", got, want)
	}
}

func TestCountExtrasDropsFreeText(t *testing.T) {
	var units []Unit
	for i := range MaxExtraValues + 5 {
		units = append(units, Unit{ItemID: strings.Repeat("x", i+1), Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK,
			Extra: map[string]string{"comment": strings.Repeat("c", i+1), "kind": "same"}}}})
	}
	got := countExtras(units, "j", false)
	if len(got) != 1 || got[0].Field != "kind" || got[0].Values[0].Count != MaxExtraValues+5 {
		t.Errorf("countExtras = %+v, want only the categorical field", got)
	}
	if r := Compute(Input{Judges: []JudgeSpec{{Key: "j"}}, Units: units}, Options{Resamples: -1}); len(r.Judges[0].Extras) != 1 {
		t.Errorf("Compute's report has extras %+v", r.Judges[0].Extras)
	}
}

func TestCountExtrasDropsMostlyDistinctValues(t *testing.T) {
	var units []Unit
	for i, ans := range []string{"(A)", "(B)", "(C)", "(D)", "(A)", "five", "42", "(E)"} {
		units = append(units, Unit{ItemID: string(rune('a' + i)), Verdicts: []Verdict{{Judge: "j", Status: judge.StatusOK,
			Extra: map[string]string{"extracted_answer": ans, "rule": []string{"letter", "number"}[i%2]}}}})
	}
	got := countExtras(units, "j", false)
	if len(got) != 1 || got[0].Field != "rule" {
		t.Errorf("countExtras = %+v, want only rule", got)
	}
}
