package pg

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gavel-dev/gavel/sessions"
)

// Store is an open PostgreSQL session. It is safe for concurrent use.
type Store struct {
	target Target
	pool   *pgxpool.Pool
	// queueClock is what the queue claims by (queue.go).
	queueClock sessions.Clock
}

// Connect opens a pool on the session's database. It does not check that
// the session exists: Exists says so.
func Connect(ctx context.Context, raw string) (*Store, error) {
	t, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(t.Conn)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", t.Shown, scrub(err.Error(), raw))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", t.Shown, scrub(err.Error(), raw))
	}
	return &Store{target: t, pool: pool}, nil
}

// Target is the session's parsed URL.
func (s *Store) Target() Target { return s.target }

// Pool is the connection pool, for the package's own files.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Exists reports whether the session's schema is there.
func (s *Store) Exists(ctx context.Context) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, s.target.Schema).Scan(&ok)
	if err != nil {
		return false, s.wrap(err, "looking for the session")
	}
	return ok, nil
}

// table is a table's name qualified by the session's schema, quoted.
func (s *Store) table(name string) string {
	return pgx.Identifier{s.target.Schema, name}.Sanitize()
}

// wrap says which session and what was being done, without the password.
func (s *Store) wrap(err error, doing string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("session %s: %s: %s", s.target.Shown, doing, scrub(err.Error(), s.target.Conn))
}

// scrub removes a URL's password from a driver message, in case the driver
// ever echoes its connection string (in the user-info part or a password=
// parameter, raw or decoded).
func scrub(msg, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return msg
	}
	var secrets []string
	if p, ok := u.User.Password(); ok {
		secrets = append(secrets, p, url.UserPassword("", p).String()[1:])
	}
	if p := u.Query().Get("password"); p != "" {
		secrets = append(secrets, p, url.QueryEscape(p))
	}
	for _, p := range secrets {
		if len(p) > 0 {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}
