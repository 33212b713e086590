package stats

import (
	"encoding/json"
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		got, want string
	}{
		{FormatNumber(0.81234, 3), "0.812"},
		{FormatNumber(math.NaN(), 3), Undefined},
		{FormatNumber(inf, 3), Undefined},
		{FormatNumber(-0.0001, 2), "0.00"},
		{FormatNumber(-0.5, 1), "-0.5"},
		{FormatPercent(0.725, 1), "72.5%"},
		{FormatPercent(math.NaN(), 1), Undefined},
		{undefined("x").String(), Undefined},
		{defined(0.4).String(), "0.400"},
		{Wilson(81, 263).String(), "0.308 [0.255, 0.366]"},
		{Wilson(81, 263).Format(1, true), "30.8% [25.5%, 36.6%]"},
		{Interval{Value: 0.1, Low: math.NaN(), High: math.NaN()}.String(), "0.100"},
		{undefinedInterval("x").Format(1, true), Undefined},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestValueJSON(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{defined(0.5), `{"value":0.5}`},
		{undefined("no items to compare"), `{"value":null,"reason":"no items to compare"}`},
		{Estimate{Value: math.Inf(-1)}, `{"value":null,"reason":"undefined"}`},
		{Wilson(0, 20), `{"value":0,"low":0,"high":0.16112515805281935}`},
		{Interval{Value: 0.2, Low: math.NaN(), High: math.NaN()}, `{"value":0.2,"low":null,"high":null}`},
		{undefinedInterval(`say "why"`), `{"value":null,"low":null,"high":null,"reason":"say \"why\""}`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.want {
			t.Errorf("%+v: %s (%v), want %s", tc.v, b, err, tc.want)
		}
	}
	var e Estimate
	if err := json.Unmarshal([]byte(`{"value":null,"reason":"r"}`), &e); err != nil || !math.IsNaN(e.Value) || e.Reason != "r" {
		t.Errorf("unmarshal: %+v %v", e, err)
	}
	var i Interval
	if err := json.Unmarshal([]byte(`{"value":0.3,"low":0.1}`), &i); err != nil || i.Value != 0.3 || i.Low != 0.1 || !math.IsNaN(i.High) {
		t.Errorf("unmarshal: %+v %v", i, err)
	}
	if err := json.Unmarshal([]byte(`{"value":"x"}`), &e); err == nil {
		t.Error("a string value was accepted")
	}
}
