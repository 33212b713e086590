package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/judge/match"
	"github.com/gavel-dev/gavel/sessions"
)

// The defaults a user would otherwise retype come, first found wins, from
// the command line, a GAVEL_* variable, for the base URL OPENAI_BASE_URL,
// the config file, and the built-in default. The config file is
// config.yaml in os.UserConfigDir()/gavel ($XDG_CONFIG_HOME/gavel, else
// ~/.config/gavel on Linux), or the file GAVEL_CONFIG names. It never
// holds an API key: api_key_env may name the variable the key is read
// from instead of OPENAI_API_KEY.

// Environment variables of the config layer.
const (
	envConfig      = "GAVEL_CONFIG"
	envBaseURL     = "GAVEL_BASE_URL"
	envModel       = "GAVEL_MODEL"
	envConcurrency = "GAVEL_CONCURRENCY"
	envAnnotator   = "GAVEL_ANNOTATOR"
	envJudges      = "GAVEL_JUDGES"
)

// Sources of a setting besides a variable's name or the file's path.
const (
	srcFlag    = "flag"
	srcDefault = "default"
)

// configKeys are the keys a config file may hold, in the order `gavel
// config` shows them.
var configKeys = []string{"base_url", "model", "concurrency", "annotator", "judges", "api_key_env", "guidelines", "tags", "retest", "blind_share", "prices"}

// fileConfig is what a config file says; present tells which keys it set.
type fileConfig struct {
	path        string
	baseURL     string
	model       string
	concurrency int
	annotator   string
	judges      []string
	apiKeyEnv   string
	labelling   labellingConfig
	prices      cost.Prices
	present     map[string]bool
}

// labellingConfig is what the config file says of SPEC "Labelling well"
// (review's --guidelines, --tags, --retest and --blind-share).
type labellingConfig struct {
	// guidelines is the guidelines file; a relative path is relative to
	// the config file's folder, so it means the same from any folder.
	guidelines string
	tags       string // comma-separated, as --tags
	retest     float64
	blindShare float64
}

// settings are the effective defaults and where each came from.
type settings struct {
	path        string // the config file's path, "" when none can be found
	loaded      bool   // the file exists and was read
	baseURL     string // "" means OpenAI's
	model       string
	concurrency int
	annotator   string // "" means the OS user name
	judges      []string
	keyEnv      string // the variable the API key is read from
	labelling   labellingConfig
	prices      cost.Prices // per model, per million tokens (config_prices.go)
	source      map[string]string
}

// configPath is the config file's path: $GAVEL_CONFIG, else config.yaml in
// os.UserConfigDir()/gavel, computed from e.getenv so that tests never
// read the real user's file. It is "" when no directory can be found.
func (e env) configPath() string {
	if p := e.getenv(envConfig); p != "" {
		return p
	}
	dir := ""
	switch runtime.GOOS {
	case "windows":
		dir = e.getenv("AppData")
	case "darwin", "ios":
		if h := e.getenv("HOME"); h != "" {
			dir = filepath.Join(h, "Library", "Application Support")
		}
	default:
		dir = e.getenv("XDG_CONFIG_HOME")
		if dir == "" || !filepath.IsAbs(dir) {
			dir = ""
			if h := e.getenv("HOME"); h != "" {
				dir = filepath.Join(h, ".config")
			}
		}
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "gavel", "config.yaml")
}

