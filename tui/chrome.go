package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"github.com/charmbracelet/x/ansi"
)

// The chrome is the three lines around every screen: the header (what is
// open and where the reviewer is), the status line (progress, judging,
// saving, unread messages) and the hint line (the keys of what takes keys
// now, or the message of the last key).

// headerLine: the dataset, the judge and the annotator on the left, the
// item on the right. When space runs short the parts are given up in
// order of what matters least: the segments, then the id's length, the
// dataset's name, the annotator; the judge's name is cut last.
func (m *Model) headerLine() string {
	st := m.styles
	w := m.width
	dataset := SanitizeLine(Clip(m.dataset, 256))
	judgeName, count := "", ""
	if r := m.run(); r != nil {
		judgeName = SanitizeLine(r.name())
		if len(m.runs) > 1 {
			count = fmt.Sprintf(" (%d/%d)", m.act+1, len(m.runs))
		}
	}
	annotator := SanitizeLine(Clip(m.annotator, 64))

	// The right part: blind mode and the filter (warnings), the item.
	var notice, where, id, segs, mark string
	if m.blindQueue {
		notice = blindQueueNotice + " · " // the others' labels hidden
	}
	if n := m.blindNotice(); n != "" {
		notice += n + " · " // blind mode, a blind-share item, a re-test
	}
	// room pads the notice to the plan's widest word, so that the parts
	// given up below do not change as the plan's estimate comes in.
	room := 0
	if p := m.planNotice(); p != "" {
		notice += p + " · " // the plan's progress stands for its filter's
		room = max(m.planNoticeRoom()-ansi.StringWidth(p), 0)
	}
	if (m.filtered() && !m.following()) || !m.hasItem() {
		what := m.sel.filter.name
		if m.sel.filter.id == "all" {
			what = m.sel.order.String()
		}
		if m.hasItem() && m.adjudicating() {
			notice += m.adjudicationNotice() + " · " // how many are left
		} else if m.hasItem() {
			notice += fmt.Sprintf("%d/%d %s · ", m.sel.pos+1, len(m.sel.items), ansi.Truncate(what, 24, "…"))
		} else if len(m.items) > 0 {
			notice += "no item · " + ansi.Truncate(what, 24, "…")
		}
	}
	if m.hasItem() {
		it := m.items[m.cur]
		// While items are read, the total is the session's count, not
		// the items read so far.
		where = fmt.Sprintf("item %d/%d · ", m.cur+1, max(len(m.items), m.load.total))
		if m.following() {
			// The plan's "5/60" stands beside: the item by its id alone.
			where = ""
		}
		id = SanitizeLine(Clip(it.ID, 256))
		segs = segmentText(it.Segments)
		if m.reviewed[m.cur] {
			mark = " ✓"
			if m.adjudicating() && m.toAdjudicate(m.cur) {
				// Labelled, but back in the queue (a person's label
				// changed after it): not settled.
				mark = " ↺ again"
			}
		}
	}

	idW := ansi.StringWidth(id)
	dsW := ansi.StringWidth(dataset)
	showSegs, showAnnotator, showWhere := segs != "", annotator != "", true
	sep := ansi.StringWidth(" · ")
	width := func() int {
		n := ansi.StringWidth("gavel") + ansi.StringWidth(notice) + room + idW + ansi.StringWidth(mark) + 1
		if dsW > 0 {
			n += 1 + dsW
		}
		if showWhere {
			n += ansi.StringWidth(where)
		}
		if judgeName != "" {
			n += ansi.StringWidth(" · judge ") + ansi.StringWidth(judgeName+count)
		}
		if showAnnotator {
			n += sep + ansi.StringWidth(annotator)
		}
		if showSegs {
			n += sep + ansi.StringWidth(segs)
		}
		return n
	}
	// Give up parts until the line fits.
	for _, step := range []func(){
		func() { showSegs = false },
		func() { idW = min(idW, 16) },
		func() { dsW = min(dsW, 12) },
		func() { showAnnotator = false },
		func() { idW = min(idW, 8) },
		func() { dsW = 0 },
		func() { showWhere = false },
	} {
		if width() <= w {
			break
		}
		step()
	}
	left := st.App.Render("gavel")
	if dsW > 0 {
		left += " " + st.Header.Render(ansi.Truncate(dataset, dsW, "…"))
	}
	if judgeName != "" {
		// The judge's name gets whatever is left, and is cut only when
		// nothing else can give way.
		room := ansi.StringWidth(judgeName) - max(width()-w, 0)
		left += st.Muted.Render(" · judge ") + ansi.Truncate(judgeName, max(room, 1), "…") + st.Muted.Render(count)
	}
	if showAnnotator {
		left += st.Muted.Render(" · ") + annotator
	}
	right := st.Warning.Render(notice)
	if showWhere {
		right += where
	}
	right += ansi.Truncate(id, idW, "…")
	if showSegs {
		right += st.Muted.Render(" · " + segs)
	}
	if mark == " ↺ again" {
		right += st.Warning.Render(mark)
	} else if mark != "" {
		right += st.Agree.Render(mark)
	}
	return spread(left, right, w)
}

