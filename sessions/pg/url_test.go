package pg

import (
	"strings"
	"testing"
)

// ParseURL says what is wrong with a session URL — two session names,
// a port that is no port — and never the password.
func TestParseURL(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"postgres://ana:secret@db:5432/evals?session=a&session=b", `postgres://ana:xxxxx@db:5432/evals?session=a&session=b names 2 sessions ("a", "b"): a URL names one`},
		{"postgres://ana@db/evals?session=a&session=a", `names 2 sessions ("a", "a")`},
		{"postgres://ana:secret@db:99999/evals?session=a", "postgres://ana:xxxxx@db:99999/evals?session=a: port 99999 is not a port number: give one from 1 to 65535"},
		{"postgres://ana:secret@db:0/evals?session=a", "port 0 is not a port number"},
		{"postgres://ana:secret@h1:5432,h2:70000/evals?session=a", "port 70000 is not a port number"},
		{"postgres://ana:secret@db:54x2/evals?session=a", `postgres://… is not a PostgreSQL session URL: its port "54x2" is not a number from 1 to 65535`},
		{"postgres://ana:secret@[::1]:abc/evals?session=a", `its port "abc" is not a number`},
		// A password holding / makes its end look like the port: not quoted.
		{"postgres://ana:sec/ret@db:5432/evals?session=a", "is not a PostgreSQL session URL"},
		{"postgres://ana:se:cret/x@db/evals?session=a", "what stands as its port is not a number from 1 to 65535 (a password holding / ? or @ must be written %2F %3F %40)"},
		// One holding ?: PostgreSQL would take it for user info, net/url for a query.
		{"postgres://ana:12?ab@db:5432/evals?session=a", "postgres://…@db:5432/evals?session=a is not a PostgreSQL session URL: an @ after its host"},
		{"postgres://ana:sec?ret@db:5432/evals?session=a", "what stands as its port is not a number"},
		{"postgresql://ana@[::1]:5433,db2/evals?session=a", "postgresql://… is not a PostgreSQL session URL: write"},
		{"postgres://ana@db/evals", "names no session"},
		{"mysql://ana:secret@db/evals?session=a", "is not a PostgreSQL session URL"},
	} {
		_, err := ParseURL(tc.raw)
		if err == nil {
			t.Errorf("ParseURL(%q): no error, want %q", tc.raw, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseURL(%q):\n %v\nwant %q", tc.raw, err, tc.want)
		}
		for _, secret := range []string{"secret", "sec", "ret", "cret", "12?ab"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("ParseURL(%q) says %q: %v", tc.raw, secret, err)
			}
		}
	}
	for _, raw := range []string{
		"postgres://ana:secret@db:5432/evals?session=a",
		"postgresql://ana@[::1]:5433/evals?session=a_1&sslmode=disable",
		"postgres://ana:secret@db1:5432,db2:5433/evals?session=a",
		"postgres://ana@db/evals?session=a&password=secret",
	} {
		tg, err := ParseURL(raw)
		if err != nil || tg.Session == "" || strings.Contains(tg.Shown, "secret") {
			t.Errorf("ParseURL(%q) = %+v, %v", raw, tg, err)
		}
	}
}
