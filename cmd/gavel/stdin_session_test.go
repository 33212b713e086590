package main

import (
	"context"
	"strings"
	"testing"
)

// A dataset from standard input has no file name to name a session after,
// and the review screen reads keys from standard input: both are refused
// with what to do, before anything is read.
func TestStandardInputNeedsASessionFile(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"review", "-"}, "gavel review needs the dataset as a file"},
		{[]string{"review", "-", "--session", "x.gavel"}, "gavel review needs the dataset as a file"},
		{[]string{"run", "-", "--judge", "match"}, "give --session FILE.gavel"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			e, _, errb, _ := testEnv(t)
			if code := execute(context.Background(), e, tc.args); code != 2 {
				t.Errorf("exit %d, want 2 (usage); stderr: %s", code, errb)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", errb, tc.want)
			}
		})
	}
}