// segmentText is an item's segment values, sanitised and cut, sorted by
// field name.
func segmentText(segs map[string]string) string {
	if len(segs) == 0 {
		return ""
	}
	keys := make([]string, 0, len(segs))
	for k := range segs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = SanitizeLine(Clip(segs[k], 64))
	}
	return strings.Join(parts, " · ")
}

// statusLine: review progress and running agreement on the left; on the
// right each running judge's progress (whatever judge is on screen),
// whether everything is saved, and the unread messages.
func (m *Model) statusLine() string {
	st := m.styles
	frac := 0.0
	if m.nApplic > 0 {
		frac = float64(m.nReviewed) / float64(m.nApplic)
	}
	// The left part, longest first: the first that fits is shown, so a
	// narrow terminal drops the agreement, then the bar, then writes the
	// counts short, rather than cut a count's last digits ("reviewed
	// 3/10000…" for 3 of 100,000).
	done, total, what := m.nReviewed, m.nApplic, "reviewed"
	if m.loading() {
		// The counts of a partly read session are not final: say what
		// is read instead.
		done, total, what = len(m.items), max(m.load.total, len(m.items)), "reading items"
		frac = float64(done) / float64(max(total, 1))
	}
	counts := fmt.Sprintf("%s %d/%d", what, done, total)
	left := []string{counts + " " + m.bar(frac), counts, fmt.Sprintf("%s %s/%s", what, compact(done), compact(total))}
	if !m.loading() && m.nCompared > 0 {
		agree := fmt.Sprintf(" · agreement %d/%d = %.0f%%", m.nAgree, m.nCompared, 100*float64(m.nAgree)/float64(m.nCompared))
		left = append([]string{left[0] + agree}, left...)
	}
	var right []string
	for k, r := range m.runs {
		name := ""
		if len(m.runs) > 1 {
			name = ansi.Truncate(SanitizeLine(r.shortName()), 12, "…") + " "
			if k == m.act {
				name = st.Strong.Render(name)
			}
		}
		if r.loading {
			right = append(right, st.Muted.Render(name+"reading verdicts…"))
		}
		if !r.judging() {
			continue
		}
		p := r.progress()
		f := 0.0
		if p.Total > 0 {
			f = float64(p.Done) / float64(p.Total)
		}
		s := name + fmt.Sprintf("judging %d/%d ", p.Done, p.Total) + m.bar(f)
		if e := problems(p); len(e) > 0 {
			s += st.Error.Render(" · " + strings.Join(e, " · "))
		}
		if p.Retries > 0 {
			s += st.Warning.Render(" · " + plural(p.Retries, "retry", "retries"))
		}
		if p.Tokens > 0 {
			s += st.Muted.Render(" · " + compact(p.Tokens) + " tokens")
		}
		right = append(right, s)
	}
	if m.health != "" {
		right = append(right, st.Error.Render("⚠ server not answering"))
	}
	switch {
	case m.building():
		// Labels wait for the session: none is saved yet.
		right = append(right, st.Pending.Render("writing the session…"))
	case m.save.err != nil:
		right = append(right, st.Error.Render("✗ not saved"))
	case m.save.inflight || len(m.save.queue) > 0:
		right = append(right, st.Pending.Render("saving…"))
	case m.nReviewed > 0 || m.labels.CanUndo():
		right = append(right, st.Agree.Render("✓ saved"))
	}
	if n := m.log.unread(); n > 0 {
		right = append(right, st.Warning.Render(fmt.Sprintf("● %s · m", plural(n, "message", "messages"))))
	}
	r := strings.Join(right, st.Muted.Render(" · "))
	room := m.width - ansi.StringWidth(r) - 1
	for _, l := range left[:len(left)-1] {
		if ansi.StringWidth(l) <= room {
			return spread(l, r, m.width)
		}
	}
	// Even the short counts do not fit beside the right part: the counts
	// stay whole and the right part is cut.
	l := left[len(left)-1]
	r = ansi.Truncate(r, max(m.width-ansi.StringWidth(l)-1, 0), "…")
	return spread(l, r, m.width)
}

