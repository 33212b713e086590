package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/internal/pgtest"
)

// bo reviews the team session; a second screen as bo, with the URL
// written another way (a password, the parameters in another order), is
// refused while the first is open, naming the team session (password
// replaced), not a cache file; ana is not kept out. Both spellings share
// one local copy, and once bo's first screen has closed the second
// spelling opens.
func TestReviewTeamOneScreenPerPerson(t *testing.T) {
	srv := pgtest.Shared(t)
	url, _ := teamURL(t, srv)
	name := url[strings.Index(url, "session=")+len("session="):]
	alt := strings.Replace(url, "gavel@", "gavel:s3cret@", 1)
	alt = strings.Replace(alt, "?sslmode=disable&session="+name, "?session="+name+"&sslmode=disable", 1)
	if alt == url {
		t.Fatalf("the URL %s was not rewritten", url)
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	ctx := context.Background()
	quick := func(_ context.Context, m tea.Model) (tea.Model, error) { return m, nil }

	e, _, errb, _ := testEnv(t)
	var second, third string
	var secondCode, thirdCode int
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		e2, _, errb2, _ := testEnv(t)
		e2.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
			t.Error("a second screen as bo opened")
			return m, nil
		}
		secondCode = execute(ctx, e2, []string{"review", alt, "--annotator", "bo"})
		second = errb2.String()
		e3, _, errb3, _ := testEnv(t)
		e3.runTUI = quick
		thirdCode = execute(ctx, e3, []string{"review", alt, "--annotator", "ana"})
		third = errb3.String()
		return m, nil
	}
	if code := execute(ctx, e, []string{"review", url, "--annotator", "bo"}); code != 0 {
		t.Fatalf("the first screen: exit %d: %s", code, errb)
	}
	if secondCode == 0 || !strings.Contains(second, `"bo" is already reviewing the team session postgres://gavel:xxxxx@127.0.0.1:`) ||
		!strings.Contains(second, "session="+name) || strings.Contains(second, "s3cret") || strings.Contains(second, ".gavel") || strings.Contains(second, cache) {
		t.Errorf("the second screen as bo: exit %d: %s", secondCode, second)
	}
	if thirdCode != 0 {
		t.Errorf("ana beside bo: exit %d: %s", thirdCode, third)
	}
	copies, _ := filepath.Glob(filepath.Join(cache, "gavel", "team", "*.gavel"))
	if len(copies) != 1 {
		t.Errorf("local copies %v, want one for both spellings", copies)
	}
	e4, _, errb4, _ := testEnv(t)
	e4.runTUI = quick
	if code := execute(ctx, e4, []string{"review", alt, "--annotator", "bo"}); code != 0 {
		t.Errorf("bo's screen once the first closed: exit %d: %s", code, errb4)
	}
	if _, err := os.Stat(copies[0]); err != nil {
		t.Error(err)
	}
}
