package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge/llm"
)

// configEnv is a test env whose variables are vars, GAVEL_CONFIG pointing
// at a config.yaml holding yaml (none when yaml is "") in a temporary
// directory; it returns the file's path.
func configEnv(t *testing.T, yaml string, vars map[string]string) (env, string) {
	t.Helper()
	e, _, _, _ := testEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "gavel", "config.yaml")
	if yaml != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	state := e.getenv("XDG_STATE_HOME")
	e.getenv = func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return dir
		case "XDG_STATE_HOME":
			return state
		}
		return vars[k]
	}
	return e, path
}

func TestConfigPrecedence(t *testing.T) {
	const file = "base_url: http://file/v1\nmodel: file-model\nconcurrency: 3\nannotator: file-ann\njudges: [docqa, match]\n"
	type want struct {
		baseURL, model, annotator string
		concurrency               int
		judges                    []string
		src                       map[string]string // key → "file", "flag", "default" or a variable
	}
	tests := []struct {
		name  string
		yaml  string
		vars  map[string]string
		flags []string
		want  want
	}{
		{"nothing", "", nil, nil, want{"", "", "", llm.DefaultConcurrency, []string{"match"},
			map[string]string{"base_url": "default", "model": "default", "concurrency": "default", "judges": "default"}}},
		{"file only", file, nil, nil, want{"http://file/v1", "file-model", "file-ann", 3, []string{"docqa", "match"},
			map[string]string{"base_url": "file", "model": "file", "concurrency": "file", "annotator": "file", "judges": "file"}}},
		{"OPENAI_BASE_URL over the file", file, map[string]string{"OPENAI_BASE_URL": "http://openai-env/v1"}, nil,
			want{"http://openai-env/v1", "file-model", "file-ann", 3, []string{"docqa", "match"},
				map[string]string{"base_url": "OPENAI_BASE_URL", "model": "file"}}},
		{"env over file", file, map[string]string{
			"GAVEL_BASE_URL": "http://gavel-env/v1", "OPENAI_BASE_URL": "http://openai-env/v1", "GAVEL_MODEL": "env-model",
			"GAVEL_CONCURRENCY": "7", "GAVEL_ANNOTATOR": "env-ann", "GAVEL_JUDGES": " bbh , docqa,",
		}, nil, want{"http://gavel-env/v1", "env-model", "env-ann", 7, []string{"bbh", "docqa"},
			map[string]string{"base_url": "GAVEL_BASE_URL", "model": "GAVEL_MODEL", "concurrency": "GAVEL_CONCURRENCY", "annotator": "GAVEL_ANNOTATOR", "judges": "GAVEL_JUDGES"}}},
		{"flag over env", file, map[string]string{
			"GAVEL_BASE_URL": "http://gavel-env/v1", "GAVEL_MODEL": "env-model", "GAVEL_CONCURRENCY": "7",
			"GAVEL_ANNOTATOR": "env-ann", "GAVEL_JUDGES": "bbh",
		}, []string{"--base-url", "http://flag/v1", "--model", "flag-model", "--concurrency", "4", "--annotator", "flag-ann", "--judge", "match"},
			want{"http://flag/v1", "flag-model", "flag-ann", 4, []string{"match"},
				map[string]string{"base_url": "flag", "model": "flag", "concurrency": "flag", "annotator": "flag", "judges": "flag"}}},
		{"--judge replaces the configured list", file, nil, []string{"--judge", "bbh", "--judge", "rubric"},
			want{"http://file/v1", "file-model", "file-ann", 3, []string{"bbh", "rubric"}, map[string]string{"judges": "flag"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, path := configEnv(t, tc.yaml, tc.vars)
			cmd := newReviewCmd(e)
			if err := cmd.ParseFlags(tc.flags); err != nil {
				t.Fatal(err)
			}
			s, err := resolveSettings(e, cmd.Flags())
			if err != nil {
				t.Fatal(err)
			}
			got := want{s.baseURL, s.model, s.annotator, s.concurrency, s.judges, nil}
			w := tc.want
			w.src = nil
			if !reflect.DeepEqual(got, w) {
				t.Errorf("got %+v\nwant %+v", got, w)
			}
			for k, src := range tc.want.src {
				if src == "file" {
					src = path
				}
				if s.source[k] != src {
					t.Errorf("%s comes from %q, want %q", k, s.source[k], src)
				}
			}
			if s.path != path {
				t.Errorf("path %q, want %q", s.path, path)
			}

			// applyConfig puts the same values into the command's flags.
			var judges []string
			var r runnerFlags
			if err := applyConfig(e, cmd.Flags(), &judges, &r); err != nil {
				t.Fatal(err)
			}
			if r.baseURL != w.baseURL || r.model != w.model || r.concurrency != w.concurrency || !reflect.DeepEqual(judges, w.judges) {
				t.Errorf("applyConfig: %+v %v", r, judges)
			}
		})
	}
}

func TestConfigPath(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		t.Skip("the platform's own configuration directory")
	}
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"GAVEL_CONFIG": "/etc/g.yaml", "XDG_CONFIG_HOME": "/x"}, "/etc/g.yaml"},
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/gavel/config.yaml"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/gavel/config.yaml"},
		{map[string]string{"HOME": "/h"}, "/h/.config/gavel/config.yaml"},
		{map[string]string{}, ""},
	} {
		e := env{getenv: func(k string) string { return tc.vars[k] }}
		if got := e.configPath(); got != filepath.FromSlash(tc.want) {
			t.Errorf("configPath(%v) = %q, want %q", tc.vars, got, tc.want)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		vars map[string]string
		want []string // each in the message
	}{
		{"unknown key", "model: m\nmodle: x\n", nil, []string{"config.yaml:2", `unknown key "modle"`, "base_url, model, concurrency, annotator, judges, api_key_env"}},
		{"bad concurrency", "model: m\nconcurrency: many\n", nil, []string{"config.yaml:2", "concurrency", "whole number", `"many"`}},
		{"zero concurrency", "concurrency: 0\n", nil, []string{"config.yaml:1", "at least 1"}},
		{"judges as a mapping", "judges:\n  a: b\n", nil, []string{"config.yaml:2", "judges", "list of judge names", "a mapping"}},
		{"empty model", "model:\n", nil, []string{"config.yaml:1", "model", "got nothing"}},
		{"bad api_key_env", "api_key_env: not a name\n", nil, []string{"api_key_env", "environment variable"}},
		{"twice", "model: a\nmodel: b\n", nil, []string{"model is set twice"}},
		{"not a mapping", "- model\n", nil, []string{"config.yaml:1", "mapping"}},
		{"not YAML", "model: [\n", nil, []string{"config.yaml", "not valid YAML"}},
		{"bad GAVEL_CONCURRENCY", "", map[string]string{"GAVEL_CONCURRENCY": "lots"}, []string{"GAVEL_CONCURRENCY", `"lots"`, "whole number"}},
		{"empty GAVEL_JUDGES", "", map[string]string{"GAVEL_JUDGES": " , "}, []string{"GAVEL_JUDGES", "commas"}},
		{"missing GAVEL_CONFIG", "", map[string]string{"GAVEL_CONFIG": "/nonexistent/gavel.yaml"}, []string{"GAVEL_CONFIG names /nonexistent/gavel.yaml", "does not exist"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := configEnv(t, tc.yaml, tc.vars)
			_, err := resolveSettings(e, nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			// The commands stop on it too, before any work.
			e2, _, errb, _ := testEnv(t)
			e2.getenv = e.getenv
			if code := execute(context.Background(), e2, []string{"config"}); code == 0 {
				t.Errorf("gavel config exit 0 on %s", tc.name)
			}
			if code := execute(context.Background(), e2, []string{"run", "x.jsonl", "--model", "m"}); code == 0 || !strings.Contains(errb.String(), tc.want[0]) {
				t.Errorf("gavel run exit %d: %s", code, errb)
			}
		})
	}
}

// A config file holding an API key is refused, without repeating the key.
func TestConfigRefusesAnAPIKey(t *testing.T) {
	for _, key := range []string{"api_key", "openai_api_key", "API-KEY"} {
		e, path := configEnv(t, "model: m\n"+key+": "+testKey+"\n", nil)
		_, err := resolveSettings(e, nil)
		if err == nil {
			t.Fatalf("%s accepted", key)
		}
		msg := err.Error()
		if strings.Contains(msg, testKey) || !strings.Contains(msg, path+":2") || !strings.Contains(msg, "OPENAI_API_KEY") || !strings.Contains(msg, "api_key_env") {
			t.Errorf("%s: %s", key, msg)
		}
	}
}

// gavel config shows each value and its source, and of the API key only
// whether it is set and which variable holds it.
func TestConfigCommand(t *testing.T) {
	e, path := configEnv(t, "model: file-model\njudges: [docqa]\napi_key_env: TEAM_KEY\n", map[string]string{
		"GAVEL_CONCURRENCY": "9", "TEAM_KEY": testKey, "OPENAI_API_KEY": "sk-other-key-zzzzzzzzzzzz",
	})
	var out, errb strings.Builder
	e.stdout, e.stderr = &out, &errb
	if code := execute(context.Background(), e, []string{"config"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if strings.Contains(s, testKey) || strings.Contains(s, "sk-other") {
		t.Fatalf("gavel config shows a key:\n%s", s)
	}
	for _, line := range [][]string{
		{"config file", path},
		{"base_url", llm.DefaultBaseURL, "default"},
		{"model", "file-model", path},
		{"concurrency", "9", "GAVEL_CONCURRENCY"},
		{"judges", "docqa", path},
		{"api_key", "set (TEAM_KEY)", path},
	} {
		if !hasLine(s, line) {
			t.Errorf("no line with %q in:\n%s", line, s)
		}
	}

	// Without a file: the key from OPENAI_API_KEY, or not set.
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"OPENAI_API_KEY": testKey}, "set (OPENAI_API_KEY)"},
		{nil, "not set (OPENAI_API_KEY)"},
	} {
		e, path := configEnv(t, "", tc.vars)
		out.Reset()
		e.stdout = &out
		if code := execute(context.Background(), e, []string{"config"}); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if strings.Contains(out.String(), testKey) || !hasLine(out.String(), []string{"api_key", tc.want, "default"}) || !hasLine(out.String(), []string{"config file", path + " (not found)"}) {
			t.Errorf("gavel config:\n%s", out.String())
		}
	}

	out.Reset()
	e.stdout = &out
	if code := execute(context.Background(), e, []string{"config", "--path"}); code != 0 || out.String() != path+"\n" {
		t.Errorf("gavel config --path = %d %q, want %q", code, out.String(), path)
	}
}

