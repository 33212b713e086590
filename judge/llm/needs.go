package llm

import (
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// ExtraSkipped marks (true) a verdict the judge gave without asking the
// model: the item lacks a field the prompt needs (see missingInput). Such
// a verdict is a parse_error whose Error starts with "skipped:".
const ExtraSkipped = "skipped"

// neededInputs are the placeholders without which a prompt asks nothing
// worth a request: a judge cannot compare a prediction with an empty gold
// answer, nor rate an empty prediction, nor prefer one of two responses
// when one is missing. A judge lists in its inputs only what it needs:
// the pairwise judge reads the gold answer when there is one, and does
// not list it.
var neededInputs = []struct{ field, what string }{
	{"gold", "gold answer"},
	{"prediction", "prediction"},
	{"response_a", "response A"},
	{"response_b", "response B"},
}

// inputValue is the item's value for one of neededInputs' fields.
func inputValue(it judge.Item, field string) string {
	switch field {
	case "gold":
		return it.Gold
	case "prediction":
		return it.Prediction
	case "response_a":
		return it.ResponseA
	case "response_b":
		return it.ResponseB
	}
	return ""
}

// missingInput names what the task's item lacks that the judge's prompt
// needs ("gold answer"), or "" when nothing is missing.
func (d *definition) missingInput(t judge.Task) string {
	var missing []string
	for _, n := range neededInputs {
		if !slices.Contains(d.inputs, n.field) {
			continue
		}
		if strings.TrimSpace(inputValue(t.Item, n.field)) == "" {
			missing = append(missing, n.what)
		}
	}
	return strings.Join(missing, " and ")
}

// skipped is the verdict of a task whose item lacks what the prompt needs:
// no request is sent.
func (d *definition) skipped(missing string) judge.Verdict {
	return judge.Verdict{
		Status: judge.StatusParseError,
		Error:  "skipped: the item has no " + missing + ", which the " + d.name + " prompt needs; nothing was sent to the model (--map names the field that holds it)",
		Extra:  map[string]any{ExtraSkipped: true},
	}
}

// Skipped reports whether a verdict was given without a request because
// the item lacked what the prompt needs.
func Skipped(v judge.Verdict) bool {
	s, _ := v.Extra[ExtraSkipped].(bool)
	return s
}
