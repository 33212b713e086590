package stats

import (
	"fmt"
	"strings"
)

// notes collects input problems as counted sentences, in the order they
// were first met (which is deterministic: Compute walks its input in
// order).
type notes struct {
	order []string
	count map[string]int
}

func (n *notes) add(what string) {
	if n.count == nil {
		n.count = map[string]int{}
	}
	if n.count[what] == 0 {
		n.order = append(n.order, what)
	}
	n.count[what]++
}

// merge adds other's notes after n's, keeping other's order.
func (n *notes) merge(other *notes) {
	for _, what := range other.order {
		if n.count == nil {
			n.count = map[string]int{}
		}
		if n.count[what] == 0 {
			n.order = append(n.order, what)
		}
		n.count[what] += other.count[what]
	}
}

func (n *notes) list() []string {
	out := make([]string, 0, len(n.order))
	for _, what := range n.order {
		s := strings.ToUpper(what[:1]) + what[1:]
		if c := n.count[what]; c > 1 {
			s = fmt.Sprintf("%s (%d times)", s, c)
		}
		out = append(out, s+".")
	}
	return out
}
