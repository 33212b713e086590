package sessions

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// APIBatch is one chunk of a run's requests sent through a Batch API
// (`gavel run --batch`), as api_batches records it.
type APIBatch struct {
	// Chunk is the chunk's random marker, also in its batch's metadata.
	Chunk     string
	Requests  int
	Bytes     int64
	PlannedAt time.Time
	// InputFile and BatchID are "" until the file is uploaded and the
	// batch created.
	InputFile string
	BatchID   string
	// Status is "planned", then the batch's status as last read.
	Status           string
	Answered, Failed int
	// Finished is set once the batch ended and its results were read
	// (finished_at).
	Finished bool
}

// APIBatches is one run's Batch API state in the session: the chunks of
// its requests and which chunk each request went in. Every method is a
// transaction of its own. Get it from Store.APIBatches.
type APIBatches struct {
	s   *Store
	run int64
}

// APIBatches returns the Batch API state of a run.
func (s *Store) APIBatches(runID int64) *APIBatches { return &APIBatches{s: s, run: runID} }

// SessionMarker names the session in its batches' metadata: a hash of
// when the session was made, stable as long as the file lives (a changed
// dataset file keeps it), and telling two sessions apart.
func (b *APIBatches) SessionMarker() (string, error) {
	var created string
	err := b.s.read("reading the session's start", func(tx *sql.Tx) error {
		return tx.QueryRow(`SELECT created_at FROM dataset WHERE id = 1`).Scan(&created)
	})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte("gavel-session\x00" + created))
	return hex.EncodeToString(sum[:8]), nil
}

// Chunks lists the run's chunks in the order they were planned.
func (b *APIBatches) Chunks() ([]APIBatch, error) {
	var out []APIBatch
	err := b.s.read("reading the run's batches", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT chunk, requests, bytes, planned_at, input_file, batch_id, status, answered, failed, finished_at IS NOT NULL
			FROM api_batches WHERE run_id = ? ORDER BY rowid`, b.run)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c APIBatch
			var planned string
			if err := rows.Scan(&c.Chunk, &c.Requests, &c.Bytes, &planned, &c.InputFile, &c.BatchID, &c.Status, &c.Answered, &c.Failed, &c.Finished); err != nil {
				return err
			}
			if c.PlannedAt, err = parseStamp(planned); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, err
}

// Plan records new chunks and their requests' keys (keys[i] are
// chunks[i]'s) in one transaction. A key already in a chunk is an error:
// a request goes in one batch at most.
func (b *APIBatches) Plan(chunks []APIBatch, keys [][]string) error {
	if len(keys) != len(chunks) {
		return fmt.Errorf("sessions: %d chunks with %d key lists", len(chunks), len(keys))
	}
	return b.s.write("recording the run's batches", func(tx *sql.Tx) error {
		add, err := tx.Prepare(`INSERT INTO api_batches (chunk, run_id, requests, bytes, planned_at, status) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer add.Close()
		key, err := tx.Prepare(`INSERT INTO api_batch_requests (key, chunk) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer key.Close()
		for i, c := range chunks {
			status := c.Status
			if status == "" {
				status = "planned"
			}
			if _, err := add.Exec(c.Chunk, b.run, c.Requests, c.Bytes, stamp(c.PlannedAt), status); err != nil {
				return err
			}
			for _, k := range keys[i] {
				if _, err := key.Exec(k, c.Chunk); err != nil {
					return fmt.Errorf("request %s: %w", k, err)
				}
			}
		}
		return nil
	})
}

// keysAtOnce is how many keys one IN list asks for.
const keysAtOnce = 500

// ChunkOf returns the chunk each of keys is recorded in, whichever run's;
// keys in none are left out.
func (b *APIBatches) ChunkOf(keys []string) (map[string]string, error) {
	out := map[string]string{}
	err := b.s.read("reading the batches' requests", func(tx *sql.Tx) error {
		return inKeys(tx, `SELECT key, chunk FROM api_batch_requests WHERE key IN `, keys, func(rows *sql.Rows) error {
			var k, c string
			if err := rows.Scan(&k, &c); err != nil {
				return err
			}
			out[k] = c
			return nil
		})
	})
	return out, err
}

// Answered returns which of keys have an answer in the response cache
// (the responses table): one query per 500 keys, where the cache's Get
// is a transaction per key. Answers still in the cache's write buffer
// are not seen.
func (b *APIBatches) Answered(keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := b.s.read("reading the response cache", func(tx *sql.Tx) error {
		return inKeys(tx, `SELECT key FROM responses WHERE response != '' AND key IN `, keys, func(rows *sql.Rows) error {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			out[k] = true
			return nil
		})
	})
	return out, err
}

// inKeys runs query (ending in "IN ") on keys, keysAtOnce at a time,
// calling row on each row.
func inKeys(tx *sql.Tx, query string, keys []string, row func(*sql.Rows) error) error {
	for start := 0; start < len(keys); start += keysAtOnce {
		part := keys[start:min(start+keysAtOnce, len(keys))]
		args := make([]any, len(part))
		for i, k := range part {
			args[i] = k
		}
		rows, err := tx.Query(query+`(?`+strings.Repeat(", ?", len(part)-1)+`)`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := row(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// ChunkKeys returns the keys of a chunk's requests, in key order.
func (b *APIBatches) ChunkKeys(chunk string) ([]string, error) {
	var out []string
	err := b.s.read("reading a batch's requests", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT key FROM api_batch_requests INDEXED BY api_batch_requests_by_chunk WHERE chunk = ? ORDER BY key`, chunk)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			out = append(out, k)
		}
		return rows.Err()
	})
	return out, err
}

