package sessions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gavel-dev/gavel/internal/perfdata"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// BenchmarkImportStreamed100k is BenchmarkImportNew100k as runImport now
// does it: the items written while the file is still parsed
// (BuildStreamSessionThen), then the import inside the build.
func BenchmarkImportStreamed100k(b *testing.B) {
	benchmarkImportStreamed(b, 100_000, false)
}

// BenchmarkImportStreamedLabelled100k is BenchmarkImportStreamed100k on
// rows with a verdict and a human label.
func BenchmarkImportStreamedLabelled100k(b *testing.B) {
	benchmarkImportStreamed(b, 100_000, true)
}

func benchmarkImportStreamed(b *testing.B, rows int, labelled bool) {
	dir := b.TempDir()
	file := filepath.Join(dir, "data.jsonl")
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := perfdata.Write(f, perfdata.Options{Rows: rows, Labelled: labelled, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(file)
	b.SetBytes(info.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		path := filepath.Join(dir, "s.gavel")
		for _, s := range []string{"", "-wal", "-shm"} {
			os.Remove(path + s)
		}
		st, err := dataset.OpenStream(file, dataset.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := st.Items(1); err != nil {
			b.Fatal(err)
		}
		st.StoreFields(ImportFieldsEncoder)
		ds, err := BuildStreamSessionThen(path, st, func(s *Store, ds *dataset.Dataset) error {
			_, err := ImportDatasetWith(s, ds, ImportOptions{})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		rv, err := OpenReview(path, "gavel import", ds)
		if err != nil {
			b.Fatal(err)
		}
		if err := rv.Store.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
