package main

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// version is gavel's version as `gavel version` and `gavel --version`
// print it after the program's name: the module version ("(devel)" when
// built from a checkout), then the commit, its date and whether the tree
// had changes, when the build recorded them — e.g.
// "v0.3.0 (commit 1a2b3c4, 2026-11-23, modified)".
func version() string {
	info, ok := readBuildInfo()
	if !ok || info == nil {
		return "(unknown version: built without module support)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var revision, when string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			when = s.Value
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				when = t.UTC().Format(time.DateOnly)
			}
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var parts []string
	if revision != "" {
		if len(revision) > 7 {
			revision = revision[:7]
		}
		parts = append(parts, "commit "+revision)
	}
	if when != "" {
		parts = append(parts, when)
	}
	if modified {
		parts = append(parts, "modified")
	}
	if len(parts) == 0 {
		return v
	}
	return fmt.Sprintf("%s (%s)", v, strings.Join(parts, ", "))
}

// versionTemplate is how `gavel --version` prints; `gavel version` prints
// the same line.
const versionTemplate = "{{.Name}} {{.Version}}\n"

func newVersionCmd(e env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gavel's version and the commit it was built from",
		Long: `Print gavel's module version ("(devel)" when built from a checkout) and,
when the build recorded them, the commit, its date and whether the working
tree had uncommitted changes. gavel --version prints the same line.`,
		Example: `  gavel version
  gavel --version`,
		Args:              args(cobra.NoArgs),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(e.stdout, "gavel %s\n", version())
			return err
		},
	}
}
