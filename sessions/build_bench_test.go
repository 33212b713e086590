package sessions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gavel-dev/gavel/internal/perfdata"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// BenchmarkImportNew100k is the whole path of `gavel import` into a new
// session on 100,000 generated rows (perfdata, about 59 MB), as runImport
// does it: read the file as a stream keeping rows in the stored form
// (importStream), build the session with the import inside the build
// (nothing to import in these rows beyond the dataset), open it for the
// import's annotator, close.
func BenchmarkImportNew100k(b *testing.B) {
	benchmarkImportNew(b, 100_000, false)
}

// BenchmarkImportNewLabelled100k is BenchmarkImportNew100k on rows that
// carry a judge's verdict and a human label, so that the import writes a
// run, its verdicts and an annotator's labels too.
func BenchmarkImportNewLabelled100k(b *testing.B) {
	benchmarkImportNew(b, 100_000, true)
}

func benchmarkImportNew(b *testing.B, rows int, labelled bool) {
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
	st, _ := os.Stat(file)
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		path := filepath.Join(dir, "s.gavel")
		for _, s := range []string{"", "-wal", "-shm"} {
			os.Remove(path + s)
		}
		ds := importStream(b, file)
		err = BuildDatasetSessionThen(path, ds, func(s *Store) error {
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
		if i == 0 {
			if st, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(st.Size()), "session-B") // one session, not per iteration
			}
		}
	}
}

// importStream reads a dataset as `gavel import` reads one for a new
// session (cmd/gavel readImport): a stream whose items after the first
// chunk keep their rows in the stored form, the texts copied out.
func importStream(b *testing.B, file string) *dataset.Dataset {
	b.Helper()
	st, err := dataset.OpenStream(file, dataset.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := st.Items(1); err != nil {
		b.Fatal(err)
	}
	st.StoreFields(ImportFieldsEncoder)
	ds, err := st.Wait()
	if err != nil {
		b.Fatal(err)
	}
	return ds
}
