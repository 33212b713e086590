package tui

// clipText returns at most n bytes of s, cut at a rune boundary, so that
// a 10 MB field is never sanitised or measured whole for one line.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
