package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// yesNo labels the selected row YES (1) or NO (0). Only YES/NO rows take
// y and n: on a 1–5 item, y must not quietly save a 1, the worst score.
func (s *reviewScreen) yesNo(value float64) tea.Cmd {
	rw, ok := s.selectedRow()
	if !ok {
		s.refuse("The active judge has nothing to label on this item.")
		return nil
	}
	if inputOf(rw.dim.Scale) != inputYesNo {
		s.refuse(fmt.Sprintf("y and n label YES/NO items: press %s here%s.", scaleKeys(rw.dim.Scale), scaleValues(rw.dim.Scale)))
		return nil
	}
	return s.labelRow(rw, value, sessions.KindLabel)
}

// score turns a digit key into a value on the selected row's scale (see
// scale_keys.go); on a scale too long for digits it opens the picker
// with the digit typed.
func (s *reviewScreen) score(digit string) action {
	rw, ok := s.selectedRow()
	if !ok {
		s.refuse("The active judge has nothing to label on this item.")
		return action{}
	}
	sc := rw.dim.Scale
	switch inputOf(sc) {
	case inputYesNo:
		s.refuse("This item is labelled YES or NO: press y or n.")
		return action{}
	case inputPicker:
		return action{open: s.picker(rw, digit)}
	}
	v, ok := digitValue(sc, digit)
	switch {
	case !ok && digit == "0" && sc.Kind() == judge.KindPairwise:
		s.refuse(fmt.Sprintf("0 would be a tie, and this judge's scale has none (%s): press %s.", scaleRange(sc), scaleKeys(sc)))
		return action{}
	case !ok:
		s.refuse(fmt.Sprintf("%s is not %s here (%s): press %s.", digit, valueWord(sc), scaleRange(sc), scaleKeys(sc)))
		return action{}
	}
	return act(s.labelRow(rw, v, sessions.KindLabel))
}

// pick opens the picker on the selected row of a scale too long for
// digits (enter on such a row).
func (s *reviewScreen) pick() action {
	rw, ok := s.selectedRow()
	if !ok {
		s.refuse("The active judge has nothing to label on this item.")
		return action{}
	}
	return action{open: s.picker(rw, "")}
}

// picker is the picker dialog for a row of the item on screen, the
// judge's value selected when it shows (enter then enter labels as the
// judge did), with typed already typed.
func (s *reviewScreen) picker(rw row, typed string) dialog {
	at, has := 0.0, false
	marks := map[float64]string{}
	if r := s.run(); r != nil && !s.hidden(s.cur) {
		if v, ok := r.judgeValue(s.cur, rw); ok {
			at, has = v, true
			marks[v] = "judge"
		}
	}
	if v, ok := s.label(s.cur, rw); ok {
		at, has = v, true // relabelling starts from the label
		if marks[v] != "" {
			marks[v] = "judge, you"
		} else {
			marks[v] = "you"
		}
	}
	title := SanitizeLine(Clip(rowName(s.items[s.cur], rw), 256))
	return newPickerDialog(pickTarget{item: s.cur, crit: rw.crit, dim: rw.dim.Name}, rw.dim.Scale, title, at, has, typed, marks)
}

// picked labels the row the picker was opened on with the value chosen,
// if that item and row are still the ones on screen.
func (s *reviewScreen) picked(msg pickedMsg) tea.Cmd {
	t := msg.target
	if !s.hasItem() || t.item != s.cur {
		return nil
	}
	for _, rw := range s.rows(s.cur) {
		if rw.crit == t.crit && rw.dim.Name == t.dim {
			if !rw.dim.Scale.Valid(msg.value) {
				return nil
			}
			return s.labelRow(rw, msg.value, sessions.KindLabel)
		}
	}
	return nil
}

// labelRow labels one row of the item on screen.
func (s *reviewScreen) labelRow(rw row, value float64, kind sessions.ActionKind) tea.Cmd {
	return s.record([]sessions.Action{s.action(kind, rw, value)})
}

