package dataset

import "unsafe"

// arena hands out strings carved from large blocks, so that a million
// decoded fields cost a few hundred allocations instead of a million. Bytes
// handed out are never written again, which is what makes the strings
// immutable. One arena per worker; not safe for concurrent use.
type arena struct {
	block   []byte
	inBlock bool // the last reserve came from block
}

const (
	arenaBlock = 256 << 10
	// arenaLarge strings get their own allocation so a block is not
	// wasted on one of them.
	arenaLarge = arenaBlock / 8
)

// reserve returns a zero-length slice with room for n bytes. The caller
// appends at most n bytes to it and hands the result to commit before the
// next reserve.
func (a *arena) reserve(n int) []byte {
	if n >= arenaLarge {
		a.inBlock = false
		return make([]byte, 0, n)
	}
	if cap(a.block)-len(a.block) < n {
		a.block = make([]byte, 0, arenaBlock)
	}
	a.inBlock = true
	return a.block[len(a.block):len(a.block)]
}

// commit turns the bytes written into a reserved slice into a string and
// marks them used.
func (a *arena) commit(p []byte) string {
	if a.inBlock {
		a.block = a.block[:len(a.block)+len(p)]
		a.inBlock = false
	}
	return bytesString(p)
}

// bytesString returns a string sharing p's memory. The caller guarantees
// that p is never modified afterwards: the loader only hands it bytes of the
// file buffer, which it never writes after reading, or arena bytes, which
// are written once. This is what keeps a loaded dataset near the size of
// the file instead of twice it.
func bytesString(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	return unsafe.String(&p[0], len(p))
}
