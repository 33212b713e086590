package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Undefined is how a value that cannot be computed is shown on screen and
// in text reports. It is never written as NaN anywhere.
const Undefined = "—"

// Estimate is one statistic. Value is NaN when the statistic is undefined
// for the data (no items, one class only…); Reason then says why in a
// short phrase fit for a screen ("no items to compare").
//
// In JSON it is {"value": number|null, "reason": string}; reason is left
// out when the value is defined, and value is null exactly when undefined.
type Estimate struct {
	Value  float64
	Reason string
}

// Interval is a statistic with a 95 % interval. Low and High are NaN when
// the interval is undefined (and always when Value is).
//
// In JSON it is {"value", "low", "high": number|null, "reason": string},
// reason left out when the value is defined.
type Interval struct {
	Value  float64
	Low    float64
	High   float64
	Reason string
}

// defined returns a defined Estimate.
func defined(v float64) Estimate { return Estimate{Value: v} }

// undefined returns an undefined Estimate with its reason.
func undefined(reason string) Estimate { return Estimate{Value: math.NaN(), Reason: reason} }

// undefinedInterval returns an undefined Interval with its reason.
func undefinedInterval(reason string) Interval {
	return Interval{Value: math.NaN(), Low: math.NaN(), High: math.NaN(), Reason: reason}
}

// ratio returns num/den, undefined with reason when den is zero.
func ratio(num, den float64, reason string) Estimate {
	if den == 0 {
		return undefined(reason)
	}
	return defined(num / den)
}

// Defined reports whether the estimate has a finite value.
func (e Estimate) Defined() bool { return finite(e.Value) }

// Defined reports whether the interval's point value is finite.
func (i Interval) Defined() bool { return finite(i.Value) }

// HasBounds reports whether both interval bounds are finite.
func (i Interval) HasBounds() bool { return finite(i.Low) && finite(i.High) }

// Estimate drops the bounds.
func (i Interval) Estimate() Estimate { return Estimate{Value: i.Value, Reason: i.Reason} }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// FormatNumber renders v with the given number of decimals, or Undefined
// when v is NaN or infinite. Use it for every figure on screen.
func FormatNumber(v float64, decimals int) string {
	if !finite(v) {
		return Undefined
	}
	if v == 0 {
		v = 0 // no "-0.000"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if s[0] == '-' && isZeroDigits(s[1:]) {
		s = s[1:]
	}
	return s
}

// FormatPercent renders a proportion v (0..1) as a percentage with the given
// number of decimals ("72.5%"), or Undefined.
func FormatPercent(v float64, decimals int) string {
	if !finite(v) {
		return Undefined
	}
	return FormatNumber(100*v, decimals) + "%"
}

func isZeroDigits(s string) bool {
	for _, r := range s {
		if r != '0' && r != '.' {
			return false
		}
	}
	return true
}

// String renders the value with three decimals, or Undefined.
func (e Estimate) String() string { return FormatNumber(e.Value, 3) }

// String renders "value [low, high]" with three decimals; the bounds are
// left out when undefined, and the whole is Undefined when the value is.
func (i Interval) String() string { return i.Format(3, false) }

// Format renders "value [low, high]" with the given decimals, as
// percentages when percent is set. Undefined parts render as Undefined.
func (i Interval) Format(decimals int, percent bool) string {
	f := FormatNumber
	if percent {
		f = FormatPercent
	}
	if !i.Defined() {
		return Undefined
	}
	if !i.HasBounds() {
		return f(i.Value, decimals)
	}
	return fmt.Sprintf("%s [%s, %s]", f(i.Value, decimals), f(i.Low, decimals), f(i.High, decimals))
}

// MarshalJSON writes {"value":…,"reason":…} with null for an undefined value.
func (e Estimate) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"value":`)
	writeNumber(&b, e.Value)
	writeReason(&b, e.Value, e.Reason)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MarshalJSON writes {"value","low","high","reason"} with null for undefined parts.
func (i Interval) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"value":`)
	writeNumber(&b, i.Value)
	b.WriteString(`,"low":`)
	writeNumber(&b, i.Low)
	b.WriteString(`,"high":`)
	writeNumber(&b, i.High)
	writeReason(&b, i.Value, i.Reason)
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeNumber(b *bytes.Buffer, v float64) {
	if !finite(v) {
		b.WriteString("null")
		return
	}
	b.Write(strconv.AppendFloat(nil, v, 'g', -1, 64))
}

func writeReason(b *bytes.Buffer, v float64, reason string) {
	if finite(v) && reason == "" {
		return
	}
	if reason == "" {
		reason = "undefined"
	}
	q, _ := json.Marshal(reason)
	b.WriteString(`,"reason":`)
	b.Write(q)
}

// jsonFloat reads a number or null (NaN).
type jsonFloat struct{ v float64 }

func (f *jsonFloat) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		f.v = math.NaN()
		return nil
	}
	return json.Unmarshal(data, &f.v)
}

// UnmarshalJSON reads what MarshalJSON writes; null becomes NaN.
func (e *Estimate) UnmarshalJSON(data []byte) error {
	var w struct {
		Value  *jsonFloat `json:"value"`
		Reason string     `json:"reason"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	e.Value, e.Reason = nanIfMissing(w.Value), w.Reason
	return nil
}

// UnmarshalJSON reads what MarshalJSON writes; null becomes NaN.
func (i *Interval) UnmarshalJSON(data []byte) error {
	var w struct {
		Value  *jsonFloat `json:"value"`
		Low    *jsonFloat `json:"low"`
		High   *jsonFloat `json:"high"`
		Reason string     `json:"reason"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	i.Value, i.Low, i.High, i.Reason = nanIfMissing(w.Value), nanIfMissing(w.Low), nanIfMissing(w.High), w.Reason
	return nil
}

func nanIfMissing(f *jsonFloat) float64 {
	if f == nil {
		return math.NaN()
	}
	return f.v
}
