package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

// The config file's prices key gives each model's price per million
// tokens, so that gavel run --dry-run, the review screen's R and the
// other bulk actions can say what they will cost:
//
//	prices:
//	  gpt-4o-mini: {input: 0.15, output: 0.60, batch_input: 0.075, batch_output: 0.30}
//	  qwen2.5-7b: {input: 0, output: 0}   # a local server: free
//
// The model is named as the server names it (as --model, or a judge
// file's model). input and output are required; batch_input and
// batch_output (the Batch API's, gavel run --batch) come together or not
// at all. No price is guessed for a model the file does not list.

// decimalRE is a price as written: digits, a point, an exponent.
var decimalRE = regexp.MustCompile(`^[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?$|^[0-9]+\.$`)

// priceFields are a model's price keys.
var priceFields = []string{"input", "output", "batch_input", "batch_output"}

// parsePrices reads the prices key's value; the error names the line.
func parsePrices(path string, v *yaml.Node) (cost.Prices, error) {
	bad := func(n *yaml.Node, format string, a ...any) error {
		return fmt.Errorf("%s:%d: prices: %s", path, n.Line, fmt.Sprintf(format, a...))
	}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		// "prices:" with nothing under it: no prices, as without the key.
		return cost.Prices{}, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, bad(v, "want a mapping of model names to prices per million tokens, e.g. gpt-4o-mini: {input: 0.15, output: 0.60}; got %s", describeNode(v))
	}
	out := cost.Prices{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, p := v.Content[i], v.Content[i+1]
		model, ok := scalarString(k)
		if !ok || model == "" {
			return nil, bad(k, "a model name is empty")
		}
		name := safetext.SanitizeLine(model)
		if _, dup := out[model]; dup {
			return nil, bad(k, "%s is priced twice", name)
		}
		if p.Kind != yaml.MappingNode {
			return nil, bad(p, "%s: want {input: N, output: N} in dollars per million tokens; got %s", name, describeNode(p))
		}
		got := map[string]float64{}
		for j := 0; j+1 < len(p.Content); j += 2 {
			fk, fv := p.Content[j], p.Content[j+1]
			field := fk.Value
			if !slices.Contains(priceFields, field) {
				return nil, bad(fk, "%s: unknown key %q; the keys are %s", name, field, strings.Join(priceFields, ", "))
			}
			if _, dup := got[field]; dup {
				return nil, bad(fk, "%s: %s is set twice", name, field)
			}
			s, _ := scalarString(fv)
			s = strings.TrimPrefix(s, "$")
			x, err := strconv.ParseFloat(s, 64)
			// Decimal only: ParseFloat also takes hex floats (0x1p-3),
			// which no price list writes.
			if err != nil || !decimalRE.MatchString(s) || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, bad(fv, "%s: %s: want dollars per million tokens, 0 or more; got %s", name, field, describeNode(fv))
			}
			got[field] = x
		}
		_, hasIn := got["input"]
		_, hasOut := got["output"]
		if !hasIn || !hasOut {
			return nil, bad(p, "%s: give both input and output (dollars per million tokens)", name)
		}
		_, hasBI := got["batch_input"]
		_, hasBO := got["batch_output"]
		if hasBI != hasBO {
			return nil, bad(p, "%s: give both batch_input and batch_output, or neither", name)
		}
		out[model] = cost.Price{Input: got["input"], Output: got["output"], BatchInput: got["batch_input"], BatchOutput: got["batch_output"], HasBatch: hasBI}
	}
	return out, nil
}

// pricesText tells the configured prices on one line, for gavel config.
func pricesText(p cost.Prices) string {
	if len(p) == 0 {
		return "(none: costs are told without a price)"
	}
	models := make([]string, 0, len(p))
	for m := range p {
		models = append(models, m)
	}
	slices.Sort(models)
	var parts []string
	for _, m := range models {
		pr := p[m]
		s := fmt.Sprintf("%s in %s out %s", m, strconv.FormatFloat(pr.Input, 'f', -1, 64), strconv.FormatFloat(pr.Output, 'f', -1, 64))
		if pr.HasBatch {
			s += fmt.Sprintf(" (batch %s/%s)", strconv.FormatFloat(pr.BatchInput, 'f', -1, 64), strconv.FormatFloat(pr.BatchOutput, 'f', -1, 64))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ") + " $ per 1M tokens"
}

// configPrices are the config file's prices (nil when it gives none).
func configPrices(e env) (cost.Prices, error) {
	s, err := resolveSettings(e, nil)
	if err != nil {
		return nil, err
	}
	return s.prices, nil
}
