// Package pgtest runs throwaway PostgreSQL servers for tests, from the
// PostgreSQL binaries installed on the machine (initdb, pg_ctl, postgres).
//
// Start gives a test its own server; Shared gives every test of a test
// binary the same one, each test then working in its own session (schema)
// named by Name:
//
//	srv := pgtest.Shared(t)
//	url := srv.URL(pgtest.Name(t)) // postgres://gavel@127.0.0.1:PORT/gavel?sslmode=disable&session=t3_mytest
//
// A server lives in a fresh directory under the temporary directory: the
// cluster made by initdb (trust authentication, UTF8, C locale, no fsync),
// its log, and its Unix socket. It listens on 127.0.0.1 on a free port and
// has a superuser and a database both called gavel. Run as root, the
// server runs as the unprivileged user nobody (initdb refuses root); the
// directory is then owned by nobody.
//
// The binaries are looked for in $GAVEL_PGTEST_BIN, on PATH, then in
// /usr/lib/postgresql/*/bin (newest version first), /usr/pgsql-*/bin and
// /usr/local/pgsql/bin. Without them a test is skipped with a message
// naming the package to install; under CI=true it fails instead.
//
// Servers never outlive their test binary: besides the test's cleanup
// (Start) or Main (Shared), a small watchdog process stops the server and
// removes its directory as soon as the test binary exits, however it exits
// (a panic, a -timeout, a kill).
//
// Starting a server takes about a second on a small machine (initdb is most
// of it; the cluster it makes is kept and copied for the next servers of the
// same test binary, so later starts take a few hundred milliseconds).
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is one running (or stopped) PostgreSQL server. Its methods are
// safe for concurrent use; Stop, Start and Restart call t.Fatal and so
// belong to the test's goroutine, StopErr, StartErr and RestartErr may be
// called from any goroutine.
type Server struct {
	bin  string // directory holding initdb, pg_ctl and postgres
	root string // the server's directory: data/, log, socket
	port int

	mu      sync.Mutex
	running bool
	closed  bool

	watchdog *exec.Cmd
	lifeline *os.File // the watchdog stops the server when this closes
}

// Start starts a server for this test alone; the test's cleanup stops it
// (pg_ctl stop -m immediate) and removes its directory.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := binDir(t)
	s, err := start(bin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			s.logTail(t)
		}
		if err := s.Close(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return s
}

// ConnString is the server's connection string: database gavel as user
// gavel over TCP, without a session parameter.
func (s *Server) ConnString() string {
	return fmt.Sprintf("postgres://gavel@127.0.0.1:%d/gavel?sslmode=disable", s.port)
}

// URL is a Gavel session URL on the server. An empty session gives the
// connection string.
func (s *Server) URL(session string) string {
	if session == "" {
		return s.ConnString()
	}
	return s.ConnString() + "&session=" + session
}

// Port is the TCP port the server listens on (127.0.0.1).
func (s *Server) Port() int { return s.port }

// Dir is the server's directory (data/ is the cluster, log its log).
func (s *Server) Dir() string { return s.root }

// Stop stops the server at once, as a crash would (pg_ctl stop -m
// immediate): committed transactions survive, and the next start recovers.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.StopErr(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

// Start starts the stopped server again, on the same directory and port.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if err := s.StartErr(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

// Restart stops the server at once and starts it again.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.RestartErr(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

// StopErr is Stop returning its error; stopping a stopped server does
// nothing.
func (s *Server) StopErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked()
}

// StartErr is Start returning its error; starting a running server does
// nothing. It fails when another program took the port meanwhile.
func (s *Server) StartErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the server was closed")
	}
	if s.running && s.alive() {
		return nil
	}
	return s.startLocked()
}

// RestartErr is Restart returning its error.
func (s *Server) RestartErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the server was closed")
	}
	if err := s.stopLocked(); err != nil {
		return err
	}
	return s.startLocked()
}

// Close stops the server and removes its directory. Start's cleanup and
// Main call it; it may be called more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.stopLocked()
	if rerr := os.RemoveAll(s.root); rerr != nil && err == nil {
		err = rerr
	}
	if s.lifeline != nil {
		s.lifeline.Close()
		s.watchdog.Wait()
	}
	return err
}

