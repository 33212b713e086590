package sessions

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// independentPart recomputes an item's part from the rule SCHEMA.md
// documents, in exact rational arithmetic: u = first 8 bytes of
// SHA-256("seed" NUL id), big-endian, over 2^64.
func independentPart(seed uint64, share float64, id string) Part {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%s", seed, id)))
	var x big.Int
	x.SetBytes(sum[:8])
	u := new(big.Rat).SetFrac(&x, new(big.Int).Lsh(big.NewInt(1), 64))
	s := new(big.Rat).SetFloat64(share)
	third := new(big.Rat).SetFloat64(share / 3)
	switch {
	case u.Cmp(s) >= 0:
		return PartEvaluation
	case u.Cmp(third) < 0:
		return PartValidation
	}
	return PartCalibration
}

func TestSplitPartOf(t *testing.T) {
	// u as Python computes it: int.from_bytes(sha256(b"7\0q1").digest()[:8], "big") / 2**64.
	for _, c := range []struct {
		seed  uint64
		share float64
		id    string
		u     float64
		want  Part
	}{
		{7, 0.5, "q1", 0.1953304675277459, PartCalibration},
		{7, 0.5, "q2", 0.11745396942459495, PartValidation},
		{7, 0.5, "q3", 0.19816532750837074, PartCalibration},
		{0, 0.5, "", 0.8943794394498068, PartEvaluation},
		{math.MaxUint64, 0.5, "é\x00x", 0.29102726634796244, PartCalibration},
		{42, 0.5, "item-17", 0.8626741597517685, PartEvaluation},
		{42, 0.9, "item-17", 0.8626741597517685, PartCalibration},
		{7, 0.3, "q2", 0.11745396942459495, PartCalibration},
		{7, 0.1, "q2", 0.11745396942459495, PartEvaluation},
	} {
		sp := Split{Seed: c.seed, Calibration: c.share}
		if u := sp.Fraction(c.id); u != c.u {
			t.Errorf("seed %d, id %q: u = %v, want %v", c.seed, c.id, u, c.u)
		}
		for range 3 {
			if got := sp.PartOf(c.id); got != c.want {
				t.Errorf("seed %d, share %v, id %q: %s, want %s", c.seed, c.share, c.id, got, c.want)
			}
		}
		if got := independentPart(c.seed, c.share, c.id); got != c.want {
			t.Errorf("independent: seed %d, share %v, id %q: %s, want %s", c.seed, c.share, c.id, got, c.want)
		}
	}
}

// TestSplitShares checks on 10,000 ids, for several seeds and shares, that
// every item's part equals the independent computation and that the parts'
// shares are within five standard errors of the share asked for.
func TestSplitShares(t *testing.T) {
	const n = 10000
	for _, c := range []struct {
		seed  uint64
		share float64
	}{{1, 0.5}, {2, 0.5}, {99, 0.3}, {12345678901234567890, 0.8}, {5, 0.05}} {
		sp := Split{Seed: c.seed, Calibration: c.share}
		counts := map[Part]int{}
		for i := range n {
			id := "item-" + strconv.Itoa(i)
			p := sp.PartOf(id)
			if q := independentPart(c.seed, c.share, id); p != q {
				t.Fatalf("seed %d, id %s: PartOf %s, independent %s", c.seed, id, p, q)
			}
			counts[p]++
		}
		check := func(what string, got int, want float64) {
			se := math.Sqrt(want * (1 - want) / n)
			if share := float64(got) / n; math.Abs(share-want) > 5*se {
				t.Errorf("seed %d, share %v: %s is %.4f of the items, want %.4f ± %.4f", c.seed, c.share, what, share, want, 5*se)
			}
		}
		check("calibration (validation included)", counts[PartCalibration]+counts[PartValidation], c.share)
		check("validation", counts[PartValidation], c.share/3)
		check("evaluation", counts[PartEvaluation], 1-c.share)
	}
}

func TestSplitInvalidShare(t *testing.T) {
	s, _ := newSession(t)
	for _, share := range []float64{0, 1, -0.5, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := s.RecordSplit(Split{Seed: 1, Calibration: share}, false); err == nil {
			t.Errorf("share %v was recorded", share)
		}
	}
	if _, has, err := s.Split(); has || err != nil {
		t.Errorf("a refused split left a split: %v, %v", has, err)
	}
}

