package tui

// pane names the four panes of the review screen.
type pane int

const (
	paneQuestion pane = iota
	paneGold
	panePrediction
	paneVerdict
	numPanes
)

var paneTitles = [numPanes]string{"Question", "Gold answer", "Prediction", "Verdict"}

// rect is a pane's place on screen.
type rect struct{ x, y, w, h int }

// Screen sizes. Below the minimum the screen says so instead of drawing a
// broken layout; at and above wideWidth the prediction gets a full-height
// column of its own; below narrowWidth every pane is stacked.
const (
	minWidth    = 50
	minHeight   = 16
	wideWidth   = 120
	narrowWidth = 80
	chromeRows  = 3 // header, status line, hint line
	minPaneRows = 3 // a border above and below one line of text
)

// layout places the panes for the current size, giving each pane about as
// many rows as its content needs, the focused pane first and the
// prediction whatever is left.
func (m *Model) layout() [numPanes]rect {
	var r [numPanes]rect
	w, h := m.width, m.height-chromeRows
	y0 := 1
	need := func(p pane, width int) int { return m.paneLenAt(p, width-4) + 2 }
	switch {
	case w >= wideWidth:
		lw := w * 2 / 5
		rw := w - lw
		left := []pane{paneQuestion, paneGold, paneVerdict}
		hs := distribute(h, []int{need(paneQuestion, lw), need(paneGold, lw), need(paneVerdict, lw)}, indexOf(left, m.focus), 2)
		y := y0
		for i, p := range left {
			r[p] = rect{0, y, lw, hs[i]}
			y += hs[i]
		}
		r[panePrediction] = rect{lw, y0, rw, h}
	case w >= narrowWidth:
		half := w / 2
		mid := max(need(paneGold, half), need(paneVerdict, w-half))
		focusRow := map[pane]int{paneQuestion: 0, paneGold: 1, paneVerdict: 1, panePrediction: 2}[m.focus]
		hs := distribute(h, []int{need(paneQuestion, w), mid, need(panePrediction, w)}, focusRow, 2)
		r[paneQuestion] = rect{0, y0, w, hs[0]}
		r[paneGold] = rect{0, y0 + hs[0], half, hs[1]}
		r[paneVerdict] = rect{half, y0 + hs[0], w - half, hs[1]}
		r[panePrediction] = rect{0, y0 + hs[0] + hs[1], w, hs[2]}
	default:
		order := []pane{paneQuestion, paneGold, paneVerdict, panePrediction}
		desired := make([]int, len(order))
		for i, p := range order {
			desired[i] = need(p, w)
		}
		hs := distribute(h, desired, indexOf(order, m.focus), 3)
		y := y0
		for i, p := range order {
			r[p] = rect{0, y, w, hs[i]}
			y += hs[i]
		}
	}
	return r
}

// distribute splits total rows between panes. Each gets minPaneRows; the
// focused pane then grows to what it needs, up to half of what is left;
// the rest is shared out evenly (water-filling) so that no pane gets more
// than it needs while another still wants rows; whatever nobody needs goes
// to the elastic pane.
func distribute(total int, need []int, focus, elastic int) []int {
	hs := make([]int, len(need))
	left := total
	for i := range hs {
		hs[i] = minPaneRows
		left -= minPaneRows
	}
	want := func(i int) int { return max(need[i]-hs[i], 0) }
	if focus >= 0 && focus < len(hs) && left > 0 {
		add := min(want(focus), max(left/2, 1))
		hs[focus] += add
		left -= add
	}
	for left > 0 {
		wanting := 0
		for i := range hs {
			if want(i) > 0 {
				wanting++
			}
		}
		if wanting == 0 {
			break
		}
		share := max(left/wanting, 1)
		for i := range hs {
			if add := min(want(i), share, left); add > 0 {
				hs[i] += add
				left -= add
			}
		}
	}
	if left > 0 {
		hs[elastic] += left
	}
	return hs
}

func indexOf(ps []pane, p pane) int {
	for i, q := range ps {
		if q == p {
			return i
		}
	}
	return -1
}

// paneRows is how many text rows a pane shows at the current size.
func (m *Model) paneRows(p pane) int {
	return max(m.layout()[p].h-2, 0)
}

// paneLenAt is how many lines a pane's content has at an inner width.
func (m *Model) paneLenAt(p pane, inner int) int {
	return len(m.paneLines(p, inner))
}