// Update saves a chunk's file, batch id, status and counts; a finished
// chunk gets its finished_at once.
func (b *APIBatches) Update(c APIBatch) error {
	return b.s.write("saving a batch's state", func(tx *sql.Tx) error {
		var finished any
		if c.Finished {
			finished = stamp(now())
		}
		res, err := tx.Exec(`UPDATE api_batches SET input_file = ?, batch_id = ?, status = ?, answered = ?, failed = ?,
			finished_at = coalesce(finished_at, ?) WHERE chunk = ? AND run_id = ?`,
			c.InputFile, c.BatchID, c.Status, c.Answered, c.Failed, finished, c.Chunk, b.run)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("no batch chunk %s in run %d", c.Chunk, b.run)
		}
		return nil
	})
}

// Release forgets which requests a chunk carried (its batch failed as a
// whole, so they may go in another); the chunk's row stays.
func (b *APIBatches) Release(chunk string) error {
	return b.s.write("freeing a failed batch's requests", func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM api_batch_requests WHERE chunk = ?`, chunk)
		return err
	})
}

// SaveAnswers writes a batch's answers into the response cache (the
// responses table) and returns once they are on disk: unlike the online
// path's cache writes, which may lose the last moment's answers in a
// crash, these were paid for as a whole and the chunk is marked finished
// only after them. An answer the cache would drop (empty, or over its
// size limit) is dropped here too.
func (b *APIBatches) SaveAnswers(answers map[string]string) error {
	return b.s.write("saving a batch's answers", func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT OR REPLACE INTO responses (key, response, created_at) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		at := stamp(now())
		for k, v := range answers {
			if v == "" || len(v) > maxResponse {
				continue
			}
			if _, err := st.Exec(k, v, at); err != nil {
				return err
			}
		}
		return nil
	})
}

// Running counts the run's chunks not finished: batches still at the
// server, or planned and not yet created.
func (b *APIBatches) Running() (int, error) {
	var n int
	err := b.s.read("reading the run's batches", func(tx *sql.Tx) error {
		return tx.QueryRow(`SELECT count(*) FROM api_batches WHERE run_id = ? AND finished_at IS NULL`, b.run).Scan(&n)
	})
	return n, err
}
