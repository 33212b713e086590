package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func withBuildInfo(t *testing.T, info *debug.BuildInfo) {
	t.Helper()
	old := readBuildInfo
	readBuildInfo = func() (*debug.BuildInfo, bool) { return info, info != nil }
	t.Cleanup(func() { readBuildInfo = old })
}

func TestVersion(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"release", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: settings(
			"vcs", "git", "vcs.revision", "1a2b3c4d5e6f7a8b9c0d", "vcs.time", "2026-11-23T17:14:49Z", "vcs.modified", "true")},
			"gavel v0.3.0 (commit 1a2b3c4, 2026-11-23, modified)"},
		{"clean checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings(
			"vcs.revision", "1a2b3c4d5e6f", "vcs.time", "2026-11-23T23:59:00-05:00", "vcs.modified", "false")},
			"gavel (devel) (commit 1a2b3c4, 2026-11-24)"},
		{"go install", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "gavel v0.3.0"},
		{"no version", &debug.BuildInfo{}, "gavel (devel)"},
		{"no build info", nil, "gavel (unknown version"},
	} {
		withBuildInfo(t, tc.info)
		for _, argv := range [][]string{{"version"}, {"--version"}, {"-v"}} {
			code, out, errs := gavel(t, argv...)
			if code != 0 || !strings.HasPrefix(out, tc.want) || strings.Count(out, "\n") != 1 {
				t.Errorf("%s: gavel %s: exit %d: %q %s", tc.name, argv[0], code, out, errs)
			}
		}
	}
}