// hasLine says whether one line of s holds every part, in order.
func hasLine(s string, parts []string) bool {
	for _, l := range strings.Split(s, "\n") {
		rest, ok := l, true
		for _, p := range parts {
			i := strings.Index(rest, p)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}

// gavel run with no --judge runs the config file's judges against its
// server and model; the key comes from the variable api_key_env names,
// never from OPENAI_API_KEY then.
func TestRunUsesTheConfiguredJudges(t *testing.T) {
	srv, calls := fakeServer(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 6)
	yaml := "base_url: " + srv.URL + "/v1\nmodel: m\njudges: [docqa]\napi_key_env: TEAM_KEY\n"
	e, _ := configEnv(t, yaml, map[string]string{"TEAM_KEY": testKey, "OPENAI_API_KEY": "sk-wrong-key-aaaaaaaaaaaa"})
	var errb strings.Builder
	e.stderr = &errb
	if code := execute(context.Background(), e, []string{"run", data, "--session", filepath.Join(dir, "a.gavel")}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "docqa") || !strings.Contains(errb.String(), "6 of 6 tasks judged — 6 ok") || calls.Load() != 6 {
		t.Errorf("%d calls: %s", calls.Load(), errb.String())
	}

	// Named by api_key_env but unset: no fallback to OPENAI_API_KEY.
	e, _ = configEnv(t, yaml, map[string]string{"OPENAI_API_KEY": testKey})
	errb.Reset()
	e.stderr = &errb
	if code := execute(context.Background(), e, []string{"run", data, "--session", filepath.Join(dir, "b.gavel")}); code == 0 || calls.Load() != 6 {
		t.Errorf("exit %d, %d calls: OPENAI_API_KEY was sent in place of TEAM_KEY: %s", code, calls.Load(), errb.String())
	}

	// --judge on the command line replaces the configured list.
	e, _ = configEnv(t, yaml, nil)
	errb.Reset()
	e.stderr = &errb
	if code := execute(context.Background(), e, []string{"run", data, "--judge", "match", "--session", filepath.Join(dir, "c.gavel")}); code != 0 || strings.Contains(errb.String(), "docqa") || calls.Load() != 6 {
		t.Errorf("exit %d, %d calls: %s", code, calls.Load(), errb.String())
	}
}

func TestAnnotatorDefault(t *testing.T) {
	e, _ := configEnv(t, "annotator: file-ann\n", nil)
	if a, err := e.annotatorDefault(); err != nil || a != "file-ann" {
		t.Errorf("annotatorDefault = %q, %v", a, err)
	}
	e, _ = configEnv(t, "annotator: file-ann\n", map[string]string{"GAVEL_ANNOTATOR": "env-ann"})
	if a, err := e.annotatorDefault(); err != nil || a != "env-ann" {
		t.Errorf("annotatorDefault = %q, %v", a, err)
	}
	e, _ = configEnv(t, "", nil)
	if a, err := e.annotatorDefault(); err != nil || a != e.defaultAnnotator() {
		t.Errorf("annotatorDefault = %q, %v", a, err)
	}
}
