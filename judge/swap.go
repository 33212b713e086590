package judge

// Shown returns the two responses of a pairwise task in the order the
// judge is shown them: A then B, or B then A for a swapped task. Prompts
// put first in the slot labelled A and second in the one labelled B, so
// that the judge's "A" means whatever stood first.
func (t Task) Shown() (first, second string) {
	if t.Swapped {
		return t.Item.ResponseB, t.Item.ResponseA
	}
	return t.Item.ResponseA, t.Item.ResponseB
}

// Unswap turns a preference given with the responses shown in the other
// order into the original A/B terms: A and B trade places, a tie stays a
// tie. With A = 0, tie = 0.5 and B = 1 that is 1 − v; a value off the
// pairwise scale is returned unchanged, never invented.
func Unswap(v float64) float64 {
	switch v {
	case PreferA:
		return PreferB
	case PreferB:
		return PreferA
	}
	return v
}

// UnswapValues rewrites, in place, the values of a verdict made on a
// swapped task in the original A/B terms: those of pairwise dimensions.
// The values of other dimensions (a confidence rating beside the
// preference, say) do not depend on the order and are left alone.
func UnswapValues(dims []Dimension, values map[string]float64) {
	for _, d := range dims {
		if d.Scale.Kind() != KindPairwise {
			continue
		}
		if x, ok := values[d.Name]; ok {
			values[d.Name] = Unswap(x)
		}
	}
}
