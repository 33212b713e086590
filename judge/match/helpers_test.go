package match

import (
	"context"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// judgeOne runs the match judge on one item and checks what every verdict
// must hold: status ok, a 0/1 value, a rule id that the reason names, and
// an extracted answer that lies where its span says.
func judgeOne(t *testing.T, gold, pred, question string) judge.Verdict {
	t.Helper()
	v := New().Judge(context.Background(), judge.Task{Item: judge.Item{
		ID: "it-1", Gold: gold, Prediction: pred, Question: question,
	}})
	checkVerdict(t, v, pred)
	if v.Status != judge.StatusOK {
		t.Fatalf("status %q (error %q) for gold %q, prediction %q; want ok", v.Status, v.Error, gold, pred)
	}
	return v
}

// checkVerdict checks the invariants of any verdict of this judge.
func checkVerdict(t testing.TB, v judge.Verdict, pred string) {
	t.Helper()
	if v.ItemID != "it-1" {
		t.Errorf("ItemID = %q, want it-1", v.ItemID)
	}
	ans, _ := v.Extra[ExtraAnswer].(string)
	start, _ := v.Extra[ExtraStart].(int)
	end, _ := v.Extra[ExtraEnd].(int)
	if start < 0 || end < start || end > len(pred) {
		t.Fatalf("answer span [%d,%d) outside the prediction (%d bytes)", start, end, len(pred))
	}
	if end > start && pred[start:end] != ans {
		t.Errorf("prediction[%d:%d] = %q, extracted answer %q", start, end, pred[start:end], ans)
	}
	switch v.Status {
	case judge.StatusOK:
		rule, _ := v.Extra[ExtraRule].(string)
		if rule == "" || !strings.Contains(v.Reason, `rule "`+rule+`"`) {
			t.Errorf("reason %q does not name the deciding rule %q", v.Reason, rule)
		}
		if c, ok := v.Values[Dimension]; !ok || (c != 0 && c != 1) {
			t.Errorf("Values = %v, want correct 0 or 1", v.Values)
		}
		if v.Error != "" {
			t.Errorf("ok verdict with error %q", v.Error)
		}
	case judge.StatusParseError:
		if v.Error == "" || len(v.Values) != 0 {
			t.Errorf("parse_error verdict with error %q, values %v", v.Error, v.Values)
		}
	default:
		t.Errorf("status %q, want ok or parse_error", v.Status)
	}
	if v.At.IsZero() {
		t.Error("verdict has no time")
	}
}

// verdictCorrect is the verdict's value as a bool.
func verdictCorrect(v judge.Verdict) bool { return v.Values[Dimension] == 1 }

// verdictRule is the id of the rule that decided.
func verdictRule(v judge.Verdict) string { r, _ := v.Extra[ExtraRule].(string); return r }
