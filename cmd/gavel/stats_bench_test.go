package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gavel-dev/gavel/internal/perfdata"
)

// benchStatsRows is the size of the session BenchmarkStatsCommand100k
// reads: the SPEC's target for `gavel stats` is under 0.5 s at 100,000
// labelled items.
const benchStatsRows = 100_000

// benchStatsSession is the labelled session the stats benchmarks share,
// made once per process (importing 100,000 rows takes tens of seconds).
var benchStatsSession struct {
	once sync.Once
	path string
	err  error
}

// labelledSession imports benchStatsRows generated labelled rows (the
// performance script's file: scripts/perf/gendata -labelled) through the
// real `gavel import`, into a directory that outlives the benchmark's
// iterations. GAVEL_BENCH_STATS_SESSION names an existing session to read
// instead (it is only read), to profile without importing again.
func labelledSession(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("GAVEL_BENCH_STATS_SESSION"); p != "" {
		return p
	}
	s := &benchStatsSession
	s.once.Do(func() {
		dir, err := os.MkdirTemp("", "gavel-stats-bench")
		if err != nil {
			s.err = err
			return
		}
		data := filepath.Join(dir, "labelled.jsonl")
		f, err := os.Create(data)
		if err != nil {
			s.err = err
			return
		}
		if err := perfdata.Write(f, perfdata.Options{Rows: benchStatsRows, Labelled: true, Seed: 1}); err != nil {
			f.Close()
			s.err = err
			return
		}
		if err := f.Close(); err != nil {
			s.err = err
			return
		}
		s.path = filepath.Join(dir, "labelled.gavel")
		var errb bytes.Buffer
		e := env{stdout: io.Discard, stderr: &errb, getenv: func(string) string { return "" }}
		if code := execute(context.Background(), e, []string{"import", data, "--session", s.path}); code != 0 {
			s.err = &benchError{"import of the generated rows failed: " + errb.String()}
		}
		os.Remove(data)
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.path
}

type benchError struct{ msg string }

func (e *benchError) Error() string { return e.msg }

// BenchmarkStatsCommand100k times what `gavel stats SESSION` does on a
// 100,000-item labelled session, in process: open read-only, read the
// statistics input, Compute with the default 1,000 resamples, render the
// text report. Only process start is left out.
func BenchmarkStatsCommand100k(b *testing.B) {
	for _, format := range []string{"text", "json"} {
		b.Run(format, func(b *testing.B) {
			benchStats(b, labelledSession(b), format)
		})
	}
}

// BenchmarkStatsCommand100kOnScreen is BenchmarkStatsCommand100k on the
// session whose labels look as if the review screen had made them
// (scripts/perf/onscreen: visibility, time on screen, sittings, guidelines
// versions, re-tests, can't judge, tags), so that the labelling section
// reads the whole history, from the decision log. It needs sqlite3 for
// the script; GAVEL_BENCH_STATS_ONSCREEN names an existing session to
// read instead.
func BenchmarkStatsCommand100kOnScreen(b *testing.B) {
	for _, format := range []string{"text", "json"} {
		b.Run(format, func(b *testing.B) {
			benchStats(b, onScreenSession(b), format)
		})
	}
}

// benchStatsOnScreen is the on-screen session, made once per process.
var benchStatsOnScreen struct {
	once sync.Once
	path string
	err  error
}

// onScreenSession makes the on-screen copy of labelledSession with
// scripts/perf/onscreen (skipping the benchmark without sqlite3).
func onScreenSession(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("GAVEL_BENCH_STATS_ONSCREEN"); p != "" {
		return p
	}
	if _, err := exec.LookPath("sqlite3"); err != nil {
		b.Skip("scripts/perf/onscreen needs sqlite3")
	}
	src := labelledSession(b)
	s := &benchStatsOnScreen
	s.once.Do(func() {
		dir, err := os.MkdirTemp("", "gavel-stats-bench-onscreen")
		if err != nil {
			s.err = err
			return
		}
		s.path = filepath.Join(dir, "onscreen.gavel")
		out, err := exec.Command(filepath.Join("..", "..", "scripts", "perf", "onscreen"), src, s.path).CombinedOutput()
		if err != nil {
			s.err = &benchError{"scripts/perf/onscreen: " + err.Error() + ": " + string(out)}
		}
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.path
}

// benchStats times runStats on the session at path in format, with the
// flags' own defaults.
func benchStats(b *testing.B, path, format string) {
	var out bytes.Buffer
	e := env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }}
	// The flags' own defaults, as a user gets them (a literal here
	// went stale when a flag was added and broke the benchmark).
	o := statsFlags{format: format}
	o.figureFlags.add(pflag.NewFlagSet("stats", pflag.ContinueOnError))
	b.ResetTimer()
	for b.Loop() {
		out.Reset()
		if err := runStats(e, path, o); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if !strings.Contains(out.String(), "judge_verdict") {
		b.Fatalf("the report does not name the imported judge:\n%s", out.String())
	}
}
