// Package pg keeps Gavel sessions in PostgreSQL, for teams that label one
// session together (SPEC "Teams"). A URL names one session:
//
//	postgres://user:password@host:5432/db?session=NAME
//
// and the session lives in its own PostgreSQL schema, gavel_NAME, whose
// tables mirror the SQLite session's base tables column for column, so that
// `gavel copy` moves a session between the two backends without loss. The
// tables SQLite derives with triggers (current labels, the decision log) are
// not kept here: copying back into SQLite replays the actions in order and
// SQLite's triggers derive them again, exactly as they were.
//
// SQLite stays the default backend; this package is used only when a
// session is given as a postgres:// URL.
package pg
