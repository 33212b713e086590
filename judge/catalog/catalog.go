// Package catalog lists the judges Gavel can run — the offline match
// judge, the built-in LLM judges and custom judges from files — and builds
// one by name. It is what `gavel judges` prints and what --judge looks up.
package catalog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/match"
)

// Entry describes a judge before it is built.
type Entry struct {
	Name        string
	Description string
	Dimensions  []judge.Dimension
	// PerCriterion judges give one verdict per rubric criterion.
	PerCriterion bool
	// NeedsModel is true for judges that call an LLM.
	NeedsModel bool
	// Inputs are the item fields the judge reads.
	Inputs []string
	// Prompt is the prompt text, "" for offline judges.
	Prompt string
	// Source says where the judge comes from: "built-in" or a file path.
	Source string
	build  func() (judge.Judge, error)
}

// Builtins lists the judges that ship with Gavel.
func Builtins() []Entry {
	m := match.New().Info()
	return []Entry{{
		Name:        m.Name,
		Description: m.Description,
		Dimensions:  m.Dimensions,
		Inputs:      []string{"question", "gold", "prediction"},
		Source:      "built-in",
		build:       func() (judge.Judge, error) { return match.New(), nil },
	}}
}

// Find returns the entry named name, or an error that lists every name.
func Find(name string, entries []Entry) (Entry, error) {
	for _, e := range entries {
		if e.Name == name {
			return e, nil
		}
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	sort.Strings(names)
	return Entry{}, fmt.Errorf("there is no judge called %q: choose one of %s (see `gavel judges`)", name, strings.Join(names, ", "))
}

// Build makes the judge.
func (e Entry) Build() (judge.Judge, error) { return e.build() }
