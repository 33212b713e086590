package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// DefaultPath is where the report of the session at sessionPath goes when
// no file is named: beside the session, SESSION-report.html (or .md for
// the "markdown" format).
func DefaultPath(sessionPath, format string) string {
	ext := ".html"
	if format == "markdown" {
		ext = ".md"
	}
	return strings.TrimSuffix(sessionPath, filepath.Ext(sessionPath)) + "-report" + ext
}

// Session writes the HTML report of every judge of s to path, with the
// statistics `gavel stats` computes with o.Stats, and returns what it
// showed. It is `gavel report SESSION -o path`, for the statistics
// screen's key.
func Session(s *sessions.Store, path string, o Options) (*Data, error) {
	in, err := s.StatsInput()
	if err != nil {
		return nil, err
	}
	d, err := Gather(s, in, stats.Compute(in, o.Stats), o)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, d); err != nil {
		return nil, err
	}
	if err := WriteFile(path, b.Bytes()); err != nil {
		return nil, fmt.Errorf("cannot write the report to %s: %w", path, err)
	}
	return d, nil
}

// WriteFile writes data to path through a temporary file in the same
// directory, renamed into place, so a reader never sees half a report.
func WriteFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
