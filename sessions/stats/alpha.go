package stats

import (
	"slices"
)

// Level is the level of measurement Krippendorff's alpha assumes, which
// sets how far apart two different values are.
type Level int

const (
	// Nominal: any two different values disagree equally.
	Nominal Level = iota
	// Ordinal: values are ranked; the distance between two values grows
	// with how many ratings fall between them.
	Ordinal
	// IntervalLevel: the distance is the squared difference of the values.
	IntervalLevel
	// Ratio: the distance is the squared difference over the squared sum,
	// ((c−k)/(c+k))², for values measured from a true zero (Krippendorff
	// 2011, "Computing Krippendorff's Alpha-Reliability", ratio metric).
	Ratio
)

// String names the level as Krippendorff does.
func (l Level) String() string {
	switch l {
	case Nominal:
		return "nominal"
	case Ordinal:
		return "ordinal"
	case IntervalLevel:
		return "interval"
	case Ratio:
		return "ratio"
	}
	return "unknown"
}

// KrippendorffAlpha computes Krippendorff's alpha from reliability data:
// data[o][u] is observer o's value for unit u, NaN where the observer gave
// none. Observers may differ in how many units they rated; units with
// fewer than two values are not pairable and are ignored, as in
// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability".
// Undefined when fewer than two pairable values remain or when every
// pairable value is the same (no variation to disagree about).
func KrippendorffAlpha(data [][]float64, level Level) Estimate {
	var vals []float64
	units := 0
	for _, row := range data {
		units = max(units, len(row))
		for _, v := range row {
			if finite(v) {
				vals = append(vals, v)
			}
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	m := newCoincidence(vals)
	counts := make([]int, len(vals))
	for u := range units {
		clear(counts)
		for _, row := range data {
			if u < len(row) && finite(row[u]) {
				i, _ := slices.BinarySearch(vals, row[u])
				counts[i]++
			}
		}
		m.addUnit(counts)
	}
	return m.alpha(level)
}

// KrippendorffAlpha is alpha for the two raters of the table, each pair a
// unit with no missing values.
func (c Confusion) KrippendorffAlpha(level Level) Estimate {
	m := newCoincidence(c.Categories)
	for r, row := range c.Counts {
		for j, x := range row {
			// A unit with values (a, b) adds 1/(2−1) to o[a][b] and o[b][a].
			m.o[r][j] += float64(x)
			m.o[j][r] += float64(x)
		}
	}
	return m.alpha(level)
}

// coincidence is Krippendorff's coincidence matrix over sorted categories.
type coincidence struct {
	cats []float64
	o    [][]float64
}

func newCoincidence(cats []float64) *coincidence {
	o := make([][]float64, len(cats))
	for i := range o {
		o[i] = make([]float64, len(cats))
	}
	return &coincidence{cats: cats, o: o}
}

// addUnit adds one unit given how many of its values fall in each category.
func (m *coincidence) addUnit(counts []int) {
	mu := 0
	for _, x := range counts {
		mu += x
	}
	if mu < 2 {
		return
	}
	w := 1 / float64(mu-1)
	for c, x := range counts {
		if x == 0 {
			continue
		}
		for k, y := range counts {
			if c == k {
				y--
			}
			m.o[c][k] += float64(x*y) * w
		}
	}
}

func (m *coincidence) alpha(level Level) Estimate {
	q := len(m.cats)
	nc := make([]float64, q)
	n := 0.0
	for c := range q {
		for k := range q {
			nc[c] += m.o[c][k]
		}
		n += nc[c]
	}
	if n < 2 {
		return undefined("fewer than two pairable values")
	}
	// cum[i] is the number of pairable values in categories below i, for
	// the ordinal distance.
	cum := make([]float64, q+1)
	for i := range q {
		cum[i+1] = cum[i] + nc[i]
	}
	dist := func(c, k int) float64 {
		switch level {
		case Ordinal:
			lo, hi := min(c, k), max(c, k)
			d := cum[hi+1] - cum[lo] - (nc[c]+nc[k])/2
			return d * d
		case IntervalLevel:
			d := m.cats[c] - m.cats[k]
			return d * d
		case Ratio:
			sum := m.cats[c] + m.cats[k]
			if sum == 0 {
				return 0
			}
			d := (m.cats[c] - m.cats[k]) / sum
			return d * d
		}
		return 1
	}
	obs, exp := 0.0, 0.0
	for c := range q {
		for k := range q {
			if c == k {
				continue
			}
			d := dist(c, k)
			obs += m.o[c][k] * d
			exp += nc[c] * nc[k] * d
		}
	}
	if exp == 0 {
		return undefined("every pairable value is the same, so there is no variation to agree on")
	}
	return defined(1 - (n-1)*obs/exp)
}
