package llm

import (
	"context"
	"maps"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func okv(vals map[string]float64, reason string, conf float64) judge.Verdict {
	return judge.Verdict{Status: judge.StatusOK, Values: vals, Reason: reason, Raw: reason, Confidence: &conf, PromptTokens: 10, CompletionTokens: 2}
}

func TestCombineSamples(t *testing.T) {
	bin := []judge.Dimension{correctDim}
	two := []judge.Dimension{{Name: "completeness", Scale: judge.Likert}, {Name: "correctness", Scale: judge.Likert}}
	parseErr := judge.Verdict{Status: judge.StatusParseError, Raw: "??", Error: "expected YES or NO"}
	apiErr := judge.Verdict{Status: judge.StatusAPIError, Error: "server error"}
	q := func(c, k float64) map[string]float64 { return map[string]float64{"completeness": c, "correctness": k} }
	tests := []struct {
		name      string
		dims      []judge.Dimension
		samples   []judge.Verdict
		status    judge.Status
		values    map[string]float64
		reason    string
		agreement any
		okCount   int
	}{
		{"majority yes", bin, []judge.Verdict{okv(yes, "a", 0.9), okv(no, "b", 0.6), okv(yes, "c", 0.7)}, judge.StatusOK, yes, "a", 2.0 / 3, 3},
		{"tie goes to the lower value", bin, []judge.Verdict{okv(yes, "a", 0.9), okv(no, "b", 0.6)}, judge.StatusOK, no, "b", 0.5, 2},
		{"unreadable samples do not vote", bin, []judge.Verdict{parseErr, okv(no, "b", 0.8), apiErr}, judge.StatusOK, no, "b", 1.0, 1},
		{"all unreadable: the parse error", bin, []judge.Verdict{apiErr, parseErr, apiErr}, judge.StatusParseError, nil, "", nil, 0},
		{"all failed: the api error", bin, []judge.Verdict{apiErr, apiErr}, judge.StatusAPIError, nil, "", nil, 0},
		{"per dimension", two, []judge.Verdict{okv(q(4, 5), "a", 1), okv(q(4, 3), "b", 1), okv(q(2, 3), "c", 1)}, judge.StatusOK, q(4, 3), "b", 1.0 / 3, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := combineSamples(tc.dims, tc.samples)
			if v.Status != tc.status || !maps.Equal(v.Values, tc.values) || v.Reason != tc.reason {
				t.Errorf("got %s %v %q, want %s %v %q", v.Status, v.Values, v.Reason, tc.status, tc.values, tc.reason)
			}
			if v.Extra[ExtraAgreement] != tc.agreement {
				t.Errorf("agreement %v, want %v", v.Extra[ExtraAgreement], tc.agreement)
			}
			if v.Extra[ExtraSamplesOK] != tc.okCount {
				t.Errorf("samples_ok %v, want %d", v.Extra[ExtraSamplesOK], tc.okCount)
			}
			recs, _ := v.Extra[ExtraSamples].([]any)
			if len(recs) != len(tc.samples) {
				t.Errorf("%d sample records for %d samples", len(recs), len(tc.samples))
			}
			wantTokens := 0
			for _, s := range tc.samples {
				wantTokens += s.PromptTokens
			}
			if v.PromptTokens != wantTokens {
				t.Errorf("prompt tokens %d, want the sum %d", v.PromptTokens, wantTokens)
			}
		})
	}
	// Confidence: the mean over the samples that agree with the majority.
	v := combineSamples(bin, []judge.Verdict{okv(yes, "a", 0.9), okv(no, "b", 0.6), okv(yes, "c", 0.7)})
	if v.Confidence == nil || *v.Confidence != 0.8 {
		t.Errorf("confidence %v, want 0.8", fmtPtr(v.Confidence))
	}
	// The samples' own verdicts are not changed by combining.
	s := []judge.Verdict{okv(yes, "a", 0.9), okv(no, "b", 0.6)}
	combineSamples(bin, s)
	if s[0].Extra != nil || s[0].Values["correct"] != 1 {
		t.Errorf("a sample was modified: %+v", s[0])
	}
}

func TestSamplesEndToEnd(t *testing.T) {
	answers := []string{"YES", "NO", "YES"}
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		writeCompletion(w, req.Model, completion{content: answers[n%3]})
	})
	cfg := testConfig(fs)
	cfg.Samples = 3
	cfg.Cache = newMapCache()
	j := mustJudge(t, "same-event", cfg)
	if j.Info().Params["samples"] != 3 {
		t.Errorf("params %v lack the samples", j.Info().Params)
	}
	v := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() || v.Values["correct"] != 1 || v.Extra[ExtraAgreement] != 2.0/3 || fs.hits.Load() != 3 {
		t.Fatalf("verdict %+v after %d requests", v, fs.hits.Load())
	}
	recs := v.Extra[ExtraSamples].([]any)
	if r := recs[1].(map[string]any); r["raw"] != "NO" || r["status"] != "ok" {
		t.Errorf("sample 2 record %v", r)
	}
	// Each sample has its own cache entry: a re-run costs nothing and agrees.
	again := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
	if fs.hits.Load() != 3 || again.Extra[ExtraAgreement] != 2.0/3 {
		t.Errorf("re-run: %d requests, agreement %v", fs.hits.Load(), again.Extra[ExtraAgreement])
	}
}

// The retries of every sample add up on the verdict; an answer from the
// cache took none.
func TestSamplesAddUpRetries(t *testing.T) {
	answers := []string{"YES", "NO", "YES"}
	var ok atomic.Int64
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		if n == 0 || n == 2 || n == 3 {
			writeError(w, http.StatusInternalServerError, "server_error", "The server had an error")
			return
		}
		writeCompletion(w, req.Model, completion{content: answers[ok.Add(1)-1]})
	})
	cfg := testConfig(fs)
	cfg.Samples = 3
	cfg.Cache = newMapCache()
	j := mustJudge(t, "same-event", cfg)
	v := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() || fs.hits.Load() != 6 || v.Retries != 3 {
		t.Fatalf("verdict %s with %d retries after %d requests; want ok, 3 retries, 6 requests", v.Status, v.Retries, fs.hits.Load())
	}
	if again := j.Judge(context.Background(), judge.Task{Item: testItem("1")}); again.Retries != 0 {
		t.Errorf("cached verdict has %d retries", again.Retries)
	}
}
