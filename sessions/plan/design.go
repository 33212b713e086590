package plan

import (
	"fmt"
	"strings"
)

// Design is how a plan chooses items.
type Design string

// The designs of `gavel plan --design`.
const (
	// Uniform gives every item the probability n/N: a simple random
	// sample without replacement.
	Uniform Design = "uniform"
	// Stratified shares n among the values of a field (largest
	// remainders, at least one per value) and samples each at random.
	Stratified Design = "stratified"
	// Active samples in proportion to the judge's uncertainty, with a
	// uniform floor.
	Active Design = "active"
)

// Designs lists the designs in the order help texts show them.
var Designs = []Design{Uniform, Stratified, Active}

// DefaultFloor is the share of the budget an active plan spreads evenly
// over every item: each item's probability is at least DefaultFloor·n/N,
// so no item is out of reach and every label can be weighted.
const DefaultFloor = 0.2

// ParseDesign reads a design's name, ignoring case and surrounding
// blanks.
func ParseDesign(s string) (Design, error) {
	d := Design(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Designs {
		if d == known {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown design %q: use uniform, stratified or active", s)
}
