package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/sessions"
)

// judgeCandidate is a run --judge may name: its label as `gavel stats`
// shows it (sessions.RunNames: "docqa · gpt-4o", "imported · GPT-4",
// "docqa@2 · gpt-4o"), its variant (sessions.Variants: "docqa@2"), its
// judge's name and its model.
type judgeCandidate struct {
	label, variant, name, model string
}

// afterDot is the part of a label after " · ": the model, or the column
// of an imported run; "" for a label without a model.
func (c judgeCandidate) afterDot() string {
	_, after, ok := strings.Cut(c.label, " · ")
	if !ok {
		return ""
	}
	return after
}

// judgeCandidates lists the runs in session order as candidates, keeping
// only those whose label is in allowed (every run when allowed is nil).
func judgeCandidates(runs []sessions.Run, allowed []string) []judgeCandidate {
	names := sessions.RunNames(runs)
	variants := sessions.Variants(runs)
	var out []judgeCandidate
	for _, r := range runs {
		label := names[r.ID]
		if allowed != nil && !slices.Contains(allowed, label) {
			continue
		}
		if slices.ContainsFunc(out, func(c judgeCandidate) bool { return c.label == label }) {
			continue
		}
		out = append(out, judgeCandidate{label: label, variant: variants[r.ID], name: r.Info.Name, model: r.Info.Model})
	}
	return out
}

// findJudge finds the run want names among cands: a label exactly as
// shown wins; else a label ignoring case; else the run's variant ignoring
// case ("docqa@2": the second run of docqa, sessions.Variants); else,
// ignoring case, the name after " · " (the model, or an imported run's
// column: "GPT-4" finds "imported · GPT-4" and not "imported · GPT-4
// Turbo") or the judge's name. It returns the one label found, or every label that matched when
// there are several (label is then ""), or neither.
func findJudge(cands []judgeCandidate, want string) (label string, several []string) {
	want = strings.TrimSpace(want)
	if want == "" {
		return "", nil
	}
	for _, c := range cands {
		if c.label == want {
			return c.label, nil
		}
	}
	tiers := []func(c judgeCandidate) bool{
		func(c judgeCandidate) bool { return strings.EqualFold(c.label, want) },
		func(c judgeCandidate) bool { return c.variant != "" && strings.EqualFold(c.variant, want) },
		func(c judgeCandidate) bool {
			return c.model != "" && strings.EqualFold(c.model, want) ||
				c.afterDot() != "" && strings.EqualFold(c.afterDot(), want) ||
				strings.EqualFold(c.name, want)
		},
	}
	for _, match := range tiers {
		var found []string
		for _, c := range cands {
			if match(c) && !slices.Contains(found, c.label) {
				found = append(found, c.label)
			}
		}
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			return "", found
		}
	}
	return "", nil
}

// matchJudge resolves --judge want in the session at path, whose runs
// are runs, to one run's label, as `gavel stats --judge` and `gavel
// export --judge` do. allowed limits the runs to those labels (nil: every
// run). Several matches, or none, are a usage error that lists the labels
// to choose from.
func matchJudge(runs []sessions.Run, allowed []string, want, path string) (string, error) {
	cands := judgeCandidates(runs, allowed)
	label, several := findJudge(cands, want)
	switch {
	case label != "":
		return label, nil
	case len(several) > 0:
		return "", usagef("--judge %q matches %d judges in %s: %s; pass the full label, e.g. --judge %q",
			want, len(several), path, strings.Join(quoteAll(several), ", "), several[0])
	case len(cands) == 0:
		return "", usagef("no judge %q in %s: it has no judge yet", want, path)
	}
	labels := make([]string, len(cands))
	for i, c := range cands {
		labels[i] = c.label
	}
	return "", usagef("no judge %q in %s: its judges are %s", want, path, strings.Join(quoteAll(labels), ", "))
}

// quoteAll quotes every string, for a list in a message.
func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
