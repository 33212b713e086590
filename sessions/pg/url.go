package pg

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
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
	const write = "write postgres://user@host:5432/db?session=NAME"
	if !IsURL(raw) {
		return Target{}, fmt.Errorf("%s is not a PostgreSQL session URL: %s", Redact(raw), write)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && strings.HasPrefix(ue.Err.Error(), "invalid port") {
			switch port, safe := portText(raw); {
			case safe && port != "":
				return Target{}, fmt.Errorf("%s is not a PostgreSQL session URL: its port %q is not a number from 1 to 65535; %s", Redact(raw), port, write)
			case !safe:
				return Target{}, fmt.Errorf("%s is not a PostgreSQL session URL: what stands as its port is not a number from 1 to 65535 (a password holding / ? or @ must be written %%2F %%3F %%40); %s", Redact(raw), write)
			}
		}
		return Target{}, fmt.Errorf("%s is not a PostgreSQL session URL: %s", Redact(raw), write)
	}
	q := u.Query()
	shown := Redact(raw)
	if u.User == nil && strings.Contains(raw, "@") {
		// PostgreSQL would read user info up to the @, net/url a host
		// and a query: a password holding ? (or / or #).
		return Target{}, fmt.Errorf("%s is not a PostgreSQL session URL: an @ after its host (a password holding / ? or @ must be written %%2F %%3F %%40); %s", shown, write)
	}
	for _, host := range strings.Split(u.Host, ",") {
		if port := hostPort(host); port != "" {
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				return Target{}, fmt.Errorf("%s: port %s is not a port number: give one from 1 to 65535 (PostgreSQL's is 5432)", shown, port)
			}
		}
	}
	names := q["session"]
	name := q.Get("session")
	switch {
	case len(names) > 1:
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = strconv.Quote(n)
		}
		return Target{}, fmt.Errorf("%s names %d sessions (%s): a URL names one, with one ?session=NAME", shown, len(names), strings.Join(quoted, ", "))
	case name == "":
		return Target{}, fmt.Errorf("%s names no session: add ?session=NAME (lower-case letters, digits and _) to the URL", shown)
	case !sessionName.MatchString(name):
		return Target{}, fmt.Errorf("%s: session name %q cannot be used: start with a lower-case letter, then up to 39 lower-case letters, digits or _", shown, name)
	}
	q.Del("session")
	u.RawQuery = q.Encode()
	return Target{Conn: u.String(), Session: name, Schema: "gavel_" + name, Shown: shown}, nil
}

// hostPort is the port of one host[:port] of a URL's host list ("" when
// none is written).
func hostPort(host string) string {
	if strings.HasPrefix(host, "[") { // [IPv6]:port
		_, after, _ := strings.Cut(host, "]")
		return strings.TrimPrefix(after, ":")
	}
	if i := strings.LastIndex(host, ":"); i >= 0 {
		return host[i+1:]
	}
	return ""
}

// portText is the port of a URL whose port net/url refuses, read as
// net/url reads it (the host follows the last @ of the authority, which
// ends at the first / or ?), and whether it may be printed: not when an @
// follows the authority, where the "port" may be a piece of a password
// holding a / or ?. "" and true when no port is amiss (net/url refused
// something else).
func portText(raw string) (string, bool) {
	_, rest, _ := strings.Cut(raw, "://")
	rest, _, _ = strings.Cut(rest, "#")
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	auth := rest[:end]
	if strings.Contains(rest[end:], "@") {
		return "", false
	}
	host := auth[strings.LastIndex(auth, "@")+1:]
	for _, h := range strings.Split(host, ",") {
		if p := hostPort(h); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return p, true
			}
		}
	}
	return "", true
}

// Redact returns a session URL fit to print: any password is replaced by
// xxxxx, in the user-info part and in a password= query parameter alike.
// Text that does not parse as a URL is cut to its scheme; so is the part
// before the last @ of one whose @ net/url does not take for the end of
// the user info (a password holding / or ?, which PostgreSQL's own
// parser would read as one).
func Redact(raw string) string {
	i := strings.Index(raw, "://")
	u, err := url.Parse(raw)
	if err != nil {
		if i >= 0 {
			return raw[:i+3] + "…"
		}
		return "(an unreadable URL)"
	}
	if u.User == nil && i >= 0 && strings.Contains(raw, "@") {
		at := strings.LastIndex(raw, "@")
		return raw[:i+3] + "…@" + passwordParam.ReplaceAllString(raw[at+1:], "${1}xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// passwordParam is a password= query parameter, in text that did not
// parse as a URL.
var passwordParam = regexp.MustCompile(`([?&]password=)[^&#]*`)
