package dataset

import "unsafe"

// arena hands out strings carved from large blocks, so that a million
// decoded fields cost a few hundred allocations instead of a million. Bytes
// handed out are never written again, which is what makes the strings
// immutable. One arena per worker; not safe for concurrent use.
type arena struct {
	block   []byte
	inBlock bool // the last reserve came from block
	// own makes every text handed out a copy in the arena, never a slice
	// of the bytes read: a stream that recycles its read buffers sets it
	// (Stream.StoreFields).
	own bool
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

// keep returns p as a string: p's own memory, or a copy in the arena when
// the arena owns its texts.
func (a *arena) keep(p []byte) string {
	if !a.own {
		return bytesString(p)
	}
	return a.commit(append(a.reserve(len(p)), p...))
}

// copyBytes returns a copy of s in the arena, with no spare capacity.
func (a *arena) copyBytes(s string) []byte {
	p := append(a.reserve(len(s)), s...)
	a.commit(p)
	return p[:len(p):len(p)]
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
