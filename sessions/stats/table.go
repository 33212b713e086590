package stats

import (
	"cmp"
	"slices"
)

// judgeTable is one row per judge and dimension with its figures against
// the humans over the judge's whole dataset, ranked by Cohen's kappa
// (highest first), then by n (largest first); rows whose kappa is
// undefined come last. Ties keep the report's judge order.
func judgeTable(judges []JudgeReport) []JudgeRow {
	rows := []JudgeRow{}
	for _, j := range judges {
		for _, d := range j.Dimensions {
			a := d.Overall.VsHumans
			row := JudgeRow{
				Judge: j.Judge, Dimension: d.Dimension, Scale: d.Scale, N: a.N,
				PercentAgreement: a.PercentAgreement, CohenKappa: a.CohenKappa, GwetAC1: a.GwetAC1,
				ScoreBias: a.ScoreBias, SmallSample: a.SmallSample,
				FalsePassRate: undefinedInterval("not a binary scale"),
			}
			row.FalseFailRate = row.FalsePassRate
			if b := a.Binary; b != nil {
				row.FalsePassRate, row.FalseFailRate = b.FalsePassRate, b.FalseFailRate
			}
			rows = append(rows, row)
		}
	}
	slices.SortStableFunc(rows, func(a, b JudgeRow) int {
		ak, bk := a.CohenKappa.Defined(), b.CohenKappa.Defined()
		switch {
		case ak && !bk:
			return -1
		case !ak && bk:
			return 1
		case ak && bk && a.CohenKappa.Value != b.CohenKappa.Value:
			return cmp.Compare(b.CohenKappa.Value, a.CohenKappa.Value)
		}
		return cmp.Compare(b.N, a.N)
	})
	for i := range rows {
		rows[i].Rank = i + 1
	}
	return rows
}
