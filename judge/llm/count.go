package llm

import "net/http"

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
	return NewClient(cfg)
}

// OnClient returns the judge bound to c instead of its own client: the
// same definition, judge-file settings and few-shot examples, so it
// builds the very same prompts (see Client.Counting).
func (j *Judge) OnClient(c *Client) *Judge {
	k := *j
	k.client = c
	return &k
}
