package llm

import (
	"errors"
	"maps"
	"net/http"
	"strings"
	"sync"

	"github.com/gavel-dev/gavel/judge"
)

// Counting returns a client with c's model, settings and checks that
// sends its requests to rt instead of the server, reads cache (nil: no
// cache, every sample is asked, as in a re-judge) and is not paced. It
// shares nothing with c — no connections, no health, no fatal state —
// so counting what a run would send (judge/cost) does not touch the
// client that then sends it. rt sees each request exactly as it would
// leave, after the cache missed; one try each (no retries), since a
// counting transport refuses what it is given.
func (c *Client) Counting(rt http.RoundTripper, cache Cache) (*Client, error) {
	cfg := c.cfg
	cfg.Transport, cfg.Cache, cfg.RPM = rt, cache, 0
	cfg.OnHealth = nil
	cfg.Retry.Attempts = 1
	k, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	if cache != nil {
		// A prompt asked twice in one run is sent once (Client.inflight,
		// and the Batch API path's one line per key): counted once.
		// Without a cache (a re-judge) every copy is sent, and counted.
		k.counted = &sync.Map{}
	}
	// What Probe learned of the server's context: a prompt the real
	// client would not send (too long) is not counted either.
	c.server.mu.Lock()
	k.server.kind, k.server.limit, k.server.from = c.server.kind, c.server.limit, c.server.from
	k.server.models = maps.Clone(c.server.models)
	c.server.mu.Unlock()
	return k, nil
}

// TooLong reports whether a verdict's task was not sent because its
// prompt cannot fit the server's context (as Probe learned it).
func TooLong(v judge.Verdict) bool {
	return v.Status == judge.StatusAPIError && strings.HasPrefix(v.Error, TooLongPrefix)
}

// OnClient returns the judge bound to c instead of its own client: the
// same definition, judge-file settings and few-shot examples, so it
// builds the very same prompts (see Client.Counting).
func (j *Judge) OnClient(c *Client) *Judge {
	k := *j
	k.client = c
	return &k
}

// errCountedAlready ends, on a counting client, a request whose cache key
// this count has already counted: the run answers it from the cache.
var errCountedAlready = errors.New("not sent: the same prompt is counted already, and the run answers it from the cache")

// CountPaid makes a counting client (Counting, with a cache) take keys
// as answered: requests already paid for (in a batch still running) are
// not counted again.
func (c *Client) CountPaid(keys []string) {
	if c.counted == nil {
		return
	}
	for _, k := range keys {
		c.counted.Store(k, countedPaid)
	}
}

// The values of Client.counted: a key counted in this count, or paid for
// before it.
const (
	countedHere = 1
	countedPaid = 2
)

// NotCounted is how many requests a counting client did not count:
// repeats of a prompt it had counted already (the run answers them from
// the cache), and requests already paid for (CountPaid).
func (c *Client) NotCounted() (repeats, paid int) {
	return int(c.repeats.Load()), int(c.paidHits.Load())
}
