package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completions runs cobra's hidden __complete request and returns the
// candidates (without descriptions) and the directive line.
func completions(t *testing.T, argv ...string) ([]string, string) {
	t.Helper()
	code, out, errs := gavel(t, append([]string{"__complete"}, argv...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", argv, code, errs)
	}
	var got []string
	directive := ""
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		name, _, _ := strings.Cut(line, "\t")
		got = append(got, name)
	}
	return got, directive
}

func contains(list []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, l := range list {
			found = found || l == w
		}
		if !found {
			return false
		}
	}
	return true
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errs := gavel(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "gavel") {
			t.Fatalf("completion %s: exit %d: %s", shell, code, errs)
		}
	}
	_, out, _ := gavel(t, "completion", "bash")
	if !strings.Contains(out, "__start_gavel") || !strings.Contains(out, "__complete") {
		t.Errorf("the bash script does not call gavel __complete:\n%.300s", out)
	}
	// The commands' names come from the script's request to gavel.
	got, _ := completions(t, "")
	if !contains(got, "review", "run", "import", "stats", "export", "merge", "sample", "judges", "completion", "version") {
		t.Errorf("commands completed: %v", got)
	}
	_, help, _ := gavel(t, "completion", "--help")
	for _, want := range []string{"source <(gavel completion bash)", "gavel completion fish | source", "_gavel", "Invoke-Expression"} {
		if !strings.Contains(help, want) {
			t.Errorf("completion --help does not say %q", want)
		}
	}
	if code, _, errs := gavel(t, "completion", "tcsh"); code != 2 || !strings.Contains(errs, "bash, zsh, fish or powershell") {
		t.Errorf("completion tcsh: exit %d: %s", code, errs)
	}
}

func TestCompleteJudges(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"polite.yaml", "strict.json", "notes.txt"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir("judges", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"review", "run", "import"} {
		got, directive := completions(t, cmd, "x.jsonl", "--judge", "")
		if !contains(got, "match", "docqa", "rubric", "same-event", "bbh", "quality", "polite.yaml", "strict.json", "judges/") || contains(got, "notes.txt") {
			t.Errorf("%s --judge: %v", cmd, got)
		}
		if directive != ":6" { // no file completion, no space after a directory
			t.Errorf("%s --judge: directive %s", cmd, directive)
		}
	}
	if got, _ := completions(t, "review", "x.jsonl", "--judge", "d"); len(got) != 1 || got[0] != "docqa" {
		t.Errorf("--judge d: %v", got)
	}
	if got, _ := completions(t, "judges", "s"); !contains(got, "same-event", "strict.json") || contains(got, "docqa") {
		t.Errorf("judges s: %v", got)
	}
	_, out, _ := gavel(t, "__complete", "review", "x.jsonl", "--judge", "docqa")
	if !strings.Contains(out, "docqa\tDocument QA") {
		t.Errorf("no description beside docqa: %q", out)
	}
}

func TestCompleteFiles(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"review", ""}, "jsonl"},
		{[]string{"sample", ""}, "csv"},
		{[]string{"review", "x.jsonl", "--session", ""}, "gavel"},
		{[]string{"stats", ""}, "gavel"},
		{[]string{"export", ""}, "gavel"},
		{[]string{"merge", "a.gavel", ""}, "gavel"},
		{[]string{"judges", "docqa", "--dataset", ""}, "jsonl.gz"},
	} {
		got, directive := completions(t, tc.argv...)
		if !contains(got, tc.want) || directive != ":8" { // filter files by extension
			t.Errorf("%q: %v %s", tc.argv, got, directive)
		}
	}
	if got, _ := completions(t, "stats", "--format", ""); !contains(got, "text", "json", "markdown") {
		t.Errorf("stats --format: %v", got)
	}
	if got, _ := completions(t, "export", "s.gavel", "--only", ""); !contains(got, "reviewed", "disagreements", "all") {
		t.Errorf("export --only: %v", got)
	}
	if got, directive := completions(t, "stats", "s.gavel", "--parse-errors", ""); len(got) != 2 || !contains(got, "exclude", "fail") || directive != ":4" {
		t.Errorf("stats --parse-errors: %v %s", got, directive)
	}
	if got, directive := completions(t, "review", "x.jsonl", "--model", ""); len(got) != 0 || directive != ":4" {
		t.Errorf("--model: %v %s", got, directive)
	}
}

