package queuetest_test

import (
	"testing"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/queuetest"
)

// The contract suite on SQLite: the session's own store.
func TestSQLite(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) sessions.Queue {
		s, err := sessions.Open(queuetest.NewSession(t), sessions.Options{Annotator: "lead"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
