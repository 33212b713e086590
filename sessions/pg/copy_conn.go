package pg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// reachTimeout bounds the first contact with a server that does not
// answer (a wrong host drops packets rather than refusing).
const reachTimeout = 15 * time.Second

// Address is the server the session is on, host:port (or the socket
// folder), for messages.
func (s *Store) Address() string {
	c := s.pool.Config().ConnConfig
	if strings.HasPrefix(c.Host, "/") {
		return c.Host + " (port " + strconv.Itoa(int(c.Port)) + ")"
	}
	return net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port)))
}

// Reach checks that the server answers and that its database keeps text
// as UTF-8, with a message that says what is wrong and what to do.
func (s *Store) Reach(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.connectError(ctx, err)
	}
	defer conn.Release()
	var enc string
	if err := conn.QueryRow(ctx, `SHOW server_encoding`).Scan(&enc); err != nil {
		return s.connectError(ctx, err)
	}
	if !strings.EqualFold(enc, "UTF8") {
		return fmt.Errorf("session %s: the database keeps text as %s, and Gavel needs UTF8: create the database with ENCODING 'UTF8' (createdb -E UTF8 -T template0 NAME)", s.target.Shown, enc)
	}
	return nil
}

// connectError explains a failure to reach the server or its database.
func (s *Store) connectError(ctx context.Context, err error) error {
	c := s.pool.Config().ConnConfig
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return fmt.Errorf("PostgreSQL at %s refused user %q: check the user name and password in the session URL (%s)", s.Address(), c.User, scrub(pe.Message, s.target.Conn))
		case "3D000":
			return fmt.Errorf("PostgreSQL at %s has no database %q: create it (createdb %s) or fix the database in the session URL %s", s.Address(), c.Database, c.Database, s.target.Shown)
		case "57P03":
			return fmt.Errorf("PostgreSQL at %s is starting or shutting down: try again in a moment", s.Address())
		}
		return s.wrap(err, "connecting")
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		cause := rootCause(err)
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			cause = op.Err
		}
		detail := scrub(cause.Error(), s.target.Conn)
		return &NotAnsweringError{Address: s.Address(),
			msg: fmt.Sprintf("PostgreSQL at %s is not answering: is the server running, and are the host and port in %s right? (%s)", s.Address(), s.target.Shown, detail)}
	}
	return s.wrap(err, "connecting")
}

// NotAnsweringError is a server that could not be reached, or did not
// answer in time: its message says so and what to check; Address is the
// server's host and port, for a shorter message of the caller's.
type NotAnsweringError struct {
	Address string
	msg     string
}

func (e *NotAnsweringError) Error() string { return e.msg }

// rootCause is the innermost error of a chain of single wraps.
func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// Sessions lists the names of the Gavel sessions in the database, for a
// message about one that is not there.
func (s *Store) Sessions(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT substr(n.nspname, 7) FROM pg_namespace n
		WHERE n.nspname LIKE 'gavel\_%' AND EXISTS (
			SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid AND c.relname = $1)
		ORDER BY 1`, MetaTable)
	if err != nil {
		return nil, s.wrap(err, "listing the sessions")
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return names, s.wrap(err, "listing the sessions")
}

// noSession is the error for a session that is not in the database,
// naming those that are.
func (s *Store) noSession(ctx context.Context) error {
	msg := fmt.Sprintf("there is no session %q at %s", s.target.Session, s.target.Shown)
	names, err := s.Sessions(ctx)
	switch {
	case err != nil:
	case len(names) == 0:
		msg += ": the database holds no Gavel session yet (gavel copy FILE.gavel URL puts one there)"
	default:
		msg += ": check the name; the database holds " + strings.Join(names, ", ")
	}
	return errors.New(msg)
}

// SchemaVersion reads the session's schema_version from gavel_meta.
func (s *Store) SchemaVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v string
	err := q.QueryRow(ctx, `SELECT value FROM `+s.table(MetaTable)+` WHERE key = 'schema_version'`).Scan(&v)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" || errors.Is(err, pgx.ErrNoRows) {
			return 0, fmt.Errorf("session %s: schema %s is not a Gavel session (it has no %s table or no schema_version in it)", s.target.Shown, s.target.Schema, MetaTable)
		}
		return 0, s.wrap(err, "reading the session's schema version")
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("session %s: unreadable schema_version %q in %s", s.target.Shown, v, MetaTable)
	}
	return n, nil
}
