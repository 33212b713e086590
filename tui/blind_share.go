package tui

import "github.com/gavel-dev/gavel/sessions"

// The blind share (--blind-share 30%): a seeded random share of the items
// is shown blind, as in blind mode, until the person has reviewed it, even
// with blind mode off. The anchoring check compares agreement with the
// judge on these labels with agreement on labels made with the verdict
// shown: a fair comparison only because which items are blind does not
// depend on the person, the item's text or the judge.

// blindSalt is the blind share's salt in sessions.InShare: the same seed
// draws another share for re-tests.
const blindSalt = "blind"

// Per item, whether it is in the blind share, once asked.
const (
	shareUnknown uint8 = iota
	shareIn
	shareOut
)

// blindShared reports whether item i is in the session's blind share. It
// is asked on every frame (and by filters for every item), so the answer
// is kept per item.
func (w *workspace) blindShared(i int) bool {
	if w.blindShare <= 0 {
		return false
	}
	return w.shareOf(&w.inShare, i, blindSalt, w.blindShare)
}

// shareOf reports whether item i is in the seeded share drawn with salt,
// keeping the answer per item in cache (items still being read grow it).
func (w *workspace) shareOf(cache *[]uint8, i int, salt string, share float64) bool {
	if i < 0 || i >= len(w.items) {
		return false
	}
	if len(*cache) < len(w.items) {
		*cache = append(*cache, make([]uint8, len(w.items)-len(*cache))...)
	}
	switch (*cache)[i] {
	case shareIn:
		return true
	case shareOut:
		return false
	}
	in := sessions.InShare(w.seed, salt, w.items[i].ID, share)
	(*cache)[i] = shareOut
	if in {
		(*cache)[i] = shareIn
	}
	return in
}

// blindWhy says why the verdict of item i is hidden, for the verdict pane
// and refusals: "" when it is not.
func (w *workspace) blindWhy(i int) string {
	switch {
	case !w.hidden(i):
		return ""
	case w.retesting(i):
		return "Re-test: you labelled this item before. Label it again as you judge it now; your earlier label and the judge's verdict stay hidden, and your first label is kept."
	case w.blind:
		return "Blind mode: the judge's verdict shows once you have labelled this item (b turns blind mode off)."
	}
	return "Blind item: this item is one of the share shown blind (--blind-share), so that agreement with the judge can be compared with and without its verdict. The verdict shows once you have labelled it."
}
