package stats

// planAnnotators lists the annotators who labelled a plan unit following
// the plan at some time (PlanUnit.PlanAnnotators, once the input carries
// it).
func planAnnotators(pu *PlanUnit) []string { return nil }
