package sessions

import (
	"database/sql"
	"sync"
	"time"
)

// How cached responses reach the file: in one transaction per cacheBatch
// entries or every cacheWait, whichever comes first. A response costs
// money, not correctness, so a crash may lose the last moment of them but
// the judges never wait for a disk flush.
const (
	cacheBatch = 64
	cacheWait  = 200 * time.Millisecond
)

// ResponseCache keeps model responses in the session (table responses),
// so that reopening or re-running a session costs no model calls. It
// implements the LLM client's cache: Get and Put are safe for concurrent
// use, and Put never blocks on the disk. Get it from Store.ResponseCache.
type ResponseCache struct {
	s       *Store
	mu      sync.Mutex
	pending map[string]string
	writing map[string]string // taken from pending, not yet committed
	err     error             // the last write failure
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// ResponseCache returns the session's response cache, starting its
// writer on first use. Close flushes it.
func (s *Store) ResponseCache() *ResponseCache {
	s.cacheOnce.Do(func() {
		c := &ResponseCache{
			s:       s,
			pending: map[string]string{},
			kick:    make(chan struct{}, 1),
			stop:    make(chan struct{}),
			done:    make(chan struct{}),
		}
		if !s.readOnly {
			go c.loop()
		} else {
			close(c.done)
		}
		s.cache = c
	})
	return s.cache
}

// Get returns the cached response for key.
func (c *ResponseCache) Get(key string) (string, bool) {
	c.mu.Lock()
	v, ok := c.pending[key]
	if !ok {
		v, ok = c.writing[key]
	}
	c.mu.Unlock()
	if ok {
		return v, true
	}
	err := c.s.read("reading the response cache", func(tx *sql.Tx) error {
		return tx.QueryRow(`SELECT response FROM responses WHERE key = ?`, key).Scan(&v)
	})
	return v, err == nil
}

// maxResponse is the largest response the cache keeps: judge/llm cuts
// its answers well below it, and a bigger one, which only saves a model
// call, is dropped rather than stored.
const maxResponse = 1 << 20

// Put stores a response; it reaches the file within cacheWait. An empty
// response, or one over maxResponse, is dropped.
func (c *ResponseCache) Put(key, response string) {
	if c.s.readOnly || response == "" || len(response) > maxResponse {
		return
	}
	c.mu.Lock()
	c.pending[key] = response
	full := len(c.pending) >= cacheBatch
	c.mu.Unlock()
	if full {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
}

// Err returns the last failure to write the cache, if any.
func (c *ResponseCache) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *ResponseCache) loop() {
	defer close(c.done)
	t := time.NewTicker(cacheWait)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-c.kick:
		case <-c.stop:
			c.flush()
			return
		}
		c.flush()
	}
}

// flush writes what is pending in one transaction. On failure the entries
// are dropped: they only save a model call.
func (c *ResponseCache) flush() {
	c.mu.Lock()
	batch := c.pending
	if len(batch) == 0 {
		c.mu.Unlock()
		return
	}
	c.pending = map[string]string{}
	c.writing = batch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.writing = nil
		c.mu.Unlock()
	}()
	at := stamp(now())
	err := c.s.write("saving model responses", func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT OR REPLACE INTO responses (key, response, created_at) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for k, v := range batch {
			if _, err := st.Exec(k, v, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
	}
}

// close flushes what is pending and stops the writer.
func (c *ResponseCache) close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.done
	return nil
}
