package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
)

// tally counts what a headless run received: ok verdicts, parse errors,
// API errors and truncated ones (the server cut the prompt) apart.
type tally struct {
	ok, parseErrors, apiErrors, truncated, cached int
	skipped                                       int // parse errors not sent (llm.Skipped)
	tokens                                        int
	// cut is the largest share of a prompt a truncated verdict's server
	// did not read, for the run's summary: its error.
	cut string
}

func (t *tally) add(vs []judge.Verdict) {
	for _, v := range vs {
		switch v.Status {
		case judge.StatusOK:
			t.ok++
		case judge.StatusParseError:
			t.parseErrors++
			if llm.Skipped(v) {
				t.skipped++
			}
		case judge.StatusTruncated:
			t.truncated++
			if t.cut == "" {
				t.cut = v.Error
			}
		default:
			t.apiErrors++
		}
		if c, _ := v.Extra[llm.ExtraCached].(bool); c {
			t.cached++
		} else {
			t.tokens += v.PromptTokens + v.CompletionTokens
		}
	}
}

func (t tally) done() int { return t.ok + t.parseErrors + t.apiErrors + t.truncated }

// problems lists the parse errors, API errors and truncated verdicts
// there are, apart: "2 parse errors · 1 API error".
func (t tally) problems(sep string) string {
	var parts []string
	if t.parseErrors > 0 {
		parts = append(parts, count(t.parseErrors, "parse error"))
	}
	if t.apiErrors > 0 {
		parts = append(parts, count(t.apiErrors, "API error"))
	}
	if t.truncated > 0 {
		parts = append(parts, fmt.Sprintf("%d truncated", t.truncated))
	}
	return strings.Join(parts, sep)
}

// progressLine reports a headless run on stderr: one line redrawn in
// place on a terminal, a line every few seconds when stderr is a file or
// a pipe (CI logs).
type progressLine struct {
	w     io.Writer
	tty   bool
	name  string
	total int
	start time.Time
	last  time.Time
}

func newProgressLine(w io.Writer, name string, total int) *progressLine {
	tty := false
	// Any writer with a file descriptor (stderr, or the sanitising
	// wrapper around it) can be a terminal.
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		tty = term.IsTerminal(f.Fd())
	}
	return &progressLine{w: w, tty: tty, name: name, total: total, start: time.Now()}
}

func (p *progressLine) update(t tally) {
	now := time.Now()
	if !p.tty && now.Sub(p.last) < 5*time.Second && t.done() < p.total {
		return
	}
	p.last = now
	line := p.text(t, now)
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

func (p *progressLine) text(t tally, now time.Time) string {
	const width = 24
	frac := 1.0
	if p.total > 0 {
		frac = float64(t.done()) / float64(p.total)
	}
	fill := int(frac*width + 0.5)
	s := fmt.Sprintf("%s %s%s %d/%d", p.name, strings.Repeat("█", fill), strings.Repeat("░", width-fill), t.done(), p.total)
	if e := t.problems(" · "); e != "" {
		s += fmt.Sprintf(" · %d ok · %s", t.ok, e)
	}
	if t.tokens > 0 {
		s += fmt.Sprintf(" · %d tokens", t.tokens)
	}
	if secs := now.Sub(p.start).Seconds(); secs > 0.5 {
		s += fmt.Sprintf(" · %.1f/s", float64(t.done()-t.cached)/secs)
	}
	return s
}

// healthEvery is how often a paused run repeats that the server is not
// answering.
const healthEvery = 30 * time.Second

// healthNote says on stderr when the server stops answering, every
// healthEvery while it does not, and when it answers again:
// "gavel: the server at http://… has not answered for 1m30s; waiting up to
// 10m0s (--wait)". now is the wall clock, for the repeats.
type healthNote struct {
	down, gaveUp bool
	last         time.Time
}

// text returns the line to print for h, or "".
func (n *healthNote) text(h llm.Health, now time.Time) string {
	switch {
	case h.GaveUp:
		if n.gaveUp {
			return ""
		}
		n.down, n.gaveUp = true, true
		return "gavel: " + h.String()
	case h.NotAnswering:
		if n.down && now.Sub(n.last) < healthEvery {
			return ""
		}
		n.down, n.gaveUp, n.last = true, false, now
		return "gavel: " + h.String()
	case n.down:
		n.down, n.gaveUp = false, false
		return fmt.Sprintf("gavel: the server at %s answers again; judging goes on", h.URL)
	}
	return ""
}

// note prints a line of its own above the progress line.
func (p *progressLine) note(s string) {
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", s)
		return
	}
	fmt.Fprintln(p.w, s)
}

// end finishes the line on a terminal.
func (p *progressLine) end() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// follow reads a Judging's batches until it ends, reporting progress and,
// when health is not nil, whether the server answers (checked each second,
// as a paused run sends no batch).
func follow(jg *sessions.Judging, p *progressLine, health func() llm.Health) (tally, []error) {
	var t tally
	var errs []error
	var tick <-chan time.Time
	if health != nil {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		tick = tk.C
	}
	var hn healthNote
	batches := jg.Batches()
	for {
		select {
		case b, ok := <-batches:
			if !ok {
				p.end()
				return t, errs
			}
			t.add(b.Verdicts)
			if b.Err != nil {
				errs = append(errs, fmt.Errorf("%s could not be saved: %w", count(len(b.Unsaved), "verdict"), b.Err))
			}
			p.update(t)
		case <-tick:
			if s := hn.text(health(), time.Now()); s != "" {
				p.note(s)
				p.update(t)
			}
		}
	}
}

// truncatedSummary says how many of a run's tasks the server answered
// after cutting the prompt to its context, how much it read of the first
// one and how to raise the context: their verdicts are kept, left out of
// agreement, and asked again by the next run.
func truncatedSummary(name string, t tally, pending int) string {
	msg := fmt.Sprintf("%s: %d of %s truncated", name, t.truncated, count(pending, "task"))
	if t.cut != "" {
		msg += " (the first: " + strings.TrimRight(t.cut, ". ") + ")"
	} else {
		msg += ": the server cut the prompt to its context. " + llm.RaiseContext
	}
	return msg
}
