package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileName is a file name that tries to act on the terminal it is
// printed to: a clipboard write, a hyperlink, a title change, a C1 CSI,
// a bidi override and a line of its own.
const hostileName = "evil\x1b]52;c;cm0gLXJmIH4K\x07\x1b]8;;https://x.example/\x07link\x1b]8;;\x07" +
	"\x1b]0;title\x07\u009b2J\u202egpj.jsonl\ngavel: all good"

// terminalProblem says what in a message could act on a terminal, or "".
func terminalProblem(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == 0x1b:
			return "an escape sequence"
		case r < 0x20 && r != '\n', r == 0x7f:
			return fmt.Sprintf("control character %U", r)
		case r >= 0x80 && r < 0xa0:
			return fmt.Sprintf("C1 control %U", r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("bidi control %U", r)
		}
	}
	return ""
}

func TestSafeStderr(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "gavel: no such file\n", "gavel: no such file\n"},
		{"escape sequences shown inert", "gavel: \x1b]0;pwned\x07x.jsonl\n", "gavel: ␛]0;pwned␇x.jsonl\n"},
		{"C1 and bidi", "a\u009bb\u202ec\n", `a\u009bb\u202ec` + "\n"},
		{"a line break inside a message", "gavel: open x\ngavel: all good\n", "gavel: open x⏎gavel: all good\n"},
		{"a carriage return inside a message", "a\rb\n", "a⏎b\n"},
		{"blank lines after a message kept", "done\n\n", "done\n\n"},
		{"no newline", "part one, ", "part one, "},
		{"progress line framing kept", "\rjudge\x1b[31m 3/10\x1b[K", "\rjudge␛[31m 3/10\x1b[K"},
		{"erase-line alone is not framing", "x\x1b[K", "x␛[K"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			n, err := terminalSafe(&b).Write([]byte(tc.in))
			if err != nil || n != len(tc.in) {
				t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(tc.in))
			}
			if b.String() != tc.want {
				t.Errorf("wrote %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// TestErrorNamesHostileFile runs gavel on a file whose name is hostile,
// through the stderr the gavel process uses, and checks that the error
// names the file without letting it act on the terminal.
func TestErrorNamesHostileFile(t *testing.T) {
	e, _, _, _ := testEnv(t)
	var errb bytes.Buffer
	e.stderr = terminalSafe(&errb)
	path := filepath.Join(t.TempDir(), hostileName)
	if code := execute(context.Background(), e, []string{"review", path}); code != exitRuntime {
		t.Fatalf("exit code %d, want %d; stderr %q", code, exitRuntime, errb.String())
	}
	out := errb.String()
	if p := terminalProblem(out); p != "" {
		t.Fatalf("stderr holds %s: %q", p, out)
	}
	if !strings.Contains(out, "evil␛]52;c;") || !strings.Contains(out, `\u202egpj.jsonl⏎gavel: all good`) {
		t.Errorf("the file is not named, inert, in %q", out)
	}
	if lines := strings.Count(out, "\n"); lines != 1 {
		t.Errorf("the error takes %d lines: %q", lines, out)
	}
}

func TestMainEnvSanitisesStderr(t *testing.T) {
	e := mainEnv()
	s, ok := e.stderr.(safeStderr)
	if !ok {
		t.Fatalf("the process's stderr is a %T, not the sanitiser", e.stderr)
	}
	if s.w != os.Stderr {
		t.Errorf("the sanitiser writes to %v, not os.Stderr", s.w)
	}
	if s.Fd() != os.Stderr.Fd() {
		t.Errorf("Fd = %d, want stderr's %d", s.Fd(), os.Stderr.Fd())
	}
}
