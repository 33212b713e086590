package plan

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// PRN is an item's permanent random number under seed, in (0, 1): the
// first 8 bytes of SHA-256 of "gavel-plan", a NUL byte, the seed in
// decimal, a NUL byte and the item's id, read as a big-endian unsigned
// integer x, and (⌊x / 2^11⌋ + 0.5) / 2^53. The half step keeps it off 0
// and 1, so ξ = PRN/λ is always finite and positive. It depends on the
// seed and the id alone: items added or labelled later never move it.
func PRN(seed uint64, itemID string) float64 {
	var buf [128]byte
	b := append(buf[:0], "gavel-plan\x00"...)
	b = strconv.AppendUint(b, seed, 10)
	b = append(b, 0)
	b = append(b, itemID...)
	sum := sha256.Sum256(b)
	x := binary.BigEndian.Uint64(sum[:8])
	return (float64(x>>11) + 0.5) / (1 << 53)
}