// bar is a small progress bar for the status line.
func (m *Model) bar(frac float64) string {
	b := progress.New(progress.WithWidth(min(16, max(m.width/12, 5))), progress.WithoutPercentage(),
		progress.WithColors(m.styles.BarFull), progress.WithFillCharacters('█', '░'))
	return b.ViewAs(frac)
}

// hintLine shows the open prompt, the message of the last key, or the
// keys of whatever takes keys now: the top dialog or the screen (with the
// keys every screen shares last, always shown).
func (m *Model) hintLine() string {
	st := m.styles
	if d, ok := m.top().(lineDialog); ok {
		return ansi.Truncate(d.line(st, m.width), m.width, "…")
	}
	switch {
	case m.top() != nil:
	case m.save.err != nil && m.log.flash == "" && m.store == nil && m.waitStore == nil:
		// A new session that could not be written: nothing retries.
		return ansi.Truncate(st.Error.Render("Not saved: "+SanitizeLine(m.save.err.Error())+" — no session was written; quit, and start again."), m.width, "…")
	case m.save.err != nil && m.log.flash == "":
		return ansi.Truncate(st.Error.Render("Not saved: "+SanitizeLine(m.save.err.Error())+" — retrying; labels on screen are not in the session yet."), m.width, "…")
	case m.log.flash != "":
		style := st.Warning
		switch m.log.flashSev {
		case sevInfo:
			style = st.KeyDesc
		case sevError:
			style = st.Error
		}
		text := SanitizeLine(Clip(m.log.flash, 4096))
		if m.log.flashKept && ansi.StringWidth(text) > m.width {
			text = ansi.Truncate(text, m.width-9, "…") + " (m: all)"
		}
		return ansi.Truncate(style.Render(text), m.width, "…")
	}
	var bindings, tail []key.Binding
	if d := m.top(); d != nil {
		bindings = d.ShortHelp()
	} else {
		bindings = m.current().ShortHelp()
		tail = m.keys.hints()
	}
	return keyHints(st, bindings, tail, m.width)
}

// keyHints lays out bindings as "key word" pairs on one line of width
// cells: the tail always, the bindings in order while they fit.
func keyHints(st Styles, bindings, tail []key.Binding, width int) string {
	render := func(b key.Binding) string {
		h := b.Help()
		return st.Key.Render(h.Key) + " " + st.KeyDesc.Render(h.Desc)
	}
	sep := st.Muted.Render(" · ")
	var tailParts []string
	used := 0
	for _, b := range tail {
		p := render(b)
		tailParts = append(tailParts, p)
		used += ansi.StringWidth(p) + 3
	}
	var parts []string
	for _, b := range bindings {
		p := render(b)
		if used+ansi.StringWidth(p)+3 > width {
			break
		}
		used += ansi.StringWidth(p) + 3
		parts = append(parts, p)
	}
	return ansi.Truncate(strings.Join(append(parts, tailParts...), sep), width, "…")
}

// spread puts left and right on one line of the given width, cutting the
// left part first when they do not fit.
func spread(left, right string, width int) string {
	rw := ansi.StringWidth(right)
	if rw > width {
		return ansi.Truncate(right, width, "…")
	}
	left = ansi.Truncate(left, max(width-rw-1, 0), "…")
	gap := width - ansi.StringWidth(left) - rw
	return left + strings.Repeat(" ", max(gap, 0)) + right
}

func compact(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
