package sessions

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"
)

// GuidelinesVersion is one version of the annotation guidelines (the
// Markdown a person reads while labelling, not the judge's prompt), as
// the session keeps it: a version is a distinct SHA-256 of the text's
// bytes, numbered in the order the session first saw it.
type GuidelinesVersion struct {
	ID        int64
	SHA256    string // lower-case hex
	Text      string
	FirstSeen time.Time
}

// GuidelinesSHA256 is the hash that names a version of text.
func GuidelinesSHA256(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// AddGuidelines stores text as a version of the guidelines unless the
// session has it already, and returns that version; isNew says whether
// this call added it (the screen shows new guidelines once, and says how
// many labels were made under older ones). The version's ID is what every
// decision made with it on screen records (Action.Guidelines).
func (s *Store) AddGuidelines(text string) (v GuidelinesVersion, isNew bool, err error) {
	sum := GuidelinesSHA256(text)
	err = s.write("storing the guidelines", func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO guidelines (sha256, text, first_seen) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING`,
			sum, text, stamp(now()))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		isNew = n == 1
		v, err = scanGuidelines(tx.QueryRow(`SELECT id, sha256, text, first_seen FROM guidelines WHERE sha256 = ?`, sum))
		return err
	})
	if err != nil {
		return GuidelinesVersion{}, false, err
	}
	return v, isNew, nil
}

// GuidelinesVersions returns every version the session holds, oldest
// (lowest ID) first; the last is the current one for statistics.
func (s *Store) GuidelinesVersions() ([]GuidelinesVersion, error) {
	var out []GuidelinesVersion
	err := s.read("reading the guidelines", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT id, sha256, text, first_seen FROM guidelines ORDER BY id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scanGuidelines(rows)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// OlderGuidelinesLabels counts the current labels of annotator ("" for
// every annotator) made under a version of the guidelines other than
// current, the version on screen: the labels to re-review. Labels made
// with no guidelines on screen are not older; with current 0 (no
// guidelines now) nothing is.
func (s *Store) OlderGuidelinesLabels(annotator string, current int64) (int, error) {
	if current <= 0 {
		return 0, nil
	}
	var n int
	err := s.read("counting labels made under older guidelines", func(tx *sql.Tx) error {
		return tx.QueryRow(`SELECT count(*) FROM actions a
			WHERE (? = '' OR a.annotator = ?) AND a.guidelines_id IS NOT NULL AND a.guidelines_id <> ? AND `+currentLabelAction,
			annotator, annotator, current).Scan(&n)
	})
	return n, err
}

type rowScanner interface{ Scan(dest ...any) error }

func scanGuidelines(r rowScanner) (GuidelinesVersion, error) {
	var v GuidelinesVersion
	var seen string
	if err := r.Scan(&v.ID, &v.SHA256, &v.Text, &seen); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return v, errors.New("the guidelines just stored cannot be read back")
		}
		return v, err
	}
	var err error
	v.FirstSeen, err = parseStamp(seen)
	return v, err
}
