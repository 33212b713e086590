package dataset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gavel-dev/gavel/internal/perfdata"
)

// BenchmarkFirstPage is the time until a new dataset's first page of
// items (2,000) is there for the review screen, on the rows the
// performance script generates: "load" reads the whole file first (Load,
// as review did), "stream" returns at the first page (OpenStream then
// Items). The stream is then read to its end, untimed, so that
// iterations do not overlap. -bench-file reuses a 1,000,000-row file
// (scripts/perf/gendata -n 1000000) instead of the 100,000 rows written.
func BenchmarkFirstPage(b *testing.B) {
	path := *benchFile
	if path == "" {
		path = filepath.Join(b.TempDir(), "rows.jsonl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := perfdata.Write(f, perfdata.Options{Rows: 100_000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			ds, err := Load(path, Options{})
			if err != nil || len(ds.Items) < streamFirstRows {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		for b.Loop() {
			s, err := OpenStream(path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			items, _, err := s.Items(streamFirstRows)
			if err != nil || len(items) != streamFirstRows {
				b.Fatal(err)
			}
			b.StopTimer()
			if _, err := s.Wait(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}
