package llm

import (
	"maps"
	"slices"

	"github.com/gavel-dev/gavel/judge"
)

// combineSamples turns the samples of one task into one verdict.
//
// Each dimension takes the value most samples gave, among the samples that
// could be read; a tie goes to the lowest tied value (NO before YES, the
// lower score), so that sampling never inflates a result, and on a
// pairwise scale with a tie to the tie (see mode). The verdict's
// reason, raw text and extra fields come from the first sample that agrees
// with the majority on every dimension (else the one agreeing on most).
// Confidence is the mean confidence of the agreeing samples. Every sample
// is kept in Extra[ExtraSamples] (a sample whose raw output is the
// verdict's has raw_is_verdict instead of a copy of it), with the agreement (self-consistency) in
// Extra[ExtraAgreement]. When no sample could be read the verdict is the
// first parse_error, or else the first api_error.
func combineSamples(dims []judge.Dimension, samples []judge.Verdict) judge.Verdict {
	var ok []judge.Verdict
	records := make([]any, len(samples))
	promptTokens, completionTokens := 0, 0
	for i, s := range samples {
		records[i] = sampleRecord(s)
		promptTokens += s.PromptTokens
		completionTokens += s.CompletionTokens
		if s.OK() {
			ok = append(ok, s)
		}
	}
	var v judge.Verdict
	if len(ok) == 0 {
		v = samples[0]
		for _, s := range samples {
			if s.Status == judge.StatusParseError {
				v = s
				break
			}
		}
		v.Extra = maps.Clone(v.Extra)
	} else {
		majority := make(map[string]float64, len(dims))
		for _, d := range dims {
			majority[d.Name] = mode(ok, d)
		}
		best, bestMatches, agreeing := 0, -1, 0
		var confSum float64
		confN := 0
		for i, s := range ok {
			m := matches(s.Values, majority)
			if m > bestMatches {
				best, bestMatches = i, m
			}
			if m == len(majority) {
				agreeing++
				if s.Confidence != nil {
					confSum += *s.Confidence
					confN++
				}
			}
		}
		v = ok[best]
		v.Values = majority
		v.Extra = maps.Clone(v.Extra)
		v.Confidence = nil
		if confN > 0 {
			c := confSum / float64(confN)
			v.Confidence = &c
			// The agreeing samples that had one speak for the verdict.
			delete(v.Extra, ExtraConfidenceWithheld)
		}
		v.Extra = setExtra(v.Extra, ExtraAgreement, float64(agreeing)/float64(len(ok)))
	}
	v.PromptTokens, v.CompletionTokens = promptTokens, completionTokens
	// The verdict's own raw output is stored once, in Raw: the samples
	// that wrote the same text say so rather than repeat it.
	for _, r := range records {
		m := r.(map[string]any)
		if raw, ok := m["raw"].(string); ok && raw == v.Raw {
			delete(m, "raw")
			m["raw_is_verdict"] = true
		}
	}
	v.Extra = setExtra(v.Extra, ExtraSamples, records)
	v.Extra[ExtraSamplesOK] = len(ok)
	return v
}

// mode is the most frequent value of a dimension; ties go to the lowest,
// except on a pairwise scale that allows a tie: there samples split
// between A and B are a tie, since the lowest value (A) would be the
// response shown first, and a split vote says no response won.
func mode(samples []judge.Verdict, d judge.Dimension) float64 {
	counts := map[float64]int{}
	for _, s := range samples {
		if x, ok := s.Values[d.Name]; ok {
			counts[x]++
		}
	}
	vals := slices.Sorted(maps.Keys(counts))
	best, bestN, tied := 0.0, 0, false
	for _, x := range vals {
		switch {
		case counts[x] > bestN:
			best, bestN, tied = x, counts[x], false
		case counts[x] == bestN:
			tied = true
		}
	}
	if tied && d.Scale.AllowsTie() {
		return judge.PreferTie
	}
	return best
}

func matches(values, majority map[string]float64) int {
	n := 0
	for k, x := range majority {
		if y, ok := values[k]; ok && y == x {
			n++
		}
	}
	return n
}

// sampleRecord keeps one sample in a form any JSON store can hold.
func sampleRecord(s judge.Verdict) map[string]any {
	r := map[string]any{"status": string(s.Status)}
	if len(s.Values) > 0 {
		vals := make(map[string]any, len(s.Values))
		for k, x := range s.Values {
			vals[k] = x
		}
		r["values"] = vals
	}
	if s.Reason != "" {
		r["reason"] = s.Reason
	}
	if s.Raw != "" {
		r["raw"] = s.Raw
	}
	if s.Error != "" {
		r["error"] = s.Error
	}
	if s.Confidence != nil {
		r["confidence"] = *s.Confidence
	}
	return r
}
