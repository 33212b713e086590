package pg

import (
	"context"
	"strings"
	"testing"
)

// The local copy of a team session is named after the session, not after
// how its URL is written: a password, the parameters' order, the scheme's
// spelling and parameters that do not choose the session (sslmode,
// application_name) change nothing; another host, port, database, user or
// session gets its own copy. The name holds no password.
func TestReplicaPathIgnoresHowTheURLIsWritten(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	path := func(raw string) string {
		t.Helper()
		s, err := Connect(context.Background(), raw)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		p, err := s.replicaPath("2026-01-02T03:04:05.000Z")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p, "s3cret") {
			t.Errorf("the copy's path holds the password: %s", p)
		}
		return p
	}
	base := path("postgres://ana@db.example:5432/gavel?sslmode=disable&session=team")
	for _, same := range []string{
		"postgres://ana:s3cret@db.example:5432/gavel?sslmode=disable&session=team",
		"postgresql://ana@DB.example:5432/gavel?session=team&sslmode=disable",
		"postgres://ana@db.example/gavel?session=team&application_name=laptop",
		"postgres://db.example:5432/gavel?session=team&user=ana&password=s3cret",
	} {
		if p := path(same); p != base {
			t.Errorf("%s has its own copy %s, want %s", same, p, base)
		}
	}
	for _, other := range []string{
		"postgres://bo@db.example:5432/gavel?sslmode=disable&session=team",
		"postgres://ana@db2.example:5432/gavel?sslmode=disable&session=team",
		"postgres://ana@db.example:5433/gavel?sslmode=disable&session=team",
		"postgres://ana@db.example:5432/other?sslmode=disable&session=team",
		"postgres://ana@db.example:5432/gavel?sslmode=disable&session=team2",
	} {
		if p := path(other); p == base {
			t.Errorf("%s shares the copy of another session: %s", other, p)
		}
	}
}
