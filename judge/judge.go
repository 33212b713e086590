package judge

import "context"

// Info describes a judge: what it rates and what identifies one run of it.
// Two runs with the same Name, Model and Params are the same run, so their
// verdicts are comparable and cacheable.
type Info struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Dimensions  []Dimension `json:"dimensions"`
	// PerCriterion judges rate each rubric criterion of an item on its own
	// (one verdict per criterion); the others rate the whole item.
	PerCriterion bool `json:"per_criterion,omitempty"`
	// Model is the model the judge calls; empty for offline judges.
	Model string `json:"model,omitempty"`
	// Params are the settings that change what the judge answers
	// (temperature, max tokens, samples…). Never credentials.
	Params map[string]any `json:"params,omitempty"`
	// Definition is the judge's whole definition as a judge file (YAML)
	// says it: a custom judge's file as written, a built-in's exported
	// file (gavel judges NAME --save). Sessions keep it with the run, so a
	// variant's prompt can be read back and edited; empty for judges that
	// have none (match, imported verdicts).
	Definition string `json:"-"`
}

// Dimension returns the named dimension and whether the judge has it.
func (i Info) Dimension(name string) (Dimension, bool) {
	for _, d := range i.Dimensions {
		if d.Name == name {
			return d, true
		}
	}
	return Dimension{}, false
}

// Judge rates tasks. Judge must be safe for concurrent use: a Pool calls it
// from several goroutines. It never returns an error: failures become
// verdicts with a parse_error or api_error status, so no item is dropped.
// It must return promptly when ctx is cancelled.
type Judge interface {
	Info() Info
	Judge(ctx context.Context, t Task) Verdict
}

// Tasks returns the units of work a judge has for an item: one per rubric
// criterion for per-criterion judges (none if the item has no rubric), else
// one for the whole item.
func Tasks(info Info, it Item) []Task {
	if !info.PerCriterion {
		return []Task{{Item: it}}
	}
	ts := make([]Task, len(it.Rubric))
	for k := range it.Rubric {
		ts[k] = Task{Item: it, Criterion: k + 1}
	}
	return ts
}

// Prefers reports whether the judge states a preference between two
// responses: one of its dimensions is on a pairwise scale. Only such a
// judge has a second order to judge a pair in (see SwapTasks).
func (i Info) Prefers() bool {
	for _, d := range i.Dimensions {
		if d.Scale.Kind() == KindPairwise {
			return true
		}
	}
	return false
}

// SwapTasks returns the swapped-order twins of Tasks(info, it): the same
// tasks with the pair's responses shown B first, for the position-bias
// audit. There are none unless the judge states a preference and the item
// holds a pair: swapping what a judge never compares would only judge the
// same prompt twice.
func SwapTasks(info Info, it Item) []Task {
	if !info.Prefers() || !it.Pairwise() {
		return nil
	}
	ts := Tasks(info, it)
	for k := range ts {
		ts[k].Swapped = true
	}
	return ts
}

// TasksFor is Tasks, followed with swap by SwapTasks: every unit of work
// a run has for an item when it judges pairs in both orders.
func TasksFor(info Info, it Item, swap bool) []Task {
	ts := Tasks(info, it)
	if swap {
		ts = append(ts, SwapTasks(info, it)...)
	}
	return ts
}
