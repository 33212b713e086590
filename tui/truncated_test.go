package tui

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// Truncated verdicts (the server cut the prompt to its context) have a
// filter of their own, offered only when the run has some, apart from
// "parse or API errors"; the judging line and the log count ok, parse
// errors, API errors and truncated apart, and the log says how to raise
// the context.
func TestTruncatedOnScreen(t *testing.T) {
	items := testItems(5)
	vs := verdictsFor(items)
	vs[1].Status, vs[1].Error = judge.StatusTruncated, "the server read 2048 of about 7000 prompt tokens"
	vs[3].Status, vs[3].Values = judge.StatusParseError, nil
	info := judge.Info{Name: "docqa", Model: "llama3.1:8b", Dimensions: matchInfo.Dimensions}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: info, Verdicts: vs}}, nil, 120, 40)
	matches := map[string]string{}
	for _, f := range m.filters() {
		var ids []string
		for i := range items {
			if f.match != nil && f.match(m.workspace, i) {
				ids = append(ids, items[i].ID)
			}
		}
		matches[f.id] = strings.Join(ids, ",")
	}
	if got, ok := matches["truncated"]; !ok || got != "q2" {
		t.Errorf("the truncated filter: %q (offered %v), want q2", got, ok)
	}
	if got := matches["errors"]; got != "q4" {
		t.Errorf("the errors filter: %q, want q4 only", got)
	}
	m = press(t, m, "right")
	if s := plain(m); !strings.Contains(s, "truncated") || !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(s, "│", " ")), " "), "the server read 2048 of about 7000 prompt tokens") {
		t.Errorf("the truncated verdict is not shown as such:\n%s", s)
	}

	// Without a truncated verdict the filter is not offered.
	m2 := newTestModel(t, &fakeStore{}, items, []Run{{Info: info, Verdicts: verdictsFor(items)}}, nil, 120, 40)
	for _, f := range m2.filters() {
		if f.id == "truncated" {
			t.Error("the truncated filter is offered with no truncated verdict")
		}
	}

	// A judging in progress, then its end.
	ch := make(chan sessions.Batch)
	m2.runs[0].streams[0] = &stream{ch: ch, last: sessions.Batch{Done: 4, Total: 9, Errors: 3, ParseErrors: 1, APIErrors: 1, Truncated: 1}}
	if s := plain(m2); !strings.Contains(s, "judging 4/9") || !strings.Contains(s, "1 parse error · 1 API error · 1 truncated") {
		t.Errorf("the judging line does not count the kinds apart:\n%s", s)
	}
	close(ch)
	m2.runs[0].streams[0].last = sessions.Batch{Done: 9, Total: 9, Errors: 3, ParseErrors: 1, APIErrors: 1, Truncated: 1}
	m2 = update(t, m2, batchMsg{run: 0, stream: 0, closed: true})
	log := strings.Join(strings.Fields(logText(m2)), " ")
	for _, want := range []string{"9 of 9 tasks done, 6 ok, 1 parse error, 1 API error, 1 truncated", "num_ctx", "OLLAMA_CONTEXT_LENGTH", "--ctx-size", `"truncated prompts"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// A withheld confidence shows its reason where the confidence would be,
// and counts as unknown: neither the low-confidence filter nor the
// least-confident order takes it for a low one.
func TestWithheldConfidenceOnScreen(t *testing.T) {
	items := testItems(3)
	vs := verdictsFor(items)
	low := 0.2
	vs[0].Extra = map[string]any{sessions.ExtraConfidenceWithheld: "the server's logprobs cannot describe the answer: its token \" YES\" has probability 1e-12"}
	vs[1].Confidence = &low
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: vs}}, nil, 120, 40)
	s := strings.Join(strings.Fields(strings.ReplaceAll(plain(m), "│", " ")), " ")
	if !strings.Contains(s, "confidence withheld: the server's logprobs cannot describe the answer") || strings.Contains(s, "confidence_withheld") {
		t.Errorf("the withheld confidence is not shown with its reason:\n%s", plain(m))
	}
	if m.lowConfidence(0) || !m.lowConfidence(1) {
		t.Errorf("low confidence: withheld %v, 20%% %v", m.lowConfidence(0), m.lowConfidence(1))
	}
	if _, has := m.confidence(0); has {
		t.Error("a withheld confidence reads as known")
	}
}
