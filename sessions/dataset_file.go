package sessions

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"time"
)

// FileStamp is what a reopen compares before trusting that the dataset
// file is the one whose hash the session holds: its size and modification
// time. Comparing them costs a stat; comparing the hash reads the file.
type FileStamp struct {
	Size  int64
	MTime time.Time
}

// StatFile returns the stamp of the file at path.
func StatFile(path string) (FileStamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return FileStamp{}, err
	}
	return FileStamp{Size: st.Size(), MTime: st.ModTime().UTC()}, nil
}

// mtimeLayout keeps nanoseconds, so that a file rewritten within the same
// second does not look unchanged.
const mtimeLayout = "2006-01-02T15:04:05.000000000Z"

// DatasetFile returns the stamp recorded when the dataset's hash was taken,
// and false when there is none (an older session, or a mismatch found in
// the background cleared it).
func (s *Store) DatasetFile() (FileStamp, bool, error) {
	var size sql.NullInt64
	var mtime sql.NullString
	err := s.read("reading the dataset file's size and time", func(tx *sql.Tx) error {
		err := tx.QueryRow(`SELECT file_size, file_mtime FROM dataset WHERE id = 1`).Scan(&size, &mtime)
		if err == sql.ErrNoRows {
			return nil
		}
		return err
	})
	if err != nil || !size.Valid || !mtime.Valid {
		return FileStamp{}, false, err
	}
	t, err := time.Parse(mtimeLayout, mtime.String)
	if err != nil {
		return FileStamp{}, false, nil // not one this build wrote: compare by content
	}
	return FileStamp{Size: size.Int64, MTime: t}, true, nil
}

// RecordDatasetFile records the dataset file's stamp beside its hash; the
// caller took the stamp no later than it read the bytes it hashed, so a
// write in between shows as a different time on the next open.
func (s *Store) RecordDatasetFile(st FileStamp) error {
	return s.write("recording the dataset file's size and time", func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE dataset SET file_size = ?, file_mtime = ? WHERE id = 1`, st.Size, st.MTime.UTC().Format(mtimeLayout))
		return err
	})
}

// ForgetDatasetFile clears the recorded stamp, so that the next open
// compares the file by content: used when the stamp matched but the hash
// did not.
func (s *Store) ForgetDatasetFile() error {
	return s.write("clearing the dataset file's size and time", func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE dataset SET file_size = NULL, file_mtime = NULL WHERE id = 1`)
		return err
	})
}

// FileSHA256 is the hex SHA-256 of a file's bytes as stored, the digest
// the dataset package takes (dataset.Dataset.SHA256), read in a stream so
// that checking a large file in the background does not hold it in memory.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
