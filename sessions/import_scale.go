package sessions

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// ImportScales say which scale imported value columns are on (gavel
// import --scale): one for every column, and one per column. A column
// named in Columns takes that scale; the others take All; with neither,
// the scale is inferred from the values where that is unambiguous
// (inferColumn) and the column is reported otherwise.
type ImportScales struct {
	All     judge.Scale
	Columns map[string]judge.Scale
}

// For is the scale given for a column, "" when none is.
func (s ImportScales) For(column string) judge.Scale {
	if sc, ok := s.Columns[column]; ok {
		return sc
	}
	return s.All
}

// Empty reports whether no scale is given.
func (s ImportScales) Empty() bool { return s.All == "" && len(s.Columns) == 0 }

// ParseImportScales reads --scale arguments: "SCALE" for every value
// column, "COLUMN=SCALE" for one. A scale's spelling holds no "=", so the
// last "=" splits, and a column whose name holds one still works.
func ParseImportScales(args []string) (ImportScales, error) {
	var out ImportScales
	for _, arg := range args {
		text := strings.TrimSpace(arg)
		col, spec, named := "", text, false
		if i := strings.LastIndexByte(text, '='); i >= 0 {
			col, spec, named = strings.TrimSpace(text[:i]), text[i+1:], true
		}
		if named && strings.Contains(col, "=") && strings.Contains(col, ",") {
			return out, fmt.Errorf("--scale %s: one column per --scale; repeat the flag for each (--scale COLUMN=SCALE --scale COLUMN2=SCALE2)", arg)
		}
		if named && col == "" {
			return out, fmt.Errorf("--scale %s: no column before '=': write --scale COLUMN=SCALE for one column, or --scale SCALE for every one", arg)
		}
		s, err := judge.ParseScale(spec)
		if err != nil {
			msg := err.Error()
			if !named {
				msg += "; for one column write --scale COLUMN=SCALE"
			}
			return out, fmt.Errorf("--%s", msg)
		}
		if !named {
			if out.All != "" && out.All != s {
				return out, fmt.Errorf("--scale %s and --scale %s: give one scale for every column, and COLUMN=SCALE for the columns on another", out.All, s)
			}
			out.All = s
			continue
		}
		if prev, seen := out.Columns[col]; seen && prev != s {
			return out, fmt.Errorf("--scale %s=%s and --scale %s=%s: a column has one scale; keep one", col, prev, col, s)
		}
		if out.Columns == nil {
			out.Columns = map[string]judge.Scale{}
		}
		out.Columns[col] = s
	}
	return out, nil
}

// CheckImportScales refuses a --scale COLUMN=SCALE whose column is no
// value column of ds (nor, in a file written by gavel export, a
// dimension's name), and one given to a swapped column on another scale
// than its verdict column's: the two orders of one judgment are on one
// scale.
func CheckImportScales(ds *dataset.Dataset, s ImportScales) error {
	if len(s.Columns) == 0 {
		return nil
	}
	kinds := map[string]dataset.ImportedColumn{}
	var names []string
	for _, c := range ds.Imported {
		kinds[c.Field] = c
		if c.Role == dataset.RoleVerdict || c.Role == dataset.RoleHuman {
			names = append(names, shellWord(c.Field))
		}
	}
	for _, d := range exportedDimensions(ds) {
		if _, taken := kinds[d]; !taken {
			kinds[d] = dataset.ImportedColumn{Role: dataset.RoleVerdict, Field: d}
			names = append(names, shellWord(d))
		}
	}
	cols := make([]string, 0, len(s.Columns))
	for c := range s.Columns {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, col := range cols {
		c, ok := kinds[col]
		switch {
		case !ok || c.Role == dataset.RoleReason:
			if len(names) == 0 {
				return fmt.Errorf("--scale %s=%s: %s has no verdict or human column to read; name them with --map verdict=COLUMN,human=COLUMN", shellWord(col), s.Columns[col], ds.Name)
			}
			return fmt.Errorf("--scale %s=%s: %s is no verdict or human column of %s; they are %s", shellWord(col), s.Columns[col], shellWord(col), ds.Name, strings.Join(names, ", "))
		case c.Role == dataset.RoleSwapped && s.For(c.Of) != s.Columns[col]:
			return fmt.Errorf("--scale %s=%s: %s holds the swapped order of %s, so it is on %s's scale (%s): give the scale for %s alone",
				shellWord(col), s.Columns[col], shellWord(col), shellWord(c.Of), shellWord(c.Of), orNone(s.For(c.Of)), shellWord(c.Of))
		}
	}
	return nil
}

func orNone(s judge.Scale) string {
	if s == "" {
		return "none given"
	}
	return string(s)
}

// shellWord writes a column name as it can be typed in a shell: quoted
// when it holds anything but letters, digits and _-.:/+@=,.
func shellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.:/+@=,", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	if s == "" {
		return "''"
	}
	return s
}

// exportedDimensions lists the dimensions of a file written by gavel
// export, from its first row (every row has every column); nil for any
// other file.
func exportedDimensions(ds *dataset.Dataset) []string {
	if len(ds.Items) == 0 {
		return nil
	}
	fields, ok := exportFields(ds.Items[0].Fields)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range fields {
		c, ok := parseExportColumn(f.name)
		if ok && (c.kind == prefixVerdict || c.kind == prefixSwapped || c.kind == prefixLabel) && !slices.Contains(out, c.dim) {
			out = append(out, c.dim)
		}
	}
	return out
}
