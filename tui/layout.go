package tui

import "strings"

// pane names the panes of the review screen. A pairwise item shows its
// two responses in panePrediction (A) and paneResponseB, and its gold
// answer, when it has one, as the reference.
type pane int

const (
	paneQuestion pane = iota
	paneGold
	panePrediction
	paneVerdict
	paneResponseB
	numPanes
)

var paneTitles = [numPanes]string{"Question", "Gold answer", "Prediction", "Verdict", "B"}

// panes lists the panes the item on screen shows, in the order tab
// visits them.
func (s *reviewScreen) panes() []pane {
	if !s.pairwise() {
		return []pane{paneQuestion, paneGold, panePrediction, paneVerdict}
	}
	if s.hasReference() {
		return []pane{paneQuestion, paneGold, panePrediction, paneResponseB, paneVerdict}
	}
	return []pane{paneQuestion, panePrediction, paneResponseB, paneVerdict}
}

// pairwise reports whether the item on screen compares two responses.
func (s *reviewScreen) pairwise() bool {
	return s.hasItem() && s.items[s.cur].Pairwise()
}

// hasReference reports whether a pairwise item has a gold answer (or a
// rubric) to show as the reference; the pane is left out when not.
func (s *reviewScreen) hasReference() bool {
	it := s.items[s.cur]
	return strings.TrimSpace(it.Gold) != "" || len(it.Rubric) > 0
}

// shows reports whether the item on screen has pane p.
func (s *reviewScreen) shows(p pane) bool {
	for _, q := range s.panes() {
		if q == p {
			return true
		}
	}
	return false
}

// nextPane moves the focus by delta among the panes the item shows.
func (s *reviewScreen) nextPane(delta int) {
	ps := s.panes()
	at := 0
	for i, p := range ps {
		if p == s.focus {
			at = i
		}
	}
	s.focus = ps[(at+delta+len(ps))%len(ps)]
}

// rect is a pane's place on screen, in the body's rows.
type rect struct{ x, y, w, h int }

// Screen sizes. Below the minimum the screen says so instead of drawing a
// broken layout. From threeColumns on, the verdict gets a column of its own
// (criteria and scores are not cut while half the screen is blank); from
// wideWidth the prediction gets a full-height column; below narrowWidth
// every pane is stacked.
const (
	minWidth     = 50
	minHeight    = 16
	threeColumns = 160
	wideWidth    = 120
	narrowWidth  = 80
	chromeRows   = 3 // header, status line, hint line
	minPaneRows  = 3 // a border above and below one line of text
)

// layout places the panes in a body of w × h cells. Heights follow the
// panes' content only, never the focus, so that moving the focus does not
// make the panes jump; the focused pane alone fills the body when zoomed.
func (s *reviewScreen) layout(w, h int) [numPanes]rect {
	var r [numPanes]rect
	if s.zoom {
		for p := range numPanes {
			r[p] = rect{0, 0, 0, 0}
		}
		r[s.focus] = rect{0, 0, w, h}
		return r
	}
	need := func(p pane, width int) int { return s.paneLen(p, width-4) + 2 }
	if s.pairwise() {
		return s.pairLayout(w, h, need)
	}
	switch {
	case w >= threeColumns:
		lw := w * 3 / 10
		vw := w * 7 / 20
		mw := w - lw - vw
		hs := distribute(h, []int{need(paneQuestion, lw), need(paneGold, lw)}, 0)
		r[paneQuestion] = rect{0, 0, lw, hs[0]}
		r[paneGold] = rect{0, hs[0], lw, hs[1]}
		r[panePrediction] = rect{lw, 0, mw, h}
		r[paneVerdict] = rect{lw + mw, 0, vw, h}
	case w >= wideWidth:
		lw := w * 2 / 5
		left := []pane{paneQuestion, paneGold, paneVerdict}
		hs := distribute(h, []int{need(paneQuestion, lw), need(paneGold, lw), need(paneVerdict, lw)}, 2)
		y := 0
		for i, p := range left {
			r[p] = rect{0, y, lw, hs[i]}
			y += hs[i]
		}
		r[panePrediction] = rect{lw, 0, w - lw, h}
	case w >= narrowWidth:
		half := w / 2
		mid := max(need(paneGold, half), need(paneVerdict, w-half))
		hs := distribute(h, []int{need(paneQuestion, w), mid, need(panePrediction, w)}, 2)
		r[paneQuestion] = rect{0, 0, w, hs[0]}
		r[paneGold] = rect{0, hs[0], half, hs[1]}
		r[paneVerdict] = rect{half, hs[0], w - half, hs[1]}
		r[panePrediction] = rect{0, hs[0] + hs[1], w, hs[2]}
	default:
		order := []pane{paneQuestion, paneGold, paneVerdict, panePrediction}
		desired := make([]int, len(order))
		for i, p := range order {
			desired[i] = need(p, w)
		}
		hs := distribute(h, desired, 3)
		y := 0
		for i, p := range order {
			r[p] = rect{0, y, w, hs[i]}
			y += hs[i]
		}
	}
	return r
}

