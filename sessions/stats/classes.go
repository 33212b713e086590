package stats

// ClassAgreement reads a judge on a scale of named categories (nominal,
// or a pairwise A / tie / B) as a classifier, class by class, with the
// reference (the humans, or the second judge of a pair) as the truth.
// Kappa and AC1 say how far the two agree overall; these say where they
// part: a judge that never says "tie", or calls every answer CORRECT.
type ClassAgreement struct {
	// PerClass holds every category of the scale, in the scale's order,
	// used or not.
	PerClass []ClassFigures `json:"per_class"`
	// MacroClasses is how many categories the macro averages are over:
	// those that occur on either side (scikit-learn's default labels). A
	// category neither side used has no figures to average.
	MacroClasses int `json:"macro_classes"`
	// MacroPrecision, MacroRecall and MacroF1 are the unweighted means of
	// the per-class figures over those categories, an undefined precision
	// or recall counting as 0 (scikit-learn's zero_division=0): a class
	// the judge never predicts is a class it never gets right.
	MacroPrecision Estimate `json:"macro_precision"`
	MacroRecall    Estimate `json:"macro_recall"`
	MacroF1        Estimate `json:"macro_f1"`
}

// ClassFigures is one category read as the positive class.
type ClassFigures struct {
	// Category is the category's name on the scale ("A", "tie", "CORRECT").
	Category string `json:"category"`
	// Support is how many items the reference put in the category;
	// Predicted how many the judge did.
	Support   int `json:"support"`
	Predicted int `json:"predicted"`
	// Precision = TP / Predicted and Recall = TP / Support, with Wilson
	// 95 % intervals.
	Precision Interval `json:"precision"`
	Recall    Interval `json:"recall"`
	// F1 = 2TP / (Support + Predicted).
	F1 Estimate `json:"f1"`
}

// Classes returns the per-class and macro figures of the table; names
// gives each category's name, in the order of Categories (missing names
// are left empty).
func (c Confusion) Classes(names []string) ClassAgreement {
	ref, judge := c.marginals()
	out := ClassAgreement{PerClass: make([]ClassFigures, c.k())}
	var sp, sr, sf float64
	for k := range c.Categories {
		name := ""
		if k < len(names) {
			name = names[k]
		}
		tp, support, predicted := c.Counts[k][k], int(ref[k]), int(judge[k])
		f := ClassFigures{
			Category:  name,
			Support:   support,
			Predicted: predicted,
			Precision: withReason(Wilson(tp, predicted), "the judge never chose "+quoteName(name)),
			Recall:    withReason(Wilson(tp, support), "the reference never chose "+quoteName(name)),
			F1:        ratio(float64(2*tp), float64(support+predicted), "neither side chose "+quoteName(name)),
		}
		out.PerClass[k] = f
		if support+predicted == 0 {
			continue
		}
		out.MacroClasses++
		sp += zeroIfUndefined(f.Precision.Value)
		sr += zeroIfUndefined(f.Recall.Value)
		sf += zeroIfUndefined(f.F1.Value)
	}
	m := float64(out.MacroClasses)
	out.MacroPrecision = ratio(sp, m, reasonNoItems)
	out.MacroRecall = ratio(sr, m, reasonNoItems)
	out.MacroF1 = ratio(sf, m, reasonNoItems)
	return out
}

func zeroIfUndefined(v float64) float64 {
	if !finite(v) {
		return 0
	}
	return v
}

// quoteName is a category's name in a reason, or "it" when unnamed.
func quoteName(name string) string {
	if name == "" {
		return "it"
	}
	return name
}
