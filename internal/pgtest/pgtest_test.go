package pgtest_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions/pg"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestStartRestart: a server starts, takes a connection as gavel on the
// database gavel, keeps committed rows across an immediate stop and a
// start, and is gone after its test.
func TestStartRestart(t *testing.T) {
	ctx := context.Background()
	var srv *pgtest.Server
	t.Run("server", func(t *testing.T) {
		begun := time.Now()
		srv = pgtest.Start(t)
		t.Logf("started in %v", time.Since(begun))
		want := fmt.Sprintf("postgres://gavel@127.0.0.1:%d/gavel?sslmode=disable", srv.Port())
		if got := srv.ConnString(); got != want {
			t.Fatalf("ConnString = %s, want %s", got, want)
		}
		if got := srv.URL(""); got != want {
			t.Fatalf("URL(\"\") = %s, want %s", got, want)
		}
		conn := connect(t, srv.ConnString())
		var user, db, enc string
		var super bool
		if err := conn.QueryRow(ctx, `SELECT current_user, current_database(), pg_encoding_to_char(encoding), (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) FROM pg_database WHERE datname = current_database()`).Scan(&user, &db, &enc, &super); err != nil {
			t.Fatal(err)
		}
		if user != "gavel" || db != "gavel" || enc != "UTF8" || !super {
			t.Fatalf("user %s, database %s, encoding %s, superuser %v; want gavel, gavel, UTF8, true", user, db, enc, super)
		}
		if _, err := conn.Exec(ctx, `CREATE TABLE kept (id bigint PRIMARY KEY, note text); INSERT INTO kept VALUES (1, 'before the stop')`); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)

		begun = time.Now()
		srv.Restart(t)
		t.Logf("restarted in %v", time.Since(begun))
		conn = connect(t, srv.ConnString())
		var note string
		if err := conn.QueryRow(ctx, `SELECT note FROM kept WHERE id = 1`).Scan(&note); err != nil {
			t.Fatalf("after the restart: %v", err)
		}
		if note != "before the stop" {
			t.Fatalf("after the restart the row says %q", note)
		}
		conn.Close(ctx)

		srv.Stop(t)
		srv.Stop(t) // stopping a stopped server does nothing
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", srv.Port()), time.Second); err == nil {
			c.Close()
			t.Fatal("the stopped server still takes connections")
		}
		srv.Start(t)
		srv.Start(t) // starting a running server does nothing
		conn = connect(t, srv.ConnString())
		if _, err := conn.Exec(ctx, `INSERT INTO kept VALUES (2, 'after')`); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := os.Stat(srv.Dir()); !os.IsNotExist(err) {
		t.Fatalf("the server's directory %s is still there after its test (%v)", srv.Dir(), err)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", srv.Port()), time.Second); err == nil {
		c.Close()
		t.Fatal("the server still takes connections after its test")
	}
}

// TestURLIsASession: URL gives a URL sessions/pg reads as the session
// named, on the server.
func TestURLIsASession(t *testing.T) {
	srv := pgtest.Shared(t)
	name := pgtest.Name(t)
	target, err := pg.ParseURL(srv.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	if target.Session != name || target.Conn != srv.ConnString() {
		t.Fatalf("ParseURL(%s) = %+v", srv.URL(name), target)
	}
	store, err := pg.Connect(context.Background(), srv.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if ok, err := store.Exists(context.Background()); err != nil || ok {
		t.Fatalf("Exists = %v, %v; want false, nil", ok, err)
	}
}

// TestShared: one server for the test binary, a session name per test,
// each a name sessions/pg takes.
func TestShared(t *testing.T) {
	a := pgtest.Shared(t)
	seen := map[string]bool{}
	for _, sub := range []string{"one", "one", "Two words/and-more", strings.Repeat("long", 30), "ünïcode"} {
		t.Run(sub, func(t *testing.T) {
			if b := pgtest.Shared(t); b != a {
				t.Fatalf("Shared gave two servers: ports %d and %d", a.Port(), b.Port())
			}
			name := pgtest.Name(t)
			if seen[name] {
				t.Fatalf("Name gave %s twice", name)
			}
			seen[name] = true
			if _, err := pg.ParseURL(a.URL(name)); err != nil {
				t.Fatalf("Name gave %q: %v", name, err)
			}
		})
	}
	connect(t, a.ConnString())
}

// TestRestartWhileWriting: StopErr and StartErr from another goroutine
// while a writer retries; every insert that returned success is there
// after the restarts.
func TestRestartWhileWriting(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	conn := connect(t, srv.ConnString())
	if _, err := conn.Exec(ctx, `CREATE TABLE w (id bigint PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	done := make(chan struct{})
	var restartErr error // written before done closes
	go func() {
		defer close(done)
		for i := 0; i < 3; i++ {
			time.Sleep(150 * time.Millisecond)
			if restartErr = srv.StopErr(); restartErr != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
			if restartErr = srv.StartErr(); restartErr != nil {
				return
			}
		}
	}()

	var ok []int
	var c *pgx.Conn
writing:
	for id := 1; ; id++ {
		select {
		case <-done:
			break writing
		default:
		}
		if c == nil {
			cctx, cancel := context.WithTimeout(ctx, time.Second)
			c, _ = pgx.Connect(cctx, srv.ConnString())
			cancel()
			if c == nil {
				time.Sleep(20 * time.Millisecond)
				continue
			}
		}
		if _, err := c.Exec(ctx, `INSERT INTO w VALUES ($1)`, id); err != nil {
			c.Close(ctx)
			c = nil
			continue
		}
		ok = append(ok, id)
	}
	if restartErr != nil {
		t.Fatal(restartErr)
	}
	if c != nil {
		c.Close(ctx)
	}
	conn = connect(t, srv.ConnString())
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM w WHERE id = ANY($1)`, ok).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(ok) || len(ok) == 0 {
		t.Fatalf("%d inserts returned success, %d of them are in the table", len(ok), n)
	}
	t.Logf("%d inserts across 3 restarts, all there", len(ok))
}

// TestWatchdog: a test binary killed outright (no cleanup runs) leaves no
// server and no directory behind.
func TestWatchdog(t *testing.T) {
	if os.Getenv("GAVEL_PGTEST_HELPER") == "1" {
		srv := pgtest.Start(t)
		fmt.Printf("server %d %s\n", srv.Port(), srv.Dir())
		time.Sleep(time.Minute)
		return
	}
	if _, err := pgtest.FindBinaries(); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdog$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GAVEL_PGTEST_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var port int
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "server %d %s", &port, &dir); err == nil {
			break
		}
	}
	if port == 0 {
		cmd.Process.Kill()
		t.Fatalf("the helper process started no server (%v)", cmd.Wait())
	}
	connect(t, fmt.Sprintf("postgres://gavel@127.0.0.1:%d/gavel?sslmode=disable", port)).Close(context.Background())
	cmd.Process.Kill() // SIGKILL: no cleanup, no deferred call runs
	cmd.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, statErr := os.Stat(dir)
		c, dialErr := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if dialErr == nil {
			c.Close()
		}
		if os.IsNotExist(statErr) && dialErr != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s after the test binary was killed: directory %s (%v), port %d answering: %v", dir, statErr, port, dialErr == nil)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
