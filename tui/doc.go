// Package tui is Gavel's terminal interface: the review screen, where a
// person reads an item's question, gold answer, prediction and verdict and
// labels it with one key; the statistics screen; and the help overlay.
//
// One root Model owns routing, focus and the in-memory view of the session.
// Everything slow happens in commands: labels go to the session store
// through an ordered save queue and are confirmed on screen only once they
// are committed; verdicts arrive already committed, in batches, from a
// sessions.Judging run. Text from datasets and models passes through
// Sanitize before it reaches the terminal.
package tui
