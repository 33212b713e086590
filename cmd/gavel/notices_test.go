package main

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

// The notice of skipped bad rows says which rows they were (the first
// few the reader kept), so that the file can be fixed.
func TestDatasetNoticesNameSkippedRows(t *testing.T) {
	cases := []struct {
		name    string
		ds      dataset.Dataset
		want    []string
		notWant string
	}{
		{"none", dataset.Dataset{}, nil, "skipped"},
		{"all named", dataset.Dataset{Skipped: 2, SkippedSamples: []string{"d.jsonl:3: invalid JSON", "d.jsonl:9: invalid JSON"}},
			[]string{"2 bad rows skipped: d.jsonl:3: invalid JSON; d.jsonl:9: invalid JSON"}, "…"},
		{"more than named", dataset.Dataset{Skipped: 7, SkippedSamples: []string{"d.jsonl:3: invalid JSON"}},
			[]string{"7 bad rows skipped: d.jsonl:3: invalid JSON; …"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(datasetNotices(&c.ds), "\n")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("notices %q lack %q", got, w)
				}
			}
			if c.notWant != "" && strings.Contains(got, c.notWant) {
				t.Errorf("notices %q hold %q", got, c.notWant)
			}
		})
	}
}