// pairLayout places a pairwise item's panes: the question on top, the two
// responses side by side under it (stacked below narrowWidth), the
// reference when there is one, and the verdict in a column of its own
// from wideWidth on, else under the responses. The responses' row takes
// the rows nobody else needs.
func (s *reviewScreen) pairLayout(w, h int, need func(pane, int) int) [numPanes]rect {
	var r [numPanes]rect
	ref := s.hasReference()
	pair := func(width int) int {
		half := width / 2
		return max(need(panePrediction, half), need(paneResponseB, width-half))
	}
	switch {
	case w >= wideWidth:
		vw := w * 3 / 10
		lw := w - vw
		want := []int{need(paneQuestion, lw), 0, pair(lw)}
		if ref {
			want[1] = need(paneGold, lw)
		}
		hs := distributeSome(h, want, 2)
		r[paneQuestion] = rect{0, 0, lw, hs[0]}
		if ref {
			r[paneGold] = rect{0, hs[0], lw, hs[1]}
		}
		y := hs[0] + hs[1]
		r[panePrediction] = rect{0, y, lw / 2, hs[2]}
		r[paneResponseB] = rect{lw / 2, y, lw - lw/2, hs[2]}
		r[paneVerdict] = rect{lw, 0, vw, h}
	case w >= narrowWidth:
		half := w / 2
		bottom := need(paneVerdict, w)
		if ref {
			bottom = max(need(paneGold, half), need(paneVerdict, w-half))
		}
		hs := distribute(h, []int{need(paneQuestion, w), pair(w), bottom}, 1)
		r[paneQuestion] = rect{0, 0, w, hs[0]}
		r[panePrediction] = rect{0, hs[0], half, hs[1]}
		r[paneResponseB] = rect{half, hs[0], w - half, hs[1]}
		y := hs[0] + hs[1]
		if ref {
			r[paneGold] = rect{0, y, half, hs[2]}
			r[paneVerdict] = rect{half, y, w - half, hs[2]}
		} else {
			r[paneVerdict] = rect{0, y, w, hs[2]}
		}
	default:
		order := []pane{paneQuestion, paneGold, panePrediction, paneResponseB, paneVerdict}
		want := make([]int, len(order))
		for i, p := range order {
			if p != paneGold || ref {
				want[i] = need(p, w)
			}
		}
		hs := distributeSome(h, want, 2)
		y := 0
		for i, p := range order {
			if hs[i] > 0 {
				r[p] = rect{0, y, w, hs[i]}
				y += hs[i]
			}
		}
	}
	return r
}

// distributeSome is distribute over the panes that want rows: a pane
// that needs none (0, one the item does not show) gets none.
func distributeSome(total int, need []int, elastic int) []int {
	var idx, some []int
	at := 0
	for i, n := range need {
		if n > 0 {
			if i == elastic {
				at = len(idx)
			}
			idx = append(idx, i)
			some = append(some, n)
		}
	}
	hs := make([]int, len(need))
	for k, x := range distribute(total, some, at) {
		hs[idx[k]] = x
	}
	return hs
}

// distribute splits total rows between panes. Each gets minPaneRows; the
// rest is shared out evenly (water-filling) so that no pane gets more than
// it needs while another still wants rows; whatever nobody needs goes to
// the elastic pane.
func distribute(total int, need []int, elastic int) []int {
	hs := make([]int, len(need))
	left := total
	for i := range hs {
		hs[i] = minPaneRows
		left -= minPaneRows
	}
	want := func(i int) int { return max(need[i]-hs[i], 0) }
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

// paneRows is how many text rows a pane shows at the current size.
func (s *reviewScreen) paneRows(p pane) int {
	return max(s.layout(s.width, s.height)[p].h-2, 0)
}

// paneLen is how many lines a pane's content has at an inner width.
func (s *reviewScreen) paneLen(p pane, inner int) int {
	return len(s.paneLines(p, inner))
}

// clampScroll keeps every pane's offset inside its content at the current
// size (a pane scrolled to its end stays there).
func (s *reviewScreen) clampScroll() {
	if s.width == 0 || !s.hasItem() {
		return
	}
	rects := s.layout(s.width, s.height)
	for p := range numPanes {
		rc := rects[p]
		if rc.w < 4 {
			continue
		}
		s.scroll[p] = s.offset(p, s.paneLines(p, rc.w-4), rc.h-2)
	}
}
