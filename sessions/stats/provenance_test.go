package stats

import "testing"

// Which provenances are a fair random sample: the figures that need one
// (Rogan–Gladen, PPI) use only those labels.
func TestProvenanceClass(t *testing.T) {
	for _, c := range []struct {
		p    string
		want uint8
	}{
		{"random", selUnbiased},
		{"sample", selUnbiased},
		{"queue", selUnbiased}, // a team's queue: a seeded random order
		{"plan", selUnbiased},
		{"plan:3", selUnbiased},
		{"order", selOrder},
		{"filter:judge ≠ you", selFiltered},
		{ProvenanceScript, selFiltered},
		{"", selUnknown},
		{"imported", selUnknown},
		{"queued", selUnknown},
	} {
		if got := provenanceClass(c.p); got != c.want {
			t.Errorf("provenanceClass(%q) = %d, want %d", c.p, got, c.want)
		}
	}
}
