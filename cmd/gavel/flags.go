package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// datasetFlags say how to read a dataset file.
type datasetFlags struct {
	mapping  string
	skipBad  bool
	format   string
	maxBytes byteSize
}

func (d *datasetFlags) add(f *pflag.FlagSet) {
	f.StringVar(&d.mapping, "map", "", "which field holds what, as `ROLE=FIELD,...`, e.g. gold=target,prediction=output,segment=category")
	f.BoolVar(&d.skipBad, "skip-bad", false, "skip rows that cannot be read instead of stopping (they are counted)")
	f.StringVar(&d.format, "format", "", "the dataset's `FORMAT`: jsonl, json, csv, tsv or lm-eval (default: from the file)")
	f.Var(&d.maxBytes, "max-bytes", "the most text to read from the dataset once decompressed, a `SIZE` such as 16GiB (default: 8GiB, and a gzip file at most 100 times its size)")
}

// byteSize is a --max-bytes value: 512MiB, 16G, 1.5GB or bytes.
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return ""
	}
	return dataset.FormatSize(int64(*b))
}

func (b *byteSize) Set(s string) error {
	n, err := dataset.ParseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) Type() string { return "size" }

// load reads the dataset; a bad --map is a usage error.
func (d datasetFlags) load(path string) (*dataset.Dataset, error) {
	return d.read(path, nil)
}

// loadAny reads a dataset that need not have predictions (for sampling).
func (d datasetFlags) loadAny(path string) (*dataset.Dataset, error) {
	return d.read(path, []string{})
}

// read loads the dataset requiring the given roles (nil: a prediction).
func (d datasetFlags) read(path string, require []string) (*dataset.Dataset, error) {
	opts, err := d.options(require)
	if err != nil {
		return nil, err
	}
	return dataset.Load(path, opts)
}

// stream opens the dataset as a dataset.Stream, requiring a prediction.
func (d datasetFlags) stream(path string) (*dataset.Stream, error) {
	opts, err := d.options(nil)
	if err != nil {
		return nil, err
	}
	return dataset.OpenStream(path, opts)
}

// options are the flags as dataset.Options; a bad --map is a usage error.
func (d datasetFlags) options(require []string) (dataset.Options, error) {
	opts := dataset.Options{SkipBad: d.skipBad, Format: d.format, Require: require, MaxBytes: int64(d.maxBytes)}
	if d.mapping != "" {
		m, err := dataset.ParseMap(d.mapping)
		if err != nil {
			return opts, usageError{err}
		}
		opts.Map = m
	}
	return opts, nil
}

// addSwap registers --swap, the position-bias audit of pairwise judges.
func addSwap(f *pflag.FlagSet, swap *bool) {
	f.BoolVar(swap, "swap", false, "judge each pair (items with response_a and response_b) in both orders, B shown first the second time, to audit position bias; both verdicts are kept")
}

// runnerFlags say which model server LLM judges call, and how.
type runnerFlags struct {
	baseURL          string
	apiKey           string
	model            string
	temperature      float64
	maxTokens        int
	concurrency      int
	rpm              float64
	timeout          time.Duration
	itemTimeout      time.Duration
	wait             time.Duration
	samples          int
	noResponseFormat bool
	noLogprobs       bool
	// keyEnv is the variable the API key is read from when --api-key is
	// not given: OPENAI_API_KEY unless the config file's api_key_env
	// names another (config.go).
	keyEnv string
}

func (r *runnerFlags) add(f *pflag.FlagSet) {
	f.StringVar(&r.baseURL, "base-url", "", "the OpenAI-compatible server's `URL`, ending in /v1 (default: $GAVEL_BASE_URL, $OPENAI_BASE_URL, the config file's, else OpenAI; see gavel config)")
	f.StringVar(&r.apiKey, "api-key", "", "the server's API `KEY` (default: $OPENAI_API_KEY; prefer the variable: flags show in the process list)")
	f.StringVar(&r.model, "model", "", "the `MODEL` LLM judges call, as the server names it (default: $GAVEL_MODEL, else the config file's)")
	f.Float64Var(&r.temperature, "temperature", 0, "sampling temperature (0 is sent as 0)")
	f.IntVar(&r.maxTokens, "max-tokens", 0, "cap on each answer's tokens (default: the server's)")
	f.IntVar(&r.concurrency, "concurrency", llm.DefaultConcurrency, "requests in flight at once")
	f.Float64Var(&r.rpm, "rpm", 0, "cap on requests per minute, retries included (default: none)")
	f.DurationVar(&r.timeout, "timeout", llm.DefaultTimeout, "time limit of each request")
	f.DurationVar(&r.itemTimeout, "item-timeout", 0, "time limit of one item's tries, retries and backoff included (default: 2 × --timeout, at least 5m)")
	f.DurationVar(&r.wait, "wait", llm.DefaultWait, "how long a run pauses for a server that stopped answering before the tasks left end api_error")
	f.IntVar(&r.samples, "samples", 1, "judge each task N times; the majority wins and self-consistency is kept")
	f.BoolVar(&r.noResponseFormat, "no-response-format", false, "do not ask JSON judges for response_format (for servers that reject it)")
	f.BoolVar(&r.noLogprobs, "no-logprobs", false, "do not ask for logprobs (for servers that reject them; no confidence then)")
}

// config is the client configuration, the environment filling what the
// flags left empty; the key comes from r.keyEnv when one is named, and
// then from it alone, so that a key meant for one server does not go to
// another.
func (r runnerFlags) config(getenv func(string) string) llm.Config {
	if r.keyEnv != "" && r.keyEnv != llm.EnvAPIKey {
		plain := getenv
		getenv = func(k string) string {
			if k == llm.EnvAPIKey {
				k = r.keyEnv
			}
			return plain(k)
		}
	}
	return llm.Config{
		BaseURL:          r.baseURL,
		APIKey:           r.apiKey,
		Model:            r.model,
		Temperature:      r.temperature,
		MaxTokens:        r.maxTokens,
		Concurrency:      r.concurrency,
		RPM:              r.rpm,
		Timeout:          r.timeout,
		ItemTimeout:      r.itemTimeout,
		Wait:             r.wait,
		Samples:          r.samples,
		NoResponseFormat: r.noResponseFormat,
		NoLogprobs:       r.noLogprobs,
	}.WithEnv(getenv)
}
