package main

import (
	"errors"
	"io"
	"sync/atomic"
	"syscall"
)

// pipeWatch is standard output, noting whether a write found its reader
// gone (pipe_unix.go).
type pipeWatch struct {
	w      io.Writer
	broken atomic.Bool
}

func (p *pipeWatch) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.broken.Store(true)
	}
	return n, err
}