// TestSplitStable records a split, then labels items and adds items: no
// item's part moves, and the store gives back the split it recorded.
func TestSplitStable(t *testing.T) {
	s, path := newSession(t)
	rec, err := s.RecordSplit(Split{Seed: 31, Calibration: 0.5}, false)
	if err != nil {
		t.Fatal(err)
	}
	partsOf := func(st *Store) map[string]Part {
		t.Helper()
		sp, has, err := st.Split()
		if err != nil || !has {
			t.Fatalf("Split: %v, %v", has, err)
		}
		if sp != rec {
			t.Fatalf("Split() = %+v, recorded %+v", sp, rec)
		}
		in, err := st.StatsInput()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]Part{}
		for _, u := range in.Units {
			out[u.ItemID] = sp.PartOf(u.ItemID)
		}
		return out
	}
	before := partsOf(s)
	if len(before) != len(sampleItems()) {
		t.Fatalf("%d items, want %d", len(before), len(sampleItems()))
	}
	for _, id := range []string{"q1", "q2", "q3"} {
		if _, err := s.Record([]Action{label(id, "correct", 1), note(id, "seen")}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = openStore(t, path, "bob")
	after := partsOf(s)
	for id, p := range before {
		if after[id] != p {
			t.Errorf("labelling moved %s from %s to %s", id, p, after[id])
		}
	}
	// A session with 500 more items (before and after these), labelled
	// differently, split with the same seed and share: the shared items
	// have the parts they had.
	items := sampleItems()
	for i := range 500 {
		it := judge.Item{ID: "new-" + strconv.Itoa(i), Question: "?", Gold: "g", Prediction: "p"}
		if i%2 == 0 {
			items = append([]judge.Item{it}, items...)
		} else {
			items = append(items, it)
		}
	}
	for i := range items {
		items[i].Index = i
	}
	bigger := openStore(t, sessionPath(t), "ann")
	if err := bigger.InitDataset(DatasetInfo{Path: "big.jsonl", SHA256: "def", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	if _, err := bigger.Record([]Action{label("q2", "correct", 0), label("new-3", "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	if rec2, err := bigger.RecordSplit(Split{Seed: rec.Seed, Calibration: rec.Calibration}, false); err != nil {
		t.Fatal(err)
	} else {
		rec = rec2 // partsOf checks the split read back against this one
	}
	grown := partsOf(bigger)
	if len(grown) != len(before)+500 {
		t.Fatalf("%d items in the bigger session", len(grown))
	}
	for id, p := range before {
		if grown[id] != p {
			t.Errorf("among 500 more items %s moved from %s to %s", id, p, grown[id])
		}
	}
}

func TestSplitRecordRefusesAndReplaces(t *testing.T) {
	s, path := newSession(t)
	first, err := s.RecordSplit(Split{Seed: 1, Calibration: 0.5}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordSplit(Split{Seed: 2, Calibration: 0.5}, false); !errors.Is(err, ErrSplitExists) {
		t.Fatalf("a second split without replace: %v, want ErrSplitExists", err)
	}
	if sp, _, _ := s.Split(); sp != first {
		t.Fatalf("a refused split changed the split to %+v", sp)
	}
	second, err := s.RecordSplit(Split{Seed: 2, Calibration: 0.6}, true)
	if err != nil {
		t.Fatal(err)
	}
	if sp, has, err := s.Split(); !has || err != nil || sp != second || sp.Seed != 2 || sp.Calibration != 0.6 {
		t.Fatalf("after replace: %+v, %v, %v", sp, has, err)
	}
	db := rawDB(t, path)
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM splits`).Scan(&rows); err != nil || rows != 2 {
		t.Errorf("splits history: %d rows, %v; want 2", rows, err)
	}
	// The table refuses a seed that is not the decimal text the hash reads.
	for _, seed := range []string{"007", "-1", "", "1e3", " 1"} {
		if _, err := db.Exec(`INSERT INTO splits (seed, calibration, created_at) VALUES (?, 0.5, '2025-01-01T00:00:00.000Z')`, seed); err == nil {
			t.Errorf("seed %q was stored", seed)
		}
	}
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.RecordSplit(Split{Seed: 3, Calibration: 0.5}, true); !errors.Is(err, ErrReadOnly) {
		t.Errorf("RecordSplit on a read-only store: %v", err)
	}
}

// TestUpgradeFromV5 opens a v5 session with items and labels: the v6 step
// adds the splits table, the session has no split until one is recorded,
// and its items and labels are read as before.
func TestUpgradeFromV5(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:5], 5
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, sampleItems()); err != nil {
		t.Fatal(err)
	}
	// A v5 build knows no v8 column: insert the label as it would.
	insertPreV8Actions(t, s, preV8Action{id: 1, group: 1, kind: "label", item: "q1", dim: "correct", value: 1})
	s.Close()
	db := rawDB(t, path)
	if v := pragmaInt(t, db, "user_version"); v != 5 {
		t.Fatalf("user_version %d before the upgrade, want 5", v)
	}

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	if v := pragmaInt(t, db, "user_version"); v != int64(schemaVersion) {
		t.Fatalf("user_version %d after the upgrade, want %d", v, schemaVersion)
	}
	if _, has, err := s.Split(); has || err != nil {
		t.Fatalf("an upgraded session has a split: %v, %v", has, err)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Units) != len(sampleItems()) || len(in.Units[0].Labels) != 1 {
		t.Fatalf("after the upgrade: %d units, labels %v", len(in.Units), in.Units[0].Labels)
	}
	sp, err := s.RecordSplit(Split{Seed: 9, Calibration: 0.5}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, has, err := s.Split(); !has || err != nil || got != sp {
		t.Fatalf("Split after recording: %+v, %v, %v", got, has, err)
	}
}
