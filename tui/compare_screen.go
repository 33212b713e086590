package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// compareScreen shows a variant made on this screen beside the judge it
// was made from, as `gavel compare` prints it: each against the humans,
// the paired table, the difference with its interval, McNemar's exact p
// and the items fixed and broken, on the evaluation part of the split when
// the session has one (the first line says which items). It is computed
// again after each saved label while it shows.
type compareScreen struct {
	*workspace
	keys   compareKeys
	width  int
	height int
	scroll int
	cache  compareCache
}

// compareCache keys the content by what it is drawn from.
type compareCache struct {
	valid bool
	v     *variantView
	cmp   *Compared
	err   error
	width int
	lines []render.Line
}

// compareKeys are the comparison screen's keys.
type compareKeys struct {
	Back key.Binding
	scrollKeys
	Prev   key.Binding
	Next   key.Binding
	Fixed  key.Binding
	Broken key.Binding
}

func defaultCompareKeys() compareKeys {
	return compareKeys{
		Back:       key.NewBinding(key.WithKeys("esc", "C"), key.WithHelp("esc/C", "back to review")),
		scrollKeys: defaultScrollKeys(),
		Prev:       key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "the previous variant's comparison")),
		Next:       key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "the next variant's comparison")),
		Fixed:      key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "review the items the variant fixed")),
		Broken:     key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "review the items the variant broke")),
	}
}

func (s *compareScreen) resize(width, height int) { s.width, s.height = width, height }

func (s *compareScreen) variant() *variantView {
	if s.cmpShown >= 0 && s.cmpShown < len(s.variants) {
		return s.variants[s.cmpShown]
	}
	return nil
}

func (s *compareScreen) ShortHelp() []key.Binding {
	k := s.keys
	var out []key.Binding
	if v := s.variant(); v != nil && v.cmp != nil {
		out = append(out, short(k.Fixed, "fixed"), short(k.Broken, "broken"))
	}
	if len(s.variants) > 1 {
		out = append(out, relabel(k.Next, "←→", "variant"))
	}
	return append(out, short(k.Back, "back"), relabel(k.Down, "↓↑", "scroll"), short(k.PageDown, "page"))
}

func (s *compareScreen) FullHelp() [][]key.Binding {
	k := s.keys
	return [][]key.Binding{
		k.bindings(),
		{k.Fixed, k.Broken, k.Prev, k.Next, k.Back},
	}
}

func (s *compareScreen) groups() []string { return []string{"Read", "Items and screens"} }

func (s *compareScreen) update(msg tea.KeyPressMsg) action {
	k := s.keys
	page := max(s.height-3, 1)
	switch {
	case key.Matches(msg, k.Back):
		return action{show: showReview}
	case key.Matches(msg, k.Prev, k.Next) && len(s.variants) > 1:
		step := 1
		if key.Matches(msg, k.Prev) {
			step = len(s.variants) - 1
		}
		s.cmpShown = (s.cmpShown + step) % len(s.variants)
		s.scroll = 0
		return action{show: showCompare}
	case key.Matches(msg, k.Fixed, k.Broken):
		return s.openItems(key.Matches(msg, k.Fixed))
	default:
		s.scroll, _ = k.scroll(msg, s.scroll, page)
	}
	return action{}
}

// openItems reviews the items the variant fixed (or broke), with the
// variant active so that its verdict is the one on screen.
func (s *compareScreen) openItems(fixed bool) action {
	v := s.variant()
	if v == nil || v.cmp == nil {
		s.refuse("The comparison is not ready yet.")
		return action{}
	}
	if s.blind {
		s.refuse("Blind mode hides the verdicts: b on the review screen turns it off, then x and X select the items.")
		return action{}
	}
	want := v.filterID(fixed)
	for i, r := range s.runs {
		if r == v.run {
			s.useJudge(i)
		}
	}
	for _, f := range s.variantFilters() {
		if f.id == want {
			_, o := s.wanted()
			return action{show: showReview, cmd: s.selectAs(f, o)}
		}
	}
	return action{}
}

// view draws the comparison of the variant shown.
func (s *compareScreen) view(width, height int) string {
	v := s.variant()
	title := "Comparison"
	if v != nil {
		title += " · " + SanitizeLine(Clip(v.baseName, 64)) + " → " + SanitizeLine(Clip(v.name, 64))
		if len(s.variants) > 1 {
			title += fmt.Sprintf(" · variant %d/%d", s.cmpShown+1, len(s.variants))
		}
	}
	lines := styleLines(s.styles, s.content(max(width-4, 20)), nil)
	s.scroll = clampOffset(s.scroll, len(lines), height-2)
	return box(s.styles, title, lines, s.scroll, width, height, true)
}

