package pg

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A SQLite column holds any value whatever its declared type (a nominal
// label's "A" in actions.value, a REAL column), and SQLite's text may hold
// NUL bytes and invalid UTF-8, which PostgreSQL's text refuses. Such a
// value goes to the row's gavel_odd column, a JSON object keyed by column
// name, as an Odd:
//
//	{"value": {"t": "text", "s": "A"}}            text in a non-text column
//	{"note": {"t": "text", "b64": "YQBi"}}        text with NUL or invalid UTF-8
//	{"raw": {"t": "blob", "b64": "AAE="}}         a blob outside a bytea column
//	{"n": {"t": "integer", "v": "3"}}             an integer outside a bigint one
//	{"x": {"t": "real", "v": "-0"}}               a real outside a double one
//
// and the typed column holds NULL, except a text column, which holds a
// stand-in (Standin) so that its keys and joins still work: the odd value
// shown, after U+FFFD. Ordinary values stay typed and queryable in psql;
// a reader takes a column's value from gavel_odd when the column is named
// there. Reals in double precision columns keep their bits (-0 included)
// through the binary protocol.

// Odd is one value in gavel_odd.
type Odd struct {
	// T is the value's SQLite storage class: text, blob, integer, real.
	T string `json:"t"`
	// S is a text's characters, when they are valid UTF-8 without NUL.
	S *string `json:"s,omitempty"`
	// B64 is a text's or a blob's bytes in standard base64.
	B64 *string `json:"b64,omitempty"`
	// V is an integer or a real in decimal: strconv's shortest form that
	// reads back to the same bits ("-0", "+Inf").
	V string `json:"v,omitempty"`
}

// Standin is what a text column holds for an odd value: U+FFFD, then the
// value shown with Go's quoting (a text), x'HEX' (a blob) or as a number.
// Different odd values have different stand-ins.
func Standin(v any) string {
	const mark = "\uFFFD"
	switch x := v.(type) {
	case string:
		return mark + strconv.Quote(x)
	case []byte:
		return mark + fmt.Sprintf("x'%x'", x)
	case int64:
		return mark + strconv.FormatInt(x, 10)
	case float64:
		return mark + "r" + strconv.FormatFloat(x, 'g', -1, 64)
	}
	return mark + fmt.Sprint(v)
}

// plainText reports whether PostgreSQL's text holds s as it is.
func plainText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// EncodeValue is how a column of type t keeps a SQLite value v (nil,
// int64, float64, string or []byte, as database/sql reads them): the value
// for the typed column and, for a value it cannot hold, its Odd.
func EncodeValue(t ColumnType, v any) (typed any, odd *Odd, err error) {
	switch x := v.(type) {
	case nil:
		return nil, nil, nil
	case int64:
		if t == TypeInteger {
			return x, nil, nil
		}
		odd = &Odd{T: "integer", V: strconv.FormatInt(x, 10)}
	case float64:
		if math.IsNaN(x) {
			return nil, nil, fmt.Errorf("a NaN, which SQLite does not store")
		}
		if t == TypeReal {
			return x, nil, nil
		}
		odd = &Odd{T: "real", V: strconv.FormatFloat(x, 'g', -1, 64)}
	case string:
		if plainText(x) {
			if t == TypeText {
				return x, nil, nil
			}
			s := x
			odd = &Odd{T: "text", S: &s}
		} else {
			b := base64.StdEncoding.EncodeToString([]byte(x))
			odd = &Odd{T: "text", B64: &b}
		}
	case []byte:
		if t == TypeBlob {
			return x, nil, nil
		}
		b := base64.StdEncoding.EncodeToString(x)
		odd = &Odd{T: "blob", B64: &b}
	default:
		return nil, nil, fmt.Errorf("a value of Go type %T, which is no SQLite value", v)
	}
	if t == TypeText {
		return Standin(v), odd, nil
	}
	return nil, odd, nil
}

// Value is the SQLite value an Odd holds.
func (o *Odd) Value() (any, error) {
	switch o.T {
	case "text":
		if o.S != nil {
			return *o.S, nil
		}
		b, err := o.bytes()
		return string(b), err
	case "blob":
		b, err := o.bytes()
		if b == nil {
			b = []byte{}
		}
		return b, err
	case "integer":
		return strconv.ParseInt(o.V, 10, 64)
	case "real":
		f, err := strconv.ParseFloat(o.V, 64)
		if err == nil && math.IsNaN(f) {
			err = fmt.Errorf("NaN is no SQLite value")
		}
		return f, err
	}
	return nil, fmt.Errorf("unknown storage class %q", o.T)
}

func (o *Odd) bytes() ([]byte, error) {
	if o.B64 == nil {
		return nil, nil
	}
	return base64.StdEncoding.DecodeString(*o.B64)
}

// DecodeValue is the SQLite value of a column read from PostgreSQL: its
// Odd when it has one, else the typed value (int64, float64, string,
// []byte or nil, as pgx reads bigint, double precision, text and bytea).
func DecodeValue(t ColumnType, typed any, odd *Odd) (any, error) {
	if odd != nil {
		return odd.Value()
	}
	switch x := typed.(type) {
	case nil:
		return nil, nil
	case int64:
		if t == TypeInteger {
			return x, nil
		}
	case float64:
		if t == TypeReal {
			return x, nil
		}
	case string:
		if t == TypeText {
			return x, nil
		}
	case []byte:
		if t == TypeBlob {
			if x == nil {
				x = []byte{}
			}
			return x, nil
		}
	}
	return nil, fmt.Errorf("a %s column holds a value of Go type %T", t.SQL(), typed)
}

// OddJSON is the gavel_odd value of a row: nil (SQL NULL) when no column
// is odd.
func OddJSON(odd map[string]*Odd) ([]byte, error) {
	if len(odd) == 0 {
		return nil, nil
	}
	return json.Marshal(odd)
}

// ParseOdd reads a row's gavel_odd text ("" for NULL).
func ParseOdd(text string) (map[string]*Odd, error) {
	if text == "" {
		return nil, nil
	}
	var odd map[string]*Odd
	if err := json.Unmarshal([]byte(text), &odd); err != nil {
		return nil, fmt.Errorf("unreadable %s: %w", OddColumn, err)
	}
	return odd, nil
}