// loadConfigFile reads the config file at path. A missing file is no
// error (nil) unless GAVEL_CONFIG named it.
func loadConfigFile(path string, named bool) (*fileConfig, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !named {
		return nil, nil
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s names %s, which does not exist: create it or unset %s", envConfig, path, envConfig)
		}
		return nil, fmt.Errorf("cannot read the config file %s: %w", path, err)
	}
	return parseConfig(path, data)
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseConfig reads a config file strictly: an unknown key, a key twice or
// a value of the wrong kind is an error naming the file and line.
func parseConfig(path string, data []byte) (*fileConfig, error) {
	fc := &fileConfig{path: path, present: map[string]bool{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the config file %s is not valid YAML: %v", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 { // empty file
		return fc, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return fc, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: the config file should be a mapping of keys to values (%s: …), one a line", path, root.Line, strings.Join(configKeys, ", "))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		at := fmt.Sprintf("%s:%d", path, k.Line)
		key := k.Value
		switch strings.ToLower(strings.ReplaceAll(key, "-", "_")) {
		case "api_key", "apikey", "openai_api_key", "key", "token", "api_token":
			return nil, fmt.Errorf("%s: %s: the config file never holds an API key (it would sit in a plain file): set OPENAI_API_KEY in the environment, or name the variable to read with api_key_env", at, key)
		}
		if fc.present[key] {
			return nil, fmt.Errorf("%s: %s is set twice in the config file", at, key)
		}
		want := ""
		switch key {
		case "base_url":
			want = "a server URL such as http://localhost:8000/v1"
			if s, ok := scalarString(v); ok && s != "" {
				fc.baseURL = s
				want = ""
			}
		case "model":
			want = "a model name, as the server names it"
			if s, ok := scalarString(v); ok && s != "" {
				fc.model = s
				want = ""
			}
		case "annotator":
			want = "your name in sessions"
			if s, ok := scalarString(v); ok && s != "" {
				fc.annotator = s
				want = ""
			}
		case "concurrency":
			want = "a whole number of requests in flight, at least 1"
			if s, ok := scalarString(v); ok {
				if n, err := strconv.Atoi(s); err == nil && n >= 1 {
					fc.concurrency = n
					want = ""
				}
			}
		case "judges":
			want = "a list of judge names or judge files, e.g. [docqa, match]"
			if js, ok := stringList(v); ok {
				fc.judges = js
				want = ""
			}
		case "api_key_env":
			want = "the name of an environment variable, e.g. GROQ_API_KEY"
			if s, ok := scalarString(v); ok && envNameRE.MatchString(s) {
				fc.apiKeyEnv = s
				want = ""
			}
		case "guidelines":
			want = "the path of a Markdown file of annotation guidelines"
			if s, ok := scalarString(v); ok && s != "" {
				if !filepath.IsAbs(s) {
					s = filepath.Join(filepath.Dir(path), s)
				}
				fc.labelling.guidelines = s
				want = ""
			}
		case "tags":
			want = `a list of failure tag names, e.g. ["too strict", format]`
			if ts, ok := stringList(v); ok {
				// Each name as written: a comma in one would split it in two.
				var bad error
				for i, t := range ts {
					ts[i] = strings.TrimSpace(t)
					if err := sessions.CheckTagName(ts[i]); err != nil && bad == nil {
						bad = err
					}
				}
				if bad != nil {
					want += " (" + bad.Error() + ")"
				} else {
					fc.labelling.tags = strings.Join(ts, ",")
					want = ""
				}
			}
		case "retest", "blind_share":
			want = "a share such as 5% or 0.05"
			if s, ok := scalarString(v); ok {
				if x, err := parseShare(s); err == nil {
					if key == "retest" {
						fc.labelling.retest = x
					} else {
						fc.labelling.blindShare = x
					}
					want = ""
				}
			}
		case "prices":
			p, err := parsePrices(path, v)
			if err != nil {
				return nil, err
			}
			fc.prices = p
		default:
			return nil, fmt.Errorf("%s: unknown key %q in the config file; the keys are %s", at, key, strings.Join(configKeys, ", "))
		}
		if want != "" {
			return nil, fmt.Errorf("%s:%d: %s: want %s, got %s", path, v.Line, key, want, describeNode(v))
		}
		fc.present[key] = true
	}
	return fc, nil
}

// scalarString is a scalar's text; null, lists and mappings are not.
func scalarString(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", false
	}
	return strings.TrimSpace(n.Value), true
}

