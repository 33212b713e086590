package tui

import "github.com/gavel-dev/gavel/sessions/safetext"

// Sanitize is safetext.Sanitize: the one sanitiser, named here because
// every view of the screen calls it.
func Sanitize(s string) string { return safetext.Sanitize(s) }

// SanitizeLine is safetext.SanitizeLine: Sanitize for one line.
func SanitizeLine(s string) string { return safetext.SanitizeLine(s) }

// Clip is safetext.Clip: at most n bytes, cut at a character boundary.
func Clip(s string, n int) string { return safetext.Clip(s, n) }
