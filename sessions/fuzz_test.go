package sessions

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzOpen feeds arbitrary file contents to Open and to every read: no
// input may panic, and every error must name the file.
func FuzzOpen(f *testing.F) {
	valid := validSessionBytes(f)
	f.Add([]byte{})
	f.Add([]byte("not a database at all"))
	f.Add(append([]byte(nil), sqliteMagic...))
	f.Add(valid)
	f.Add(valid[:len(valid)/3])
	for _, off := range []int{16, 18, 28, 56, 60, 68, 100, 4096 + 8, len(valid) - 100} {
		b := bytes.Clone(valid)
		b[off] ^= 0xff
		f.Add(b)
	}
	newer := bytes.Clone(valid)
	binary.BigEndian.PutUint32(newer[60:], uint32(schemaVersion+7)) // user_version
	f.Add(newer)

	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.gavel")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readOnlyUse(path); err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("read-only error does not name the file: %v", err)
		}
		if err := useSession(path); err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}

// validSessionBytes returns the bytes of a closed session with a dataset,
// a run, verdicts, labels and notes.
func validSessionBytes(tb testing.TB) []byte {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "seed.gavel")
	s, err := Open(path, Options{Annotator: "ann"})
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl"}, sampleItems()); err != nil {
		tb.Fatal(err)
	}
	run, err := s.EnsureRun(binaryInfo("docqa", "m"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, sampleVerdicts()); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Record([]Action{label("q1", "correct", 1), note("q1", "n")}); err != nil {
		tb.Fatal(err)
	}
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// readOnlyUse opens a session read-only and reads everything in it.
func readOnlyUse(path string) error {
	s, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.Items(); err != nil {
		return err
	}
	runs, err := s.Runs()
	if err != nil {
		return err
	}
	for _, r := range runs {
		if _, err := s.VerdictHistory(r.ID, "q1"); err != nil {
			return err
		}
	}
	_, err = s.Labels("")
	return err
}