func (s *Server) data() string { return filepath.Join(s.root, "data") }
func (s *Server) log() string  { return filepath.Join(s.root, "log") }

func (s *Server) stopLocked() error {
	if !s.running {
		return nil
	}
	if _, err := s.run("pg_ctl", "stop", "-D", s.data(), "-m", "immediate", "-w", "-t", "60"); err != nil && s.alive() {
		return fmt.Errorf("stopping the server on port %d: %v", s.port, err)
	}
	s.running = false
	return nil
}

func (s *Server) startLocked() error {
	// pg_ctl -l appends: each start's lines follow the previous ones.
	if _, err := s.run("pg_ctl", "start", "-D", s.data(), "-l", s.log(), "-w", "-t", "60"); err != nil {
		return fmt.Errorf("starting the server on port %d: %v%s", s.port, err, s.tail(15))
	}
	s.running = true
	return nil
}

// alive says whether the server runs (pg_ctl status), so that a server
// that died on its own is started again by StartErr and "stopped" by
// StopErr without an error.
func (s *Server) alive() bool {
	_, err := s.run("pg_ctl", "status", "-D", s.data())
	return err == nil
}

// start makes and starts a new server with the binaries in bin.
func start(bin string) (*Server, error) {
	root, err := newDir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, root: root}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	if err := s.initCluster(); err != nil {
		return nil, err
	}
	if err := s.startWatchdog(); err != nil {
		return nil, err
	}
	// The free port is free when looked at; another process may take it
	// before the server binds it, so a failed bind tries another.
	for attempt := 0; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			return nil, err
		}
		if err := s.writeConf(); err != nil {
			return nil, err
		}
		s.mu.Lock()
		err = s.startLocked()
		s.mu.Unlock()
		if err == nil {
			break
		}
		if attempt < 4 && strings.Contains(err.Error(), "could not") && bytes.Contains(s.readLog(), []byte("bind")) {
			os.Remove(s.log())
			continue
		}
		return nil, err
	}
	if err := s.createDatabase(); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// template is a cluster made by initdb, kept for the test binary's next
// servers: copying it is several times faster than initdb.
var template struct {
	sync.Mutex
	dir      string   // a data directory never started, or ""
	lifeline *os.File // its watchdog's pipe, held until the process exits
	watchdog *exec.Cmd
}

// initCluster makes data/ with initdb, or copies the template cluster.
func (s *Server) initCluster() error {
	template.Lock()
	defer template.Unlock()
	if template.dir != "" {
		if err := copyDir(template.dir, s.data()); err == nil {
			return nil
		}
		os.RemoveAll(s.data())
	}
	out, err := s.run("initdb", "-D", s.data(), "-U", "gavel", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	if err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	// Keep a copy as the template, in a directory of its own with its own
	// watchdog, which removes it when the test binary exits.
	if tdir, err := newDir(); err == nil {
		if copyDir(s.data(), filepath.Join(tdir, "data")) == nil {
			if cmd, w, err := watch(tdir, "", ""); err == nil {
				template.dir = filepath.Join(tdir, "data")
				template.lifeline, template.watchdog = w, cmd
				return nil
			}
		}
		os.RemoveAll(tdir)
	}
	return nil
}

// writeConf writes the server's settings, included from postgresql.conf.
func (s *Server) writeConf() error {
	conf := fmt.Sprintf(`# written by gavel's internal/pgtest
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
fsync = off
full_page_writes = off
max_connections = 200
shared_buffers = 32MB
max_wal_size = 1GB
log_min_messages = warning
log_line_prefix = '%%m [%%p] '
`, s.port, s.root)
	path := filepath.Join(s.data(), "pgtest.conf")
	if err := writeOwned(path, conf); err != nil {
		return err
	}
	main := filepath.Join(s.data(), "postgresql.conf")
	b, err := os.ReadFile(main)
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte("include 'pgtest.conf'")) {
		return writeOwned(main, string(b)+"\ninclude 'pgtest.conf'\n")
	}
	return nil
}

