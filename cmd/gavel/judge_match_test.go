package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// matchRuns are runs as an import of a file with several judge columns,
// two runs of docqa, two of match, and a judge named like a model.
func matchRuns() []sessions.Run {
	info := func(name, model string) judge.Info { return judge.Info{Name: name, Model: model} }
	infos := []judge.Info{
		info("imported", "GPT-4"),
		info("imported", "GPT-4 Turbo"),
		info("imported", "Llama-70B"),
		info("imported", "Llama3-70B"),
		info("docqa", "gpt-4o"),
		info("docqa", "llama3"),
		info("match", ""),
		info("match", ""),
		info("gpt-4o-mini", ""),
		info("scorer", "gpt-4o-mini"),
		info("Case", "x"),
		info("case", "X"),
	}
	runs := make([]sessions.Run, len(infos))
	for i, in := range infos {
		runs[i] = sessions.Run{ID: int64(i + 1), Info: in}
	}
	return runs
}

func TestFindJudge(t *testing.T) {
	cands := judgeCandidates(matchRuns(), nil)
	var labels []string
	for _, c := range cands {
		labels = append(labels, c.label)
	}
	if want := []string{"imported · GPT-4", "imported · GPT-4 Turbo", "imported · Llama-70B", "imported · Llama3-70B",
		"docqa · gpt-4o", "docqa · llama3", "match@1", "match@2", "gpt-4o-mini", "scorer · gpt-4o-mini", "Case · x", "case · X"}; !slices.Equal(labels, want) {
		t.Fatalf("labels %q, want %q", labels, want)
	}
	tests := []struct {
		want    string
		label   string   // the one match
		several []string // or the matches listed
	}{
		// The full label, as shown, in any case.
		{want: "imported · GPT-4", label: "imported · GPT-4"},
		{want: "IMPORTED · gpt-4 turbo", label: "imported · GPT-4 Turbo"},
		{want: "  docqa · gpt-4o ", label: "docqa · gpt-4o"},
		{want: "match@2", label: "match@2"},
		{want: "MATCH@1", label: "match@1"},
		// A run's variant (NAME@K, K counting the runs of that name in id
		// order), ignoring case, also when its label has no "@".
		{want: "docqa@2", label: "docqa · llama3"},
		{want: "DocQA@1", label: "docqa · gpt-4o"},
		{want: "imported@3", label: "imported · Llama-70B"},
		{want: " scorer@1 ", label: "scorer · gpt-4o-mini"},
		{want: "case@1", several: []string{"Case · x", "case · X"}},
		{want: "docqa@3"},
		{want: "docqa@0"},
		{want: "docqa@"},
		// The name after " · ", whole and ignoring case: no prefix match.
		{want: "GPT-4", label: "imported · GPT-4"},
		{want: "gpt-4", label: "imported · GPT-4"},
		{want: "gpt-4 TURBO", label: "imported · GPT-4 Turbo"},
		{want: "llama-70b", label: "imported · Llama-70B"},
		{want: "Llama3-70B", label: "imported · Llama3-70B"},
		{want: "llama3", label: "docqa · llama3"},
		{want: "GPT-4o", label: "docqa · gpt-4o"},
		// The judge's name, when one run has it.
		{want: "Scorer", label: "scorer · gpt-4o-mini"},
		// A label wins over a model of the same text.
		{want: "gpt-4o-mini", label: "gpt-4o-mini"},
		// Exact label wins over a case-insensitive one.
		{want: "case · X", label: "case · X"},
		{want: "Case · x", label: "Case · x"},
		// Several matches are listed.
		{want: "CASE · x", several: []string{"Case · x", "case · X"}},
		{want: "imported", several: []string{"imported · GPT-4", "imported · GPT-4 Turbo", "imported · Llama-70B", "imported · Llama3-70B"}},
		{want: "docqa", several: []string{"docqa · gpt-4o", "docqa · llama3"}},
		{want: "match", several: []string{"match@1", "match@2"}},
		{want: "x", several: []string{"Case · x", "case · X"}},
		// No match: neither a prefix nor a part of a name.
		{want: "GPT"},
		{want: "gpt-4 turb"},
		{want: "70B"},
		{want: "·"},
		{want: ""},
	}
	for _, tc := range tests {
		label, several := findJudge(cands, tc.want)
		if label != tc.label || !slices.Equal(several, tc.several) {
			t.Errorf("findJudge(%q) = %q, %q; want %q, %q", tc.want, label, several, tc.label, tc.several)
		}
	}
}

func TestMatchJudgeMessages(t *testing.T) {
	runs := matchRuns()
	tests := []struct {
		want    string
		allowed []string
		label   string
		msg     string
	}{
		{want: "gpt-4", label: "imported · GPT-4"},
		{want: "docqa", msg: `--judge "docqa" matches 2 judges in s.gavel: "docqa · gpt-4o", "docqa · llama3"; pass the full label, e.g. --judge "docqa · gpt-4o"`},
		{want: "nope", allowed: []string{"match@1", "docqa · llama3"}, msg: `no judge "nope" in s.gavel: its judges are "docqa · llama3", "match@1"`},
		// A variant names one run even when the allowed runs leave others.
		{want: "match@2", allowed: []string{"match@2"}, label: "match@2"},
		{want: "docqa@1", allowed: []string{"docqa · llama3"}, msg: `no judge "docqa@1" in s.gavel: its judges are "docqa · llama3"`},
		// Only the allowed runs count: one docqa left.
		{want: "docqa", allowed: []string{"docqa · llama3"}, label: "docqa · llama3"},
		{want: "gpt-4", allowed: []string{}, msg: `no judge "gpt-4" in s.gavel: it has no judge yet`},
	}
	for _, tc := range tests {
		label, err := matchJudge(runs, tc.allowed, tc.want, "s.gavel")
		if tc.msg == "" {
			if err != nil || label != tc.label {
				t.Errorf("matchJudge(%q) = %q, %v; want %q", tc.want, label, err, tc.label)
			}
			continue
		}
		if err == nil || err.Error() != tc.msg || exitCode(err) != exitUsage {
			t.Errorf("matchJudge(%q) = %q, %v (exit %d); want the usage error %s", tc.want, label, err, exitCode(err), tc.msg)
		}
	}
	if _, err := matchJudge(nil, nil, "x", "s.gavel"); err == nil || !strings.Contains(err.Error(), "it has no judge yet") {
		t.Errorf("no runs: %v", err)
	}
}
