package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge/cost"
)

func TestConfigPrices(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       cost.Prices
		err        string
	}{
		{"flow", "prices:\n  gpt-4o-mini: {input: 0.15, output: 0.60, batch_input: 0.075, batch_output: 0.30}\n",
			cost.Prices{"gpt-4o-mini": {Input: 0.15, Output: 0.6, BatchInput: 0.075, BatchOutput: 0.3, HasBatch: true}}, ""},
		{"block, two models, a dollar sign", "prices:\n  gpt-4o:\n    input: $2.50\n    output: 10\n  qwen2.5-7b: {input: 0, output: 0}\n",
			cost.Prices{"gpt-4o": {Input: 2.5, Output: 10}, "qwen2.5-7b": {}}, ""},
		{"not a mapping", "prices: 3\n", nil, `config.yaml:1: prices: want a mapping of model names`},
		{"a model without output", "prices:\n  m: {input: 1}\n", nil, "config.yaml:2: prices: m: give both input and output"},
		{"half a batch price", "prices:\n  m: {input: 1, output: 2, batch_input: 0.5}\n", nil, "m: give both batch_input and batch_output, or neither"},
		{"negative", "prices:\n  m: {input: -1, output: 2}\n", nil, `m: input: want dollars per million tokens, 0 or more; got "-1"`},
		{"not a number", "prices:\n  m: {input: cheap, output: 2}\n", nil, `got "cheap"`},
		{"unknown key", "prices:\n  m: {input: 1, output: 2, cached: 0.5}\n", nil, `m: unknown key "cached"; the keys are input, output, batch_input, batch_output`},
		{"twice", "prices:\n  m: {input: 1, output: 2}\n  m: {input: 1, output: 2}\n", nil, "config.yaml:3: prices: m is priced twice"},
		{"a list", "prices:\n  m: [1, 2]\n", nil, "m: want {input: N, output: N}"},
		{"a hex float", "prices:\n  m: {input: 0x1p-3, output: 2}\n", nil, `m: input: want dollars per million tokens, 0 or more; got "0x1p-3"`},
		{"an exponent", "prices:\n  m: {input: 1.5e-1, output: 2.}\n", cost.Prices{"m": {Input: 0.15, Output: 2}}, ""},
		{"empty", "prices:\n", cost.Prices{}, ""},
	}
	for _, tc := range cases {
		fc, err := parseConfig("config.yaml", []byte(tc.yaml))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(fc.prices, tc.want) || !fc.present["prices"] {
			t.Errorf("%s: prices %+v, want %+v", tc.name, fc.prices, tc.want)
		}
	}
}

// gavel config shows the prices and where they come from.
func TestConfigShowsPrices(t *testing.T) {
	e, path := configEnv(t, "prices:\n  gpt-4o-mini: {input: 0.15, output: 0.6, batch_input: 0.075, batch_output: 0.3}\n", nil)
	out := e.stdout.(*bytes.Buffer)
	if err := showConfig(e); err != nil {
		t.Fatal(err)
	}
	want := "gpt-4o-mini in 0.15 out 0.6 (batch 0.075/0.3) $ per 1M tokens"
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), path) {
		t.Errorf("gavel config does not show the prices (%q) from %s:\n%s", want, path, out)
	}
	p, err := configPrices(e)
	if err != nil || p["gpt-4o-mini"].Input != 0.15 {
		t.Errorf("configPrices = %v, %v", p, err)
	}
}

// Whatever the prices key holds, reading it fails with a message or
// gives prices of 0 or more.
func FuzzConfigPrices(f *testing.F) {
	f.Add("prices:\n  m: {input: 0.15, output: 0.6}\n")
	f.Add("prices:\n  m: {input: 1, output: 2, batch_input: 0.5, batch_output: 1}\n")
	f.Add("prices: [a]\n")
	f.Add("prices:\n  : {input: 1e400, output: NaN}\n")
	f.Add("prices:\n  m: {input: 0x1p-3, output: 1_0}\n")
	f.Add("prices:\n")
	f.Fuzz(func(t *testing.T, yaml string) {
		fc, err := parseConfig("config.yaml", []byte(yaml))
		if err != nil {
			return
		}
		for m, p := range fc.prices {
			if m == "" || p.Input < 0 || p.Output < 0 || p.BatchInput < 0 || p.BatchOutput < 0 {
				t.Fatalf("%q: %q %+v", yaml, m, p)
			}
		}
	})
}
