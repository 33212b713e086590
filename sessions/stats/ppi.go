package stats

// benchmark estimates the score a human would give the judged units from
// the fair labelled pairs (rows: human, columns: judge) and judged[k], the
// number of judged units (labelled or not) whose verdict is category k.
// Placeholder until PPI++ lands: it gives the labels-only mean.
func benchmark(fair Confusion, judged []int, noFair string) Benchmark {
	b := Benchmark{Judged: sum(judged), Labelled: fair.N()}
	b.LabelsOnly = undefinedInterval("not computed yet")
	b.PPI = undefinedInterval("not computed yet")
	if noFair != "" {
		b.PPI.Reason = noFair
	}
	b.Lambda = undefined("not computed yet")
	b.EffectiveLabels = undefined("not computed yet")
	return b
}