// accept labels every row of the item with the judge's value.
func (s *reviewScreen) accept() tea.Cmd {
	r := s.run()
	if r == nil {
		s.refuse("This session has no judge: label the item yourself.")
		return nil
	}
	switch {
	case s.retesting(s.cur):
		s.refuse("Re-test: label this item yourself; the verdict and your first label stay hidden.")
		return nil
	case s.hidden(s.cur) && s.blind:
		s.refuse("Blind mode: label this item yourself; the verdict shows afterwards.")
		return nil
	case s.hidden(s.cur):
		s.refuse("This item is shown blind (--blind-share): label it yourself; the verdict shows afterwards.")
		return nil
	}
	rows := s.rows(s.cur)
	var acts []sessions.Action
	missing := 0
	for _, rw := range rows {
		v, ok := r.judgeValue(s.cur, rw)
		if !ok {
			missing++
			continue
		}
		acts = append(acts, s.action(sessions.KindAccept, rw, v))
	}
	if len(acts) == 0 {
		switch vd, ok := r.verdict(s.cur, 0); {
		case len(rows) == 0:
			s.refuse("The active judge has nothing to label on this item.")
		case ok && !vd.OK():
			s.refuse(fmt.Sprintf("The verdict is a %s: there is nothing to accept. Label it yourself (%s).", vd.Status, scaleKeys(rows[0].dim.Scale)))
		case r.judging() || r.loading:
			s.refuse("No verdict yet for this item: label it yourself, or wait for the judge.")
		default:
			s.refuse("This item has no verdict and the judge is not running: label it yourself, or r to judge it.")
		}
		return nil
	}
	item := s.cur // record moves on
	cmd := s.record(acts)
	if missing > 0 && cmd != nil {
		s.warn(fmt.Sprintf("Accepted %d on %s; %d have no usable verdict and still need your label.",
			len(acts), idText(s.items[item].ID), missing))
		s.log.about(s.items[item].ID)
	}
	return cmd
}

func (s *reviewScreen) action(kind sessions.ActionKind, rw row, v float64) sessions.Action {
	return sessions.Action{
		Kind:      kind,
		ItemID:    s.items[s.cur].ID,
		Criterion: rw.crit,
		Dimension: rw.dim.Name,
		Value:     v,
		Via:       s.provenance(),
	}
}

// record applies a group of decisions (labels, accepts, a can't judge) on
// screen, queues them for the store, and moves on: to the next open row of
// the item, or, when the item is fully labelled, to the next item — with a
// re-test first when one is due. A label is only made through a filter
// the item is in, so that its recorded provenance is true; a re-test is
// reached by no filter, and says so.
func (s *reviewScreen) record(acts []sessions.Action) tea.Cmd {
	item := s.cur
	retest := s.retesting(item)
	if !retest && !s.inSelection(item) {
		s.refuse(fmt.Sprintf("%s is no longer in the filter %q, so a label made here would say it was reached through it: press F or f for another filter.",
			idText(s.items[item].ID), s.sel.filter.name))
		return nil
	}
	s.stamp(item, acts)
	if retest {
		for k := range acts {
			acts[k].Via = viaRetest
		}
	} else if kept := s.dropRepeats(acts); len(kept) == 0 && len(acts) > 0 {
		s.repeated(item, acts[0]) // repeat.go
		return nil
	} else {
		acts = kept
	}
	if err := s.labels.Apply(acts); err != nil {
		s.fail("Not labelled: " + SanitizeLine(err.Error()))
		return nil
	}
	s.labelsGen++
	s.adj.recorded(acts)
	s.refresh(item)
	s.adjudicationRecorded(item)
	cmd := s.push(saveOp{item: item, acts: acts})
	switch {
	case retest && s.retestComplete(item, acts):
		s.leaveRetest(true)
	case retest:
		s.row = s.firstOpenRow(item)
	case s.reviewed[item] || s.leftAdjudication(item):
		next := -1
		if s.sel.pos+1 < len(s.sel.items) {
			next = s.sel.items[s.sel.pos+1]
		}
		switch {
		case s.adjudicating():
			// On to the next item still to adjudicate, past those settled
			// meanwhile (wrapping round); adjudicationRecorded said what
			// is left.
			if p := s.nextToAdjudicate(); p >= 0 {
				s.step(p - s.sel.pos)
			}
		case s.startRetest(item, next):
		case next >= 0:
			s.step(1)
		default:
			s.hint("That was the last item here. Press g for any item still unreviewed, s for statistics.")
		}
	default:
		s.row = s.firstOpenRow(item)
	}
	return tea.Batch(cmd, s.planRecorded(item, acts))
}