// stringList is a list of non-empty scalars, or one scalar.
func stringList(n *yaml.Node) ([]string, bool) {
	if s, ok := scalarString(n); ok && s != "" {
		return []string{s}, true
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil, false
	}
	var out []string
	for _, c := range n.Content {
		s, ok := scalarString(c)
		if !ok || s == "" {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// describeNode says what a bad value is, without repeating a long one.
func describeNode(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Tag == "!!null":
		return "nothing"
	}
	s := n.Value
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}

// splitJudges splits a GAVEL_JUDGES value at commas.
func splitJudges(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// resolveSettings works out the effective defaults. f is the command's
// flags (nil: none); a flag counts only if given on the command line.
func resolveSettings(e env, f *pflag.FlagSet) (settings, error) {
	s := settings{
		path:        e.configPath(),
		concurrency: llm.DefaultConcurrency,
		judges:      []string{match.Name},
		keyEnv:      llm.EnvAPIKey,
		source:      map[string]string{},
	}
	for _, k := range configKeys {
		s.source[k] = srcDefault
	}
	s.source["api_key_env"] = srcDefault
	fc, err := loadConfigFile(s.path, e.getenv(envConfig) != "")
	if err != nil {
		return s, err
	}
	if fc != nil {
		s.loaded = true
		p := fc.present
		set := func(key string) bool {
			if p[key] {
				s.source[key] = fc.path
			}
			return p[key]
		}
		if set("base_url") {
			s.baseURL = fc.baseURL
		}
		if set("model") {
			s.model = fc.model
		}
		if set("concurrency") {
			s.concurrency = fc.concurrency
		}
		if set("annotator") {
			s.annotator = fc.annotator
		}
		if set("judges") {
			s.judges = fc.judges
		}
		if set("api_key_env") {
			s.keyEnv = fc.apiKeyEnv
		}
		set("guidelines")
		set("tags")
		set("retest")
		set("blind_share")
		s.labelling = fc.labelling
		if set("prices") {
			s.prices = fc.prices
		}
	}
	// The environment: GAVEL_* before OPENAI_BASE_URL, so apply the weaker first.
	for _, name := range []string{llm.EnvBaseURL, envBaseURL} {
		if v := strings.TrimSpace(e.getenv(name)); v != "" {
			s.baseURL, s.source["base_url"] = v, name
		}
	}
	if v := strings.TrimSpace(e.getenv(envModel)); v != "" {
		s.model, s.source["model"] = v, envModel
	}
	if v := strings.TrimSpace(e.getenv(envAnnotator)); v != "" {
		s.annotator, s.source["annotator"] = v, envAnnotator
	}
	if v := strings.TrimSpace(e.getenv(envConcurrency)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return s, fmt.Errorf("%s=%q: want a whole number of requests in flight, at least 1", envConcurrency, v)
		}
		s.concurrency, s.source["concurrency"] = n, envConcurrency
	}
	if v := e.getenv(envJudges); strings.TrimSpace(v) != "" {
		js := splitJudges(v)
		if len(js) == 0 {
			return s, fmt.Errorf("%s=%q: want judge names or judge files separated by commas, e.g. docqa,match", envJudges, v)
		}
		s.judges, s.source["judges"] = js, envJudges
	}
	// The command line.
	if f == nil {
		return s, nil
	}
	given := func(name, key string) bool {
		if fl := f.Lookup(name); fl != nil && fl.Changed {
			s.source[key] = srcFlag
			return true
		}
		return false
	}
	if given("base-url", "base_url") {
		s.baseURL, _ = f.GetString("base-url")
	}
	if given("model", "model") {
		s.model, _ = f.GetString("model")
	}
	if given("annotator", "annotator") {
		s.annotator, _ = f.GetString("annotator")
	}
	if given("concurrency", "concurrency") {
		s.concurrency, _ = f.GetInt("concurrency")
	}
	if given("judge", "judges") {
		s.judges, _ = f.GetStringArray("judge")
	}
	if given("guidelines", "guidelines") {
		s.labelling.guidelines, _ = f.GetString("guidelines")
	}
	if given("tags", "tags") {
		s.labelling.tags, _ = f.GetString("tags")
	}
	shareOf := func(name string) float64 {
		v, _ := f.Lookup(name).Value.(*share)
		if v == nil {
			return 0
		}
		return float64(*v)
	}
	if given("retest", "retest") {
		s.labelling.retest = shareOf("retest")
	}
	if given("blind-share", "blind_share") {
		s.labelling.blindShare = shareOf("blind-share")
	}
	return s, nil
}

// applyLabellingConfig fills review's labelling flags not given on the
// command line from the config file, and refuses a bad --tags here,
// before any session file is made (the config's tags were checked as it
// was read).
func applyLabellingConfig(e env, f *pflag.FlagSet, l *labellingFlags) error {
	s, err := resolveSettings(e, f)
	if err != nil {
		return err
	}
	l.guidelines, l.tags = s.labelling.guidelines, s.labelling.tags
	l.retest, l.blindShare = share(s.labelling.retest), share(s.labelling.blindShare)
	if _, err := sessions.ParseTagList(l.tags); err != nil {
		return usagef("--tags: %v", err)
	}
	return nil
}

// applyConfig fills the judges and the server flags not given on the
// command line from the environment and the config file (see
// resolveSettings); the annotator is filled later, by annotatorDefault.
func applyConfig(e env, f *pflag.FlagSet, judges *[]string, r *runnerFlags) error {
	s, err := resolveSettings(e, f)
	if err != nil {
		return err
	}
	*judges = s.judges
	r.baseURL = s.baseURL
	r.model = s.model
	r.concurrency = s.concurrency
	r.keyEnv = s.keyEnv
	return nil
}

// annotatorDefault is the annotator when --annotator is not given:
// GAVEL_ANNOTATOR, the config file's, else the OS user name.
func (e env) annotatorDefault() (string, error) {
	s, err := resolveSettings(e, nil)
	if err != nil {
		return "", err
	}
	if s.annotator != "" {
		return s.annotator, nil
	}
	return e.defaultAnnotator(), nil
}
