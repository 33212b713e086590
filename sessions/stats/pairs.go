package stats

import "fmt"

// Pair is one unit as a judge's agreement with the humans counts it on a
// dimension: the judge's value and the humans' reference value (the
// single label, or the annotators' majority).
type Pair struct {
	// Unit is the unit's index in Input.Units.
	Unit  int
	Judge float64
	Human float64
}

// Pairs returns, for each dimension of the judge (in its order), every
// unit its agreement with the humans counts, with the two values compared,
// in unit order: exactly the units and values behind the confusion matrix
// Compute reports with the same options — a pair answered differently in
// its two orders is a tie under SwapDisagreeAsTie, a binary judge's parse
// error is NO under ParseErrorsFail, a truncated verdict counts under
// IncludeTruncated. Reports that list disagreements or draw agreement as
// labels accumulate read these pairs rather than pairing verdicts and
// labels again, so that they cannot disagree with the figures.
func Pairs(in Input, judgeKey string, opts Options) ([][]Pair, error) {
	c := &computation{in: &in, opts: opts.withDefaults(), scopes: map[bool]*scope{}, humans: map[dimKey]*humanDim{}}
	var spec *JudgeSpec
	judges := c.judges()
	for i := range judges {
		if judges[i].Key == judgeKey {
			spec = &judges[i]
		}
	}
	if spec == nil {
		return nil, fmt.Errorf("no judge %q in the input", judgeKey)
	}
	sc := c.scopeOf(spec.PerCriterion)
	dims := c.judgeDims(*spec, &c.notes)
	out := make([][]Pair, len(dims))
	for d, jd := range dims {
		// Only the reference labels are read: no bootstrap of the
		// annotators' agreement (as Compare and References do).
		h := buildHumansWith(c.in, jd.key, &c.notes, 0, 0)
		vals := jd.key.scale.Values()
		for _, u := range sc.units {
			ref := h.ref[u]
			if ref < 0 || jd.vsState[u] != stOK {
				continue
			}
			out[d] = append(out[d], Pair{Unit: int(u), Judge: vals[jd.vsCode[u]], Human: vals[ref]})
		}
	}
	return out, nil
}
