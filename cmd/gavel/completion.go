package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge/catalog"
	"github.com/gavel-dev/gavel/sessions"
)

// shells are the shells `gavel completion` writes a script for.
var shells = []string{"bash", "zsh", "fish", "powershell"}

// newCompletionCmd replaces cobra's default completion command, whose help
// does not say how to install the script.
func newCompletionCmd(e env) *cobra.Command {
	var noDesc bool
	cmd := &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print the shell completion script for bash, zsh, fish or powershell",
		Long: `Print a script that lets your shell complete gavel's commands and flags,
judge names (built-in ones and judge files), session files (.gavel), dataset
files, for "gavel stats SESSION --judge" and "gavel export SESSION --judge"
the judges that ran in SESSION, and the values of flags such as --format.

bash (needs the bash-completion package):
  this shell:        source <(gavel completion bash)
  every new shell:   gavel completion bash > ~/.local/share/bash-completion/completions/gavel
  macOS, Homebrew:   gavel completion bash > $(brew --prefix)/etc/bash_completion.d/gavel

zsh (completion must be on: "autoload -U compinit; compinit" in ~/.zshrc):
  this shell:        source <(gavel completion zsh)
  every new shell:   gavel completion zsh > "${fpath[1]}/_gavel"
  macOS, Homebrew:   gavel completion zsh > $(brew --prefix)/share/zsh/site-functions/_gavel

fish:
  this shell:        gavel completion fish | source
  every new shell:   gavel completion fish > ~/.config/fish/completions/gavel.fish

PowerShell:
  this shell:        gavel completion powershell | Out-String | Invoke-Expression
  every new shell:   add that line to your profile (the file $PROFILE names)

Open a new shell after installing the script for every new shell.`,
		Example: `  source <(gavel completion bash)
  gavel completion zsh > "${fpath[1]}/_gavel"
  gavel completion fish > ~/.config/fish/completions/gavel.fish`,
		ValidArgs: shells,
		Args: func(cmd *cobra.Command, a []string) error {
			switch {
			case len(a) == 0:
				return usagef("completion needs the SHELL to complete in: bash, zsh, fish or powershell; e.g. gavel completion bash")
			case len(a) > 1:
				return usagef("completion takes one SHELL, but got %d arguments (%s); e.g. gavel completion bash", len(a), strings.Join(quoteEach(a), ", "))
			case !slices.Contains(shells, a[0]):
				return usagef("gavel cannot complete in %q: use bash, zsh, fish or powershell; e.g. gavel completion bash", a[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, a []string) error {
			root, out := cmd.Root(), e.stdout
			switch a[0] {
			case "bash":
				return root.GenBashCompletionV2(out, !noDesc)
			case "zsh":
				if noDesc {
					return root.GenZshCompletionNoDesc(out)
				}
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, !noDesc)
			}
			if noDesc {
				return root.GenPowerShellCompletion(out)
			}
			return root.GenPowerShellCompletionWithDesc(out)
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "complete without descriptions (the judges', the shells')")
	return cmd
}

// Extensions of the files each kind of argument completes to.
var (
	datasetExts = withGzip(".jsonl", ".ndjson", ".jsonlines", ".json", ".csv", ".tsv", ".tab")
	judgeExts   = []string{".yaml", ".yml", ".json"}
	sessionExts = []string{"gavel"}
)

func withGzip(exts ...string) []string {
	out := slices.Clone(exts)
	for _, x := range exts {
		out = append(out, x+".gz", x+".gzip")
	}
	return out
}

// textFlags take a value no file name completes.
var textFlags = []string{"annotator", "map", "model", "base-url", "api-key", "stratify", "n", "seed",
	"resamples", "temperature", "max-tokens", "concurrency", "rpm", "timeout", "item-timeout", "wait",
	"samples", "max-bytes"}

// addCompletions gives the commands' arguments and flags their dynamic
// completions: judge names and judge files, session files, dataset files,
// the judges of a session, the values of --format, --only and
// --parse-errors.
func addCompletions(e env, root *cobra.Command) {
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		switch c.Name() {
		case "review", "run", "import", "sample":
			c.ValidArgsFunction = first(completeExts(datasetExts))
		case "stats", "export":
			c.ValidArgsFunction = first(completeExts(sessionExts))
		case "merge":
			c.ValidArgsFunction = completeExts(sessionExts)
		case "judges":
			c.ValidArgsFunction = first(completeJudges)
		}
		flag := func(name string, fn cobra.CompletionFunc) {
			if _, done := c.GetFlagCompletionFunc(name); c.Flags().Lookup(name) != nil && !done {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		if c.Name() == "stats" {
			flag("judge", completeRunLabels(e))
			flag("format", cobra.FixedCompletions([]string{"text", "json", "markdown"}, cobra.ShellCompDirectiveNoFileComp))
			flag("parse-errors", cobra.FixedCompletions([]string{parseErrorsExclude, parseErrorsFailed}, cobra.ShellCompDirectiveNoFileComp))
		}
		if c.Name() == "export" {
			flag("judge", completeRunLabels(e))
			flag("format", cobra.FixedCompletions([]string{"jsonl", "csv"}, cobra.ShellCompDirectiveNoFileComp))
			flag("only", cobra.FixedCompletions([]string{sessions.OnlyReviewed, sessions.OnlyDisagreements, sessions.OnlyAll}, cobra.ShellCompDirectiveNoFileComp))
		}
		flag("judge", completeJudges)
		flag("session", completeExts(sessionExts))
		flag("dataset", completeExts(datasetExts))
		flag("format", cobra.FixedCompletions([]string{"jsonl", "json", "csv", "tsv", "lm-eval"}, cobra.ShellCompDirectiveNoFileComp))
		for _, name := range textFlags {
			flag(name, cobra.NoFileCompletions)
		}
	}
}

// first completes the first argument only.
func first(fn cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, a []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(a) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fn(cmd, a, toComplete)
	}
}

// completeExts lets the shell complete files with these extensions.
func completeExts(exts []string) cobra.CompletionFunc {
	trimmed := make([]string, len(exts))
	for i, x := range exts {
		trimmed[i] = strings.TrimPrefix(x, ".")
	}
	return cobra.FixedCompletions(trimmed, cobra.ShellCompDirectiveFilterFileExt)
}

// completeJudges completes the judges Gavel knows by name, and judge files.
func completeJudges(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, en := range catalog.New().List() {
		if strings.HasPrefix(en.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(en.Name, shortDescription(en.Description)))
		}
	}
	files, dirs := listFiles(toComplete, judgeExts)
	out = append(out, files...)
	directive := cobra.ShellCompDirectiveNoFileComp
	if dirs {
		directive |= cobra.ShellCompDirectiveNoSpace
	}
	return out, directive
}

// shortDescription is a judge description's first clause, as a shell
// shows it beside the name.
func shortDescription(d string) string {
	if i := strings.IndexAny(d, ":?;."); i > 0 {
		d = d[:i]
	}
	if r := []rune(d); len(r) > 60 {
		d = string(r[:59]) + "…"
	}
	return d
}

// listFiles lists the files under toComplete's directory whose names
// start as toComplete's and end in one of exts, and the directories
// (ending in a slash) in which to look further; dirs is whether there
// were directories.
func listFiles(toComplete string, exts []string) (out []cobra.Completion, dirs bool) {
	dir, base := filepath.Split(toComplete)
	read := dir
	switch {
	case read == "":
		read = "."
	case strings.HasPrefix(read, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			read = filepath.Join(home, read[2:])
		}
	}
	entries, err := os.ReadDir(read)
	if err != nil {
		return nil, false
	}
	for _, en := range entries {
		name := en.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		isDir := en.IsDir()
		if en.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(read, name)); err == nil {
				isDir = st.IsDir()
			}
		}
		lower := strings.ToLower(name)
		switch {
		case isDir:
			out, dirs = append(out, dir+name+string(filepath.Separator)), true
		case slices.ContainsFunc(exts, func(x string) bool { return strings.HasSuffix(lower, x) }):
			out = append(out, dir+name)
		}
	}
	return out, dirs
}

