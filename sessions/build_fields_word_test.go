package sessions

import (
	"math/rand/v2"
	"testing"
)

// encodesToBytewise is encodesTo as it was before it compared eight bytes
// at a time: the reference the word version must agree with.
func encodesToBytewise(s string, raw []byte) bool {
	if len(raw) < len(s)+2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	r := raw[1 : len(raw)-1]
	j := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if j >= len(r) || r[j] != c {
				return false
			}
			j++
			continue
		}
		if e := elideEscape[c]; e != 0 {
			if j+1 >= len(r) || r[j] != '\\' || r[j+1] != e {
				return false
			}
			j += 2
			continue
		}
		if j+5 >= len(r) || r[j] != '\\' || r[j+1] != 'u' || r[j+2] != '0' || r[j+3] != '0' ||
			r[j+4] != hexDigits[c>>4] || r[j+5] != hexDigits[c&15] {
			return false
		}
		j += 6
	}
	return j == len(r)
}

// TestEncodesToWordAtATime: on texts full of bytes that need escapes (and
// of bytes next to them: 0x1f, 0x20, '!', '#', '[', ']', 0x7f, 0x80, 0xff),
// their exact encodings and those encodings changed by one byte, cut or
// lengthened, encodesTo answers as the byte loop does.
func TestEncodesToWordAtATime(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 34))
	alphabet := []byte("abcdefgh \"\\\n\t\x00\x01\x1f\x20!#[]\x7f\x80\xff\xc3\xa9")
	text := func() string {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = 'a' + byte(r.IntN(26))
			}
		}
		return string(b)
	}
	matches := 0
	for range 20000 {
		s := text()
		raw := elideEncode(nil, s)
		cases := [][]byte{raw, elideEncode(nil, text()), append([]byte(nil), raw[:len(raw)-1]...)}
		if len(raw) > 2 {
			flipped := append([]byte(nil), raw...)
			flipped[1+r.IntN(len(raw)-2)] ^= byte(1 << r.IntN(8))
			longer := append(append(append([]byte(nil), raw[:len(raw)-1]...), alphabet[r.IntN(len(alphabet))]), '"')
			cases = append(cases, flipped, longer)
		}
		for _, c := range cases {
			got, want := encodesTo(s, c), encodesToBytewise(s, c)
			if got != want {
				t.Fatalf("encodesTo(%q, %q) = %v, the byte loop says %v", s, c, got, want)
			}
			if got {
				matches++
			}
		}
	}
	if matches < 20000 {
		t.Fatalf("only %d matches: every exact encoding must match", matches)
	}
}

// TestNeedsEscape8 checks the word test against each byte of words made of
// every byte value beside plain ones.
func TestNeedsEscape8(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := range 8 {
			for _, fill := range []byte{'a', 0x20, 0xff, '"' + 1, '\\' - 1} {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(c)
				want := false
				for _, x := range b {
					want = want || x < 0x20 || x == '"' || x == '\\'
				}
				if got := needsEscape8(load64b(b[:])); got != want {
					t.Fatalf("needsEscape8(% x) = %v, want %v", b, got, want)
				}
			}
		}
	}
}
