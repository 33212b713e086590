package sessions

import (
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Part is where an item falls in a session's split.
type Part string

// The parts of a split. Validation items are calibration items too: the
// third of the calibration part that tuning scores its candidates on.
const (
	PartCalibration Part = "calibration"
	PartValidation  Part = "validation"
	PartEvaluation  Part = "evaluation"
)

// InCalibration reports whether the part is the calibration part or its
// validation third: the items few-shot examples and tuning may read.
func (p Part) InCalibration() bool { return p == PartCalibration || p == PartValidation }

// ErrSplitExists means a split was recorded over an existing one without
// asking to replace it.
var ErrSplitExists = errors.New("session already has a split")

// DefaultCalibrationShare is the calibration part's default share of the
// items (SPEC "Improving a judge": 50 / 50).
const DefaultCalibrationShare = 0.5

// Split is a session's calibration / evaluation split (SPEC "Improving a
// judge"). An item's part depends only on the seed, the share and the
// item's id (PartOf), never on its labels or the other items, so it is
// frozen as labels and items arrive.
type Split struct {
	// Seed seeds the hash; any number.
	Seed uint64
	// Calibration is the calibration part's share of the items, in (0, 1).
	Calibration float64
	// CreatedAt is when the split was recorded (zero before).
	CreatedAt time.Time
}

// Fraction is the item's position in [0, 1) under the seed: the first 8
// bytes of SHA-256 of the seed in decimal, a NUL byte and the item's id,
// read as a big-endian unsigned integer and divided by 2^64 (in float64,
// correctly rounded).
func (sp Split) Fraction(id string) float64 {
	// One buffer on the stack for the usual id, and sha256.Sum256 rather
	// than a hash.Hash: FewShot hashes every labelled item's id.
	var buf [128]byte
	b := strconv.AppendUint(buf[:0], sp.Seed, 10)
	b = append(b, 0)
	b = append(b, id...)
	sum := sha256.Sum256(b)
	x := binary.BigEndian.Uint64(sum[:8])
	return float64(x) / (1 << 64)
}

// PartOf returns the part of the item with this id: evaluation when its
// Fraction u ≥ Calibration; otherwise calibration, and within it
// validation when u < Calibration/3.
func (sp Split) PartOf(id string) Part {
	return sp.partOf(sp.Fraction(id))
}

// partOf is the part of the item whose Fraction is u.
func (sp Split) partOf(u float64) Part {
	switch {
	case u >= sp.Calibration:
		return PartEvaluation
	case u < sp.Calibration/3:
		return PartValidation
	}
	return PartCalibration
}

// Valid returns an error when the share is not in (0, 1).
func (sp Split) Valid() error {
	if !(sp.Calibration > 0 && sp.Calibration < 1) || math.IsNaN(sp.Calibration) {
		return fmt.Errorf("calibration share %v is not between 0 and 1 (exclusive)", sp.Calibration)
	}
	return nil
}

// Split returns the session's current split, and false when it has none.
func (s *Store) Split() (Split, bool, error) {
	var seed, at string
	var share float64
	err := s.read("reading the split", func(tx *sql.Tx) error {
		return tx.QueryRow(`SELECT seed, calibration, created_at FROM splits ORDER BY id DESC LIMIT 1`).Scan(&seed, &share, &at)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return Split{}, false, nil
	}
	if err != nil {
		return Split{}, false, err
	}
	sp, err := readSplit(seed, share, at)
	if err != nil {
		return Split{}, false, damaged(s.path, err)
	}
	return sp, true, nil
}

// readSplit checks a stored split: its seed must be the decimal text the
// hash reads, so that a hand-edited "007" cannot mean two things.
func readSplit(seed string, share float64, at string) (Split, error) {
	n, err := strconv.ParseUint(seed, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != seed {
		return Split{}, fmt.Errorf("bad split seed %q", seed)
	}
	t, err := parseStamp(at)
	if err != nil {
		return Split{}, err
	}
	sp := Split{Seed: n, Calibration: share, CreatedAt: t}
	if err := sp.Valid(); err != nil {
		return Split{}, err
	}
	return sp, nil
}

// RecordSplit records sp as the session's split, stamped now, and returns
// it as stored. When the session has a split already it returns an error
// wrapping ErrSplitExists unless replace is set: a changed split moves
// items between the parts, so what was tuned on the old calibration part
// may have seen items of the new evaluation part. A replaced split stays
// in the session's history (the splits table).
func (s *Store) RecordSplit(sp Split, replace bool) (Split, error) {
	if err := sp.Valid(); err != nil {
		return Split{}, err
	}
	sp.CreatedAt = now()
	err := s.write("recording the split", func(tx *sql.Tx) error {
		if !replace {
			var seed string
			err := tx.QueryRow(`SELECT seed FROM splits ORDER BY id DESC LIMIT 1`).Scan(&seed)
			if err == nil {
				return newError(ErrSplitExists, nil, "session %s already has a split (seed %s): replacing it needs replace", s.path, seed)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		_, err := tx.Exec(`INSERT INTO splits (seed, calibration, created_at) VALUES (?, ?, ?)`,
			strconv.FormatUint(sp.Seed, 10), sp.Calibration, stamp(sp.CreatedAt))
		return err
	})
	if err != nil {
		return Split{}, err
	}
	return sp, nil
}
