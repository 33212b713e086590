package sessions

import (
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// Values are stored by scale (schema v3): the number on binary and ordinal
// scales, the category's name on nominal and pairwise ones, so that a
// session read with any SQLite tool says "A", "tie" or "NOT_ATTEMPTED"
// rather than a position only Gavel knows. In Go a value is the scale's
// float64 code (judge.Scale); valueCodec converts at the store's edge.
//
// A dimension has one categorical scale per session, recorded in
// dimension_scales when a run or an import first uses it: labels carry only
// a dimension name, and this is how they are read back. The two pairwise
// scales (with and without tie) share their names, so they share an entry.

// valueCodec converts values of a session's dimensions.
type valueCodec struct {
	scales map[string]judge.Scale // categorical dimensions only
}

// loadCodec reads the session's categorical dimensions.
func loadCodec(tx *sql.Tx) (*valueCodec, error) {
	c := &valueCodec{scales: map[string]judge.Scale{}}
	rows, err := tx.Query(`SELECT dimension, scale FROM dimension_scales`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var dim, scale string
		if err := rows.Scan(&dim, &scale); err != nil {
			return nil, err
		}
		c.scales[dim] = judge.Scale(scale)
	}
	return c, rows.Err()
}

// encode is the stored form of dimension dim's value v.
func (c *valueCodec) encode(dim string, v float64) any {
	if s, ok := c.scales[dim]; ok {
		if x, ok := s.Encode(v); ok {
			return x
		}
	}
	return v
}

// decode reads a stored value of dimension dim; ok is false for NULL or a
// value its scale cannot read (which then counts as no value).
func (c *valueCodec) decode(dim string, raw any) (float64, bool) {
	if raw == nil {
		return 0, false
	}
	if s, ok := c.scales[dim]; ok {
		if v, ok := s.Decode(raw); ok {
			return v, true
		}
		// A code written before the dimension was registered.
		if f, ok := raw.(float64); ok && s.Valid(f) {
			return f, true
		}
		return 0, false
	}
	switch t := raw.(type) {
	case float64:
		return t, !math.IsNaN(t)
	case int64:
		return float64(t), true
	}
	return 0, false
}

// registryScale is the scale a categorical dimension is registered under:
// the pairwise scales share one entry.
func registryScale(s judge.Scale) judge.Scale {
	if s.Kind() == judge.KindPairwise {
		return judge.Pairwise
	}
	return s
}

// declareScales records the categorical dimensions among dims, refusing a
// dimension already registered on another categorical scale: its stored
// names would be read with the wrong categories.
func declareScales(tx *sql.Tx, dims []judge.Dimension) error {
	for _, d := range dims {
		if !d.Scale.Categorical() {
			continue
		}
		want := registryScale(d.Scale)
		var have string
		err := tx.QueryRow(`SELECT scale FROM dimension_scales WHERE dimension = ?`, d.Name).Scan(&have)
		switch {
		case err == sql.ErrNoRows:
			if _, err := tx.Exec(`INSERT INTO dimension_scales (dimension, scale) VALUES (?, ?)`, d.Name, string(want)); err != nil {
				return err
			}
		case err != nil:
			return err
		case judge.Scale(have) != want:
			return fmt.Errorf("dimension %q is on the scale %s in this session, not %s: give the new one another dimension name",
				d.Name, have, d.Scale)
		}
	}
	return nil
}

// DeclareScales records the scales of dimensions that labels will use
// without a judge run that has them (an imported human column): values on
// a nominal or pairwise scale are stored by name and read back through it.
func (s *Store) DeclareScales(dims []judge.Dimension) error {
	return s.write("recording the dimensions' scales", func(tx *sql.Tx) error {
		return declareScales(tx, dims)
	})
}

// declaredScales lists the session's dimensions stored by name, with
// their scales (what DeclareScales and EnsureRun recorded).
func (s *Store) declaredScales() ([]judge.Dimension, error) {
	var out []judge.Dimension
	err := s.read("reading the dimensions' scales", func(tx *sql.Tx) error {
		c, err := loadCodec(tx)
		if err != nil {
			return err
		}
		for name, sc := range c.scales {
			out = append(out, judge.Dimension{Name: name, Scale: sc})
		}
		return nil
	})
	slices.SortFunc(out, func(a, b judge.Dimension) int { return strings.Compare(a.Name, b.Name) })
	return out, err
}