// completeRunLabels completes `gavel stats SESSION --judge` and `gavel
// export SESSION --judge` with the labels of the judge runs in SESSION
// (the demo's session when there is none), as the report shows them; when
// no label starts with what was typed, with the names after " · " that do
// ("GPT" completes to "GPT-4", which --judge finds), and what has an "@"
// with the runs' variants ("docqa@" completes to "docqa@1", "docqa@2").
// The session is only read.
func completeRunLabels(e env) cobra.CompletionFunc {
	return func(_ *cobra.Command, a []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		var path string
		if len(a) > 0 {
			path = a[0]
		} else if p, err := demoSessionPath(e); err == nil {
			path = p
		}
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			return nil, none
		}
		s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
		if err != nil {
			cobra.CompDebugln("cannot open "+path+": "+err.Error(), false)
			return nil, none
		}
		defer s.Close()
		runs, err := s.Runs()
		if err != nil {
			return nil, none
		}
		cands := judgeCandidates(runs, nil)
		prefix := strings.ToLower(toComplete)
		var out []cobra.Completion
		for _, c := range cands {
			if strings.HasPrefix(strings.ToLower(c.label), prefix) {
				out = append(out, c.label)
			}
		}
		if len(out) == 0 && toComplete != "" {
			for _, c := range cands {
				if after := c.afterDot(); after != "" && strings.HasPrefix(strings.ToLower(after), prefix) && !slices.Contains(out, after) {
					out = append(out, after)
				}
			}
			// "docqa@" completes to the judge's variants (docqa@1,
			// docqa@2), which --judge finds.
			if strings.Contains(prefix, "@") {
				for _, c := range cands {
					if strings.HasPrefix(strings.ToLower(c.variant), prefix) && !slices.Contains(out, c.variant) {
						out = append(out, c.variant)
					}
				}
			}
		}
		return out, none
	}
}