// createDatabase creates the database gavel (initdb made the user).
func (s *Server) createDatabase() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://gavel@127.0.0.1:%d/postgres?sslmode=disable", s.port))
	if err != nil {
		return fmt.Errorf("connecting to the new server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE gavel`); err != nil {
		return fmt.Errorf("creating the database gavel: %v", err)
	}
	return nil
}

// run runs one of the PostgreSQL binaries (as nobody when we are root),
// returning its output.
func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.root
	cmd.Env = childEnv(s.root)
	setUser(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		msg := strings.TrimSpace(out.String())
		if msg != "" {
			err = fmt.Errorf("%s %s: %v: %s", name, args[0], err, msg)
		} else {
			err = fmt.Errorf("%s %s: %v", name, args[0], err)
		}
	}
	return out.Bytes(), err
}

// startWatchdog starts the process that stops the server and removes its
// directory once the test binary is gone.
func (s *Server) startWatchdog() error {
	cmd, w, err := watch(s.root, filepath.Join(s.bin, "pg_ctl"), s.data())
	if err != nil {
		return err
	}
	s.watchdog, s.lifeline = cmd, w
	return nil
}

// watch starts a watchdog: a shell that waits for the end of a pipe only
// this process holds (the kernel closes it when the process exits, however
// it exits), then stops the server in data (when pgctl is not "") and
// removes root. Closing the returned pipe end sets it off at once.
func watch(root, pgctl, data string) (*exec.Cmd, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c",
		`cat >/dev/null; if [ -n "$0" ]; then "$0" stop -D "$1" -m immediate -w >/dev/null 2>&1; fi; rm -rf "$2"`,
		pgctl, data, root)
	cmd.Dir = "/"
	cmd.Env = childEnv(root)
	cmd.Stdin = r
	setUser(cmd)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("starting the watchdog: %v", err)
	}
	return cmd, w, nil
}

// childEnv is the environment of the PostgreSQL binaries: ours without PG*
// variables (a PGPORT or PGDATA would change what they do), in the C
// locale for English messages.
func childEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "LANG=C", "HOME="+home)
}

// freePort is a TCP port on 127.0.0.1 nobody listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) readLog() []byte {
	b, _ := os.ReadFile(s.log())
	return b
}

// tail is the log's last n lines, for an error message.
func (s *Server) tail(n int) string {
	lines := strings.Split(strings.TrimRight(string(s.readLog()), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "\nserver log (" + s.log() + "):\n" + strings.Join(lines, "\n")
}

// logTail logs the end of the server's log, for a failed test.
func (s *Server) logTail(t testing.TB) {
	if tail := s.tail(30); tail != "" {
		t.Logf("pgtest: port %d%s", s.port, tail)
	}
}

// copyDir copies a directory tree (regular files and directories, modes
// kept), owned like the files the binaries make.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			if err := os.Mkdir(target, info.Mode().Perm()); err != nil {
				return err
			}
			return own(target)
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, info.Mode().Perm()); err != nil {
			return err
		}
		return own(target)
	})
}

// writeOwned writes a file, owned like the files the binaries make.
func writeOwned(path, content string) error {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return err
	}
	return own(path)
}

// newDir makes a fresh directory for a server under the temporary
// directory, owned by the user the binaries run as.
func newDir() (string, error) {
	dir, err := os.MkdirTemp(tempBase(), "gavel-pg-")
	if err != nil {
		return "", fmt.Errorf("making the server's directory: %v", err)
	}
	if err := own(dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("giving the server's directory to the user it runs as: %v", err)
	}
	return dir, nil
}

// tempBase is where server directories go: the temporary directory, unless
// its path is too long for a Unix socket path (about 100 bytes) or, as
// root, the user nobody cannot reach it; then /tmp.
func tempBase() string {
	base := os.TempDir()
	if len(base) > 60 || !reachable(base) {
		return "/tmp"
	}
	return base
}

// versionOf reads the major version in a path like
// /usr/lib/postgresql/15/bin, or -1.
func versionOf(dir string) float64 {
	for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
		part = strings.TrimPrefix(part, "pgsql-")
		if v, err := strconv.ParseFloat(part, 64); err == nil {
			return v
		}
	}
	return -1
}
