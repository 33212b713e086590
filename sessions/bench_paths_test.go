package sessions

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/internal/perfdata"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// The whole paths a user runs before the first screen, on the generated
// rows scripts/perf/run times (internal/perfdata, about 590 bytes each):
// reading the file with dataset.Load and opening the session with
// OpenReview, as `gavel review FILE --session S` does, and importing a
// labelled file as `gavel import` does. scripts/perf/run times the whole
// commands; these say where inside them the time goes.

// pathRows is the size of the path benchmarks: the 100,000-row file of
// the performance script.
const pathRows = 100_000

// writeRows writes n generated rows (labelled: with a judge verdict and a
// human label column) to a JSONL file in dir and returns its path.
func writeRows(b *testing.B, dir string, n int, labelled bool) string {
	b.Helper()
	path := filepath.Join(dir, "rows.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := perfdata.Write(f, perfdata.Options{Rows: n, Labelled: labelled, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// loadRows is dataset.Load as the review command calls it.
func loadRows(b *testing.B, path string) *dataset.Dataset {
	b.Helper()
	ds, err := dataset.Load(path, dataset.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if len(ds.Items) != pathRows {
		b.Fatalf("%s: %d items, want %d", path, len(ds.Items), pathRows)
	}
	return ds
}

// BenchmarkPathOpenNew is a review of a new session: the file read and
// the session made from it, until OpenReview returns the items to show.
// Closing (which waits for any write still running in the background) is
// reported apart, as close-ms/op.
func BenchmarkPathOpenNew(b *testing.B) {
	dir := b.TempDir()
	file := writeRows(b, dir, pathRows, false)
	var closing float64
	i := 0
	for b.Loop() {
		i++
		session := filepath.Join(dir, "new.gavel")
		rv, err := OpenReview(session, "ann", loadRows(b, file))
		if err != nil {
			b.Fatal(err)
		}
		if !rv.Created || len(rv.Items) != pathRows {
			b.Fatalf("created %v with %d items, want a new session of %d", rv.Created, len(rv.Items), pathRows)
		}
		b.StopTimer()
		closing += closeTimed(b, rv.Store)
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(session + suffix)
		}
		b.StartTimer()
	}
	b.ReportMetric(closing/float64(i), "close-ms/op")
}

// BenchmarkPathReopen is a review reopened on the same, unchanged file:
// the file read and the session opened, until OpenReview returns.
func BenchmarkPathReopen(b *testing.B) {
	dir := b.TempDir()
	file := writeRows(b, dir, pathRows, false)
	session := filepath.Join(dir, "reopen.gavel")
	rv, err := OpenReview(session, "ann", loadRows(b, file))
	if err != nil {
		b.Fatal(err)
	}
	if err := rv.Store.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rv, err := OpenReview(session, "ann", loadRows(b, file))
		if err != nil {
			b.Fatal(err)
		}
		if rv.Created || len(rv.Items) != pathRows {
			b.Fatalf("reopen: created %v with %d items, want the existing session's %d", rv.Created, len(rv.Items), pathRows)
		}
		b.StopTimer()
		if err := rv.Store.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkPathImportLabelled is `gavel import` of the labelled file
// (a judge verdict and a human label on every row) into a new session:
// read, imported and closed.
func BenchmarkPathImportLabelled(b *testing.B) {
	dir := b.TempDir()
	file := writeRows(b, dir, pathRows, true)
	for b.Loop() {
		session := filepath.Join(dir, "import.gavel")
		ds := loadRows(b, file)
		s, err := Open(session, Options{Annotator: "ann"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ImportDataset(s, ds, nil); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(session + suffix)
		}
		b.StartTimer()
	}
}

// closeTimed closes s and returns how long that took, in milliseconds.
func closeTimed(b *testing.B, s *Store) float64 {
	b.Helper()
	start := time.Now()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return float64(time.Since(start).Microseconds()) / 1000
}