// content is the screen's text at a width.
func (s *compareScreen) content(width int) []render.Line {
	v := s.variant()
	k := compareCache{valid: true, v: v, width: width}
	if v != nil {
		k.cmp, k.err = v.cmp, v.cmpErr
	}
	if c := s.cache; c.valid && c.v == k.v && c.cmp == k.cmp && c.err == k.err && c.width == k.width && (v == nil || !v.run.judging()) {
		return c.lines
	}
	k.lines = s.draw(v, width)
	s.cache = k
	return k.lines
}

func (s *compareScreen) draw(v *variantView, width int) []render.Line {
	para := func(role render.Role, text string) []render.Line {
		var out []render.Line
		for _, l := range wrapPlain(text, width) {
			out = append(out, render.Line{{Text: l, Role: role}})
		}
		return out
	}
	if v == nil {
		return para(render.RoleMuted, "No variant yet: E on the review screen edits the judge's file, and the variant is judged on the labelled items.")
	}
	name, base := SanitizeLine(Clip(v.name, 64)), SanitizeLine(Clip(v.baseName, 64))
	var out []render.Line
	if v.run.judging() {
		p := v.run.progress()
		out = append(out, para(render.RoleWarning, fmt.Sprintf("%s is still judging the labelled items (%d of %d): until it is done, an item it has not judged counts as wrong for it.", name, p.Done, p.Total))...)
		out = append(out, nil)
	}
	if v.examples > 0 {
		out = append(out, para(render.RoleMuted, fmt.Sprintf("%s shows the model %s from the calibration part of the split.", name, plural(v.examples, "few-shot example", "few-shot examples")))...)
	}
	switch {
	case v.cmpErr != nil:
		return append(out, para(render.RolePlain, "The comparison could not be computed: "+SanitizeLine(v.cmpErr.Error()))...)
	case v.cmp == nil:
		return append(out, para(render.RoleMuted, fmt.Sprintf("Comparing %s with %s…", name, base))...)
	}
	if v.cmp.Items != "" {
		out = append(out, para(render.RoleStrong, SanitizeLine(v.cmp.Items))...)
		out = append(out, nil)
	}
	out = append(out, render.CompareLines(v.cmp.Figures, width, true)...)
	out = append(out, nil)
	return append(out, para(render.RoleMuted, fmt.Sprintf("x reviews the items %s fixed, X those it broke (filters \"fixed by %s\" and \"broken by %s\").", name, name, name))...)
}

// openCompare shows the comparison of the active judge when it is a
// variant, else of the latest variant made from it, else of the latest
// variant.
func (s *reviewScreen) openCompare() action {
	s.addSiblings()
	if len(s.variants) == 0 {
		s.refuse("No variant to compare yet: E edits the judge's file, and the variant is judged on the labelled items.")
		return action{}
	}
	pick := len(s.variants) - 1
	for i := len(s.variants) - 1; i >= 0; i-- {
		if v := s.variants[i]; v.base == s.run() {
			pick = i
			break
		}
	}
	for i, v := range s.variants {
		if v.run == s.run() {
			pick = i
		}
	}
	s.cmpShown = pick
	return action{show: showCompare}
}

// addSiblings offers for comparison the session's other runs of the
// active judge (variants made before this screen opened, "docqa@2"), each
// against the active run, unless already compared with it.
func (w *workspace) addSiblings() {
	a := w.run()
	if a == nil || a.id == 0 || w.compareFn == nil {
		return
	}
	for _, r := range w.runs {
		if r == a || r.id == 0 || r.info.Name != a.info.Name {
			continue
		}
		known := false
		for _, v := range w.variants {
			known = known || (v.run == r && v.base == a) || (v.run == a && v.base == r)
		}
		if known {
			continue
		}
		// Runs of one judge on two models share the short name ("docqa"):
		// they are told apart, in titles and filter ids, by the model.
		name, baseName := r.shortName(), a.shortName()
		if name == baseName {
			name, baseName = r.name(), a.name()
		}
		w.variants = append(w.variants, &variantView{
			name: name, baseName: baseName, run: r, base: a,
			id: r.id, baseID: a.id, finished: true, sibling: true,
		})
	}
}
