package pg_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/sessions/pg"
)

var columnTypes = []pg.ColumnType{pg.TypeText, pg.TypeInteger, pg.TypeReal, pg.TypeBlob}

// oddValues are SQLite values of every storage class, ordinary and odd.
var oddValues = []any{
	nil, int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
	0.0, math.Copysign(0, -1), 2.5, -1e-300, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, math.MaxFloat64,
	"", "plain", "ünïcödé ✓", "with\x00nul", "\x00", "bad\xff", "\xed\xa0\x80 surrogate", "\u202e\x1b[31m", `"quoted" \x00`,
	"\uFFFD\"looks like a stand-in\"",
	[]byte{}, []byte{0}, []byte("text as blob"), []byte{0xff, 0xfe},
}

// same reports whether two SQLite values are the same value of the same
// class, reals by their bits.
func same(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return a == b
}

// Every value, in a column of every type, comes back from its typed value
// and its Odd (through JSON) as the same value of the same class; a value
// the column holds as it is has no Odd; a text column always holds valid
// text, different for different odd values.
func TestOddValuesRoundTrip(t *testing.T) {
	for _, ct := range columnTypes {
		standins := map[string]any{}
		for _, v := range oddValues {
			typed, odd, err := pg.EncodeValue(ct, v)
			if err != nil {
				t.Fatalf("%s %#v: %v", ct.SQL(), v, err)
			}
			back := roundTripJSON(t, odd)
			got, err := pg.DecodeValue(ct, typed, back)
			if err != nil {
				t.Fatalf("%s %#v: %v", ct.SQL(), v, err)
			}
			if !same(v, got) {
				t.Errorf("%s: %#v came back as %#v", ct.SQL(), v, got)
			}
			if v == nil && (typed != nil || odd != nil) {
				t.Errorf("%s: NULL encoded as %#v, %#v", ct.SQL(), typed, odd)
			}
			if odd == nil && v != nil && !same(v, typed) {
				t.Errorf("%s: %#v typed as %#v without an odd entry", ct.SQL(), v, typed)
			}
			if ct == pg.TypeText && odd != nil {
				s, ok := typed.(string)
				if !ok || !utf8.ValidString(s) || strings.ContainsRune(s, 0) || !strings.HasPrefix(s, "\uFFFD") {
					t.Errorf("text column: odd %#v has stand-in %#v", v, typed)
				}
				if prev, dup := standins[s]; dup {
					t.Errorf("text column: %#v and %#v share the stand-in %q", prev, v, s)
				}
				standins[s] = v
			}
			if ct != pg.TypeText && odd != nil && typed != nil {
				t.Errorf("%s: odd %#v left %#v in the typed column", ct.SQL(), v, typed)
			}
		}
	}
	// The classes a column holds as they are.
	for _, c := range []struct {
		ct pg.ColumnType
		v  any
	}{{pg.TypeText, "plain"}, {pg.TypeInteger, int64(3)}, {pg.TypeReal, math.Copysign(0, -1)}, {pg.TypeBlob, []byte{0}}} {
		if _, odd, _ := pg.EncodeValue(c.ct, c.v); odd != nil {
			t.Errorf("%s: %#v is odd", c.ct.SQL(), c.v)
		}
	}
	if _, _, err := pg.EncodeValue(pg.TypeReal, math.NaN()); err == nil {
		t.Error("NaN encoded")
	}
	if _, err := pg.DecodeValue(pg.TypeInteger, "text", nil); err == nil {
		t.Error("a text in a bigint column decoded")
	}
	if _, err := pg.ParseOdd(`{"x": {"t": "integer", "v": "1"`); err == nil {
		t.Error("broken gavel_odd parsed")
	}
	bad := &pg.Odd{T: "date", V: "1"}
	if _, err := bad.Value(); err == nil {
		t.Error("unknown storage class read")
	}
}

func roundTripJSON(t testing.TB, odd *pg.Odd) *pg.Odd {
	t.Helper()
	if odd == nil {
		return nil
	}
	j, err := pg.OddJSON(map[string]*pg.Odd{"c": odd})
	if err != nil {
		t.Fatal(err)
	}
	back, err := pg.ParseOdd(string(j))
	if err != nil {
		t.Fatal(err)
	}
	return back["c"]
}

