package pg

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// sessionName is what a session may be called: it becomes part of a
// PostgreSQL schema name (gavel_NAME), so it is kept to lower-case letters,
// digits and underscores, and short enough for PostgreSQL's 63-byte limit.
var sessionName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// IsURL reports whether a session argument names a PostgreSQL session
// rather than a SQLite file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Target is a parsed session URL.
type Target struct {
	// Conn is the connection string handed to pgx: the URL without its
	// session parameter.
	Conn string
	// Session is the session's name; Schema the PostgreSQL schema that
	// holds it.
	Session, Schema string
	// Shown is the URL to print: the password replaced, never the real one.
	Shown string
}

// ParseURL reads a session URL. Its error messages never contain the
// password.
func ParseURL(raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil || !IsURL(raw) {
		return Target{}, fmt.Errorf("%s is not a PostgreSQL session URL: write postgres://user@host:5432/db?session=NAME", Redact(raw))
	}
	q := u.Query()
	name := q.Get("session")
	shown := Redact(raw)
	switch {
	case name == "":
		return Target{}, fmt.Errorf("%s names no session: add ?session=NAME (lower-case letters, digits and _) to the URL", shown)
	case !sessionName.MatchString(name):
		return Target{}, fmt.Errorf("%s: session name %q cannot be used: start with a lower-case letter, then up to 39 lower-case letters, digits or _", shown, name)
	}
	q.Del("session")
	u.RawQuery = q.Encode()
	return Target{Conn: u.String(), Session: name, Schema: "gavel_" + name, Shown: shown}, nil
}

// Redact returns a session URL fit to print: any password is replaced by
// xxxxx, in the user-info part and in a password= query parameter alike.
// Text that does not parse as a URL is cut to its scheme.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.Index(raw, "://"); i >= 0 {
			return raw[:i+3] + "…"
		}
		return "(an unreadable URL)"
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