// viaRetest is a re-test's provenance: it was reached by the re-test
// schedule, not by the filter or order in force.
const viaRetest = sessions.ViaRetest

// undo reverts the latest group of actions and shows its item.
func (s *reviewScreen) undo() tea.Cmd {
	back := s.cur
	keys := s.labels.Undo()
	if keys == nil {
		s.hint("Nothing to undo.")
		return nil
	}
	s.labelsGen++
	s.adj.undone(keys)
	item, ok := s.index.at(keys[0].ItemID)
	if !ok {
		// A label made before the dataset changed, on an item it no
		// longer has: the session undoes it all the same.
		s.hint(fmt.Sprintf("Undone on %s, an item the dataset no longer has.", SanitizeLine(Clip(keys[0].ItemID, 64))))
		return s.push(saveOp{item: -1, undo: true})
	}
	s.refresh(item)
	s.planUndone(keys)
	if s.retestAfterUndo(item, keys, back) {
		s.hint(fmt.Sprintf("Undone on %s: its re-test is on screen again.", idText(s.items[item].ID)))
		return s.push(saveOp{item: item, undo: true})
	}
	s.show(item)
	s.hint(fmt.Sprintf("Undone on %s.", idText(s.items[item].ID)))
	return s.push(saveOp{item: item, undo: true})
}

// noteMsg is a note written in the note dialog, for an item.
type noteMsg struct {
	item int
	text string
}

// saveNote applies a note on screen and queues it for the store.
func (m *Model) saveNote(msg noteMsg) tea.Cmd {
	text := strings.TrimSpace(msg.text)
	// The editor showed the note sanitised: unchanged, it is not saved
	// again (that would replace the original with its inert form).
	if msg.item < 0 || msg.item >= len(m.items) || text == m.note(msg.item) || text == SanitizeLine(m.note(msg.item)) {
		return nil
	}
	id := m.items[msg.item].ID
	acts := []sessions.Action{{Kind: sessions.KindNote, ItemID: id, Note: text, Via: m.provenance()}}
	m.stamp(msg.item, acts)
	if err := m.labels.Apply(acts); err != nil {
		m.fail("Note not saved: " + SanitizeLine(err.Error()))
		return nil
	}
	m.review.cache.clear()
	// Said as the label keys say it: the note goes to the save queue, and
	// the status line says when it is on disk. Until a new session is
	// written, nothing is (the tester read "Note saved" with no file yet).
	later := ""
	if m.store == nil {
		later = " (saved once the session is written)"
	}
	if text == "" {
		m.tell(fmt.Sprintf("Note removed from %s%s.", idText(id), later))
	} else {
		m.tell(fmt.Sprintf("Note on %s%s: %s", idText(id), later, SanitizeLine(text)))
	}
	m.log.about(id) // the note's text: hidden while the item is a re-test on screen
	return m.push(saveOp{item: msg.item, acts: acts})
}

// plural is "1 item", "2 items".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func itemCount(n int) string { return plural(n, "item", "items") }

// idText is an item's id as messages show it: sanitised, and cut, since
// an id is as long as the dataset makes it.
func idText(id string) string { return SanitizeLine(Clip(id, 96)) }
