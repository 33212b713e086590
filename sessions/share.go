package sessions

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// InShare reports whether itemID falls in a seeded share (0 to 1) of the
// items: the first 53 bits of SHA-256(seed|len(salt)|salt|itemID) read as a uniform
// number in [0, 1), below share. The same seed, salt and id always give
// the same answer, whatever else the session holds, so a share is stable
// as items and labels arrive and across sittings. The salt keeps shares
// apart: the blind share uses "blind", re-tests "retest:"+annotator.
func InShare(seed int64, salt, itemID string, share float64) bool {
	if !(share > 0) { // NaN too
		return false
	}
	if share >= 1 {
		return true
	}
	return shareDraw(seed, salt, itemID) < share
}

// shareDraw is the uniform number InShare compares with the share.
func shareDraw(seed int64, salt, itemID string) float64 {
	buf := make([]byte, 0, 48+len(salt)+len(itemID))
	buf = strconv.AppendInt(buf, seed, 10)
	buf = append(buf, '|')
	// The salt's length first: an annotator's name may hold '|'.
	buf = strconv.AppendInt(buf, int64(len(salt)), 10)
	buf = append(buf, '|')
	buf = append(buf, salt...)
	buf = append(buf, '|')
	buf = append(buf, itemID...)
	sum := sha256.Sum256(buf)
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}
