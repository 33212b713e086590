package llm

import "github.com/gavel-dev/gavel/judge"

// unswapVerdict puts a swapped task's verdict in the original A/B terms:
// the model saw response B in the A slot, so its A is the item's B. The
// values of pairwise dimensions are mapped back (A ↔ B, a tie stays), and
// so are those of every sample kept in Extra, so that nothing stored
// speaks of the swapped order but the model's own words (Reason, Raw:
// there "A" is the response shown first, which Swapped says was B).
func unswapVerdict(v *judge.Verdict, dims []judge.Dimension) {
	v.Swapped = true
	judge.UnswapValues(dims, v.Values)
	if samples, ok := v.Extra[ExtraSamples].([]any); ok {
		for _, s := range samples {
			rec, _ := s.(map[string]any)
			vals, _ := rec["values"].(map[string]any)
			for _, d := range dims {
				if x, ok := vals[d.Name].(float64); ok && d.Scale.Kind() == judge.KindPairwise {
					vals[d.Name] = judge.Unswap(x)
				}
			}
		}
	}
}
