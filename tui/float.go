package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// floating is a dialog drawn in a box over the screen's body, which stays
// drawn around it: the picker floats over the item whose text the person
// is judging.
type floating interface {
	dialog
	// float draws the box, at most width × height cells.
	float(st Styles, width, height int) string
}

// placeOver draws fg centred over bg, a body of width × height cells.
// Each line of bg keeps its cells left and right of the box, styles
// included: the ansi package's cuts keep every escape sequence, so a
// style that spans the box's edge ends before it and resumes after.
func placeOver(bg, fg string, width, height int) string {
	rows := strings.Split(bg, "\n")
	box := strings.Split(fg, "\n")
	fw := 0
	for _, l := range box {
		fw = max(fw, ansi.StringWidth(l))
	}
	x := max((width-fw)/2, 0)
	y := max((height-len(box))/2, 0)
	for i, l := range box {
		if y+i >= len(rows) {
			break
		}
		under := rows[y+i]
		left := ansi.Truncate(under, x, "")
		right := ansi.TruncateLeft(under, x+fw, "")
		if ansi.StringWidth(right) > width-x-fw {
			// TruncateLeft keeps a wide character the edge cuts in two
			// (an emoji under a tag dialog's border): one cell more drops it.
			right = ansi.TruncateLeft(under, x+fw+1, "")
		}
		// A wide character cut by the box's edge is dropped whole: a
		// space takes its place, so the cells after it stay in column.
		gap := max(width-x-fw-ansi.StringWidth(right), 0)
		if ansi.StringWidth(under) <= x+fw {
			gap = 0 // a line shorter than the box's right edge
		}
		rows[y+i] = padTo(left, x) + padTo(l, fw) + strings.Repeat(" ", gap) + right
	}
	return strings.Join(rows, "\n")
}
