package sessions

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestIssue11OversizedVerdictTextsAreCut(t *testing.T) {
	s, _ := newSession(t)
	run, err := s.EnsureRun(binaryInfo("j", "m"))
	if err != nil {
		t.Fatal(err)
	}
	big := "HEAD" + strings.Repeat("é", 5<<20) + "TAIL"
	v := judge.Verdict{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"correct": 1},
		Raw: big, Reason: big, Error: big, Extra: map[string]any{"list": []any{big, "short"}, "pad": strings.Repeat("x", 2<<20)}}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{v}); err != nil {
		t.Fatal(err)
	}
	vs, err := s.Verdicts(run.ID)
	if err != nil || len(vs) != 1 {
		t.Fatalf("%d verdicts, %v", len(vs), err)
	}
	got := vs[0]
	for what, x := range map[string]struct {
		s     string
		limit int
	}{
		"raw":    {got.Raw, judge.RawHead + judge.RawTail + 64},
		"reason": {got.Reason, judge.TextHead + judge.TextTail + 64},
		"error":  {got.Error, judge.TextHead + judge.TextTail + 64},
		"extra":  {got.Extra["list"].([]any)[0].(string), judge.TextHead + judge.TextTail + 64},
	} {
		if len(x.s) > x.limit || !strings.HasPrefix(x.s, "HEAD") || !strings.HasSuffix(x.s, "TAIL") || !strings.Contains(x.s, " bytes cut]") {
			t.Errorf("%s: %d bytes, want at most %d with head, tail and the cut marked", what, len(x.s), x.limit)
		}
		if !strings.Contains(x.s, "é") || strings.ContainsRune(x.s, '\uFFFD') {
			t.Errorf("%s was cut inside a character", what)
		}
	}
	if got.Extra["list"].([]any)[1] != "short" {
		t.Errorf("a short extra string was changed: %v", got.Extra["list"])
	}
	// A text cut already is stored as it is.
	if c := judge.CutText(got.Raw, judge.RawHead, judge.RawTail); c != got.Raw {
		t.Error("cutting twice changed the text")
	}
	if small := "reason: ok\nresult: YES"; judge.CutText(small, judge.RawHead, judge.RawTail) != small {
		t.Error("a short text was cut")
	}
}

func TestIssue11CacheDropsEmptyAndOversizedResponses(t *testing.T) {
	s, _ := newSession(t)
	c := s.ResponseCache()
	c.Put("empty", "")
	c.Put("huge", strings.Repeat("x", maxResponse+1))
	c.Put("ok", `{"content":"YES"}`)
	for _, k := range []string{"empty", "huge"} {
		if _, ok := c.Get(k); ok {
			t.Errorf("the cache kept %s", k)
		}
	}
	if v, ok := c.Get("ok"); !ok || v != `{"content":"YES"}` {
		t.Errorf("Get(ok) = %q, %v", v, ok)
	}
}