// FuzzOddValue: any text, blob, integer or real survives the encoding in a
// column of any type.
func FuzzOddValue(f *testing.F) {
	f.Add([]byte("a\x00b"), int64(1), uint64(0x8000000000000000), uint8(0))
	f.Add([]byte("\xff"), int64(-5), math.Float64bits(2.5), uint8(7))
	f.Fuzz(func(t *testing.T, b []byte, i int64, bits uint64, which uint8) {
		x := math.Float64frombits(bits)
		vals := []any{string(b), b, i}
		if !math.IsNaN(x) {
			vals = append(vals, x)
		}
		v := vals[int(which)%len(vals)]
		for _, ct := range columnTypes {
			typed, odd, err := pg.EncodeValue(ct, v)
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := typed.(string); ok && (!utf8.ValidString(s) || strings.ContainsRune(s, 0)) {
				t.Fatalf("%s: typed text %q PostgreSQL refuses", ct.SQL(), s)
			}
			if odd != nil {
				j, _ := pg.OddJSON(map[string]*pg.Odd{"c": odd})
				if bytes.Contains(j, []byte(`\u0000`)) || !json.Valid(j) {
					t.Fatalf("gavel_odd %s PostgreSQL's jsonb refuses", j)
				}
			}
			got, err := pg.DecodeValue(ct, typed, roundTripJSON(t, odd))
			if err != nil || !same(v, got) {
				t.Fatalf("%s: %#v came back as %#v (%v)", ct.SQL(), v, got, err)
			}
		}
	})
}

// The values go through a real PostgreSQL table and come back the same:
// reals by their bits (-0 and the infinities in double precision columns
// through pgx's binary protocol), texts and blobs byte for byte.
func TestOddValuesThroughPostgres(t *testing.T) {
	ctx := context.Background()
	st := connect(t)
	schema := st.Target().Schema
	tb := pg.Table{Name: "vals", Key: []string{"id"}, Serial: "id", Columns: []pg.Column{
		{Name: "id", Type: pg.TypeInteger}, {Name: "t", Type: pg.TypeText}, {Name: "i", Type: pg.TypeInteger},
		{Name: "r", Type: pg.TypeReal}, {Name: "b", Type: pg.TypeBlob}}}
	if _, err := st.Pool().Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range tb.CreateSQL(schema) {
		if _, err := st.Pool().Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var rows [][]any
	for k, v := range oddValues {
		row := []any{int64(k + 1)}
		odd := map[string]*pg.Odd{}
		for _, c := range tb.Columns[1:] {
			typed, o, err := pg.EncodeValue(c.Type, v)
			if err != nil {
				t.Fatal(err)
			}
			row = append(row, typed)
			if o != nil {
				odd[c.Name] = o
			}
		}
		j, err := pg.OddJSON(odd)
		if err != nil {
			t.Fatal(err)
		}
		var jv any
		if j != nil {
			jv = j
		}
		rows = append(rows, append(row, jv))
	}
	cols := []string{"id", "t", "i", "r", "b", pg.OddColumn}
	if _, err := st.Pool().CopyFrom(ctx, pgx.Identifier{schema, "vals"}, cols, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	res, err := st.Pool().Query(ctx, `SELECT `+tb.SelectList()+` FROM `+pgx.Identifier{schema, "vals"}.Sanitize()+` ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	k := 0
	for res.Next() {
		raw, err := res.Values()
		if err != nil {
			t.Fatal(err)
		}
		out := make([]any, len(tb.Columns))
		if err := tb.DecodeRow(raw, out); err != nil {
			t.Fatal(err)
		}
		for j, got := range out[1:] {
			if !same(oddValues[k], got) {
				t.Errorf("%s column: %#v came back as %#v", tb.Columns[j+1].Type.SQL(), oddValues[k], got)
			}
		}
		k++
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if k != len(oddValues) {
		t.Fatalf("%d rows back, %d written", k, len(oddValues))
	}
	// The sequence gives the ids after the largest.
	var next int64
	if _, err := st.Pool().Exec(ctx, fmt.Sprintf(`SELECT setval('%s.vals_id_seq', %d)`, schema, k)); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `INSERT INTO `+pgx.Identifier{schema, "vals"}.Sanitize()+` (t) VALUES ('new') RETURNING id`).Scan(&next); err != nil || next != int64(k+1) {
		t.Errorf("new id %d (%v), want %d", next, err, k+1)
	}
}
