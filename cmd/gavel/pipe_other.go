//go:build !unix

package main

// Elsewhere a broken pipe is an error like any other (pipe_unix.go).

func catchBrokenPipe() {}

func dieOfBrokenPipe() {}