func TestCompleteSessionJudges(t *testing.T) {
	path := statsSession(t)
	got, directive := completions(t, "stats", path, "--judge", "")
	if !contains(got, "match", "docqa · gpt-4o") || len(got) != 2 || directive != ":4" {
		t.Errorf("stats SESSION --judge: %v %s", got, directive)
	}
	if got, _ := completions(t, "stats", path, "--judge", "Doc"); len(got) != 1 || got[0] != "docqa · gpt-4o" {
		t.Errorf("--judge Doc: %v", got)
	}
	if got, _ := completions(t, "stats", filepath.Join(t.TempDir(), "none.gavel"), "--judge", ""); len(got) != 0 {
		t.Errorf("a missing session: %v", got)
	}
	// export completes the same labels.
	if got, directive := completions(t, "export", path, "--judge", "d"); len(got) != 1 || got[0] != "docqa · gpt-4o" || directive != ":4" {
		t.Errorf("export SESSION --judge d: %v %s", got, directive)
	}
	// When no label starts with the text, the names after " · " that do,
	// which --judge also finds.
	if got, _ := completions(t, "stats", path, "--judge", "GPT"); len(got) != 1 || got[0] != "gpt-4o" {
		t.Errorf("--judge GPT: %v", got)
	}
	if got, _ := completions(t, "export", path, "--judge", "x"); len(got) != 0 {
		t.Errorf("--judge x: %v", got)
	}
	// Completing did not change the session.
	if code, _, errs := gavel(t, "stats", path, "--judge", "docqa"); code != 0 {
		t.Errorf("stats after completion: %s", errs)
	}
}

func TestUnknownCommandSuggests(t *testing.T) {
	for typo, want := range map[string]string{
		"reviw":  `unknown command "reviw" for "gavel": did you mean "review"?`,
		"stat":   `did you mean "stats"?`,
		"exprot": `did you mean "export"?`,
	} {
		code, _, errs := gavel(t, typo)
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("gavel %s: exit %d: %s", typo, code, errs)
		}
	}
	code, _, errs := gavel(t, "zzzzzz")
	if code != 2 || !strings.Contains(errs, `unknown command "zzzzzz"`) || strings.Contains(errs, "did you mean") {
		t.Errorf("gavel zzzzzz: exit %d: %s", code, errs)
	}
}

func TestArgErrorsSayWhatIsNeeded(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"review"}, "review needs DATASET; e.g. gavel review evals.jsonl"},
		{[]string{"run"}, "run needs DATASET; e.g. gavel run evals.jsonl --judge docqa"},
		{[]string{"import"}, "import needs DATASET; e.g. gavel import "},
		{[]string{"sample"}, "sample needs DATASET; e.g. gavel sample evals.jsonl -n 200"},
		{[]string{"export"}, "export needs SESSION; e.g. gavel export evals.gavel"},
		{[]string{"review", "a", "b"}, `review takes DATASET, but got 2 arguments ("a", "b"); e.g. gavel review evals.jsonl`},
		{[]string{"stats", "a", "b"}, `stats takes [SESSION], but got 2 arguments ("a", "b"); e.g. gavel stats evals.gavel`},
		{[]string{"judges", "a", "b"}, `judges takes [NAME | FILE], but got 2 arguments ("a", "b"); e.g. gavel judges docqa`},
		{[]string{"version", "now"}, `version takes no arguments, but got 1 argument ("now"); e.g. gavel version`},
		{[]string{"merge", "a.gavel"}, "gavel merge OUT.gavel IN1.gavel IN2.gavel"},
		{[]string{"completion"}, "bash, zsh, fish or powershell; e.g. gavel completion bash"},
	} {
		code, _, errs := gavel(t, tc.argv...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Contains(errs, "arg(s)") {
			t.Errorf("gavel %q: exit %d: %s", tc.argv, code, errs)
		}
		if !strings.Contains(errs, "Run `gavel "+tc.argv[0]+" --help` for usage.") {
			t.Errorf("gavel %q: no pointer to its help: %s", tc.argv, errs)
		}
	}
}

func TestFlagValueNames(t *testing.T) {
	_, help, _ := gavel(t, "review", "--help")
	for _, want := range []string{"--judge NAME ", "--session FILE ", "--model MODEL ", "--base-url URL ", "--map ROLE=FIELD,... "} {
		if !strings.Contains(help, want) {
			t.Errorf("review --help lacks %q:\n%s", want, help)
		}
	}
	for _, argv := range [][]string{{"--help"}, {"review", "--help"}, {"run", "--help"}, {"import", "--help"}, {"stats", "--help"},
		{"export", "--help"}, {"sample", "--help"}, {"judges", "--help"}, {"merge", "--help"}} {
		_, help, _ := gavel(t, argv...)
		for _, line := range strings.Split(help, "\n") {
			if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "-") && slices.Contains(f[:min(3, len(f))], "gavel") {
				t.Errorf("gavel %s: a flag's value is named after a command: %s", argv[0], line)
			}
		}
	}
}

func TestJudgesWithoutSeedNumbers(t *testing.T) {
	code, out, _ := gavel(t, "judges")
	if code != 0 || strings.Contains(out, "(seed") || !strings.Contains(out, "docqa") {
		t.Errorf("gavel judges: exit %d:\n%s", code, out)
	}
}
