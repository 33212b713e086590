package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// labelSelected labels the selected row.
func (m *Model) labelSelected(value float64, kind sessions.ActionKind) tea.Cmd {
	rows := m.rows(m.cur)
	if len(rows) == 0 {
		m.setFlash("The active judge has nothing to label on this item.")
		return nil
	}
	rw := rows[min(m.row, len(rows)-1)]
	if !rw.dim.Scale.Valid(value) {
		m.setError(fmt.Sprintf("%s is not a %s value for %q: %s.", rw.dim.Scale.Format(value), rw.dim.Scale, rw.dim.Name, scaleKeys(rw.dim.Scale)))
		return nil
	}
	return m.record([]sessions.Action{m.action(kind, rw, value)})
}

// score turns a digit key into a value on the selected row's scale.
func (m *Model) score(digit string) tea.Cmd {
	rows := m.rows(m.cur)
	if len(rows) == 0 {
		return nil
	}
	rw := rows[min(m.row, len(rows)-1)]
	d := float64(digit[0] - '0')
	switch rw.dim.Scale {
	case judge.Binary:
		if d > 1 {
			m.setError("This is a YES/NO label: press y or n (or 1 / 0).")
			return nil
		}
	case judge.Ternary:
		if d == 5 {
			d = 0.5
		}
	}
	return m.labelSelected(d, sessions.KindLabel)
}

// accept labels every row of the item with the judge's value.
func (m *Model) accept() tea.Cmd {
	r := m.run()
	if r == nil {
		return nil
	}
	if m.hidden(m.cur) {
		m.setFlash("Blind mode: label this item yourself; the verdict shows afterwards.")
		return nil
	}
	var acts []sessions.Action
	missing := 0
	for _, rw := range m.rows(m.cur) {
		v, ok := r.judgeValue(m.cur, rw)
		if !ok {
			missing++
			continue
		}
		acts = append(acts, m.action(sessions.KindAccept, rw, v))
	}
	if len(acts) == 0 {
		if vd, ok := r.verdict(m.cur, 0); ok && !vd.OK() {
			m.setFlash(fmt.Sprintf("The verdict is a %s: there is nothing to accept. Label it yourself (%s).", vd.Status, scaleKeys(m.rows(m.cur)[0].dim.Scale)))
		} else {
			m.setFlash("No verdict yet for this item: label it yourself, or wait for the judge.")
		}
		return nil
	}
	if missing > 0 {
		m.setFlash(fmt.Sprintf("Accepted %d verdicts; %d have no usable verdict and still need your label.", len(acts), missing))
	}
	return m.record(acts)
}

func (m *Model) action(kind sessions.ActionKind, rw row, v float64) sessions.Action {
	return sessions.Action{
		Kind:      kind,
		ItemID:    m.items[m.cur].ID,
		Criterion: rw.crit,
		Dimension: rw.dim.Name,
		Value:     v,
		Via:       m.provenance(),
	}
}

// record applies a group of label actions on screen, queues them for the
// store, and moves on: to the next open row of the item, or, when the item
// is fully labelled, to the next item.
func (m *Model) record(acts []sessions.Action) tea.Cmd {
	item := m.cur
	keys := make([]lkey, len(acts))
	entries := make([]entry, len(acts))
	for i, a := range acts {
		keys[i], entries[i] = keyOf(a, item)
	}
	m.labels.apply(keys, entries)
	m.refresh(item)
	cmd := m.push(saveOp{item: item, acts: acts})
	if m.reviewed[item] {
		if m.sel.pos+1 < len(m.sel.items) {
			m.step(1)
		} else {
			m.setFlash("That was the last item here. Press g for any item still unreviewed, s for statistics.")
		}
	} else {
		m.row = m.firstOpenRow(item)
	}
	return cmd
}

// undo reverts the latest group of actions and shows its item.
func (m *Model) undo() tea.Cmd {
	keys := m.labels.undo()
	if keys == nil {
		m.setFlash("Nothing to undo.")
		return nil
	}
	item := keys[0].item
	m.refresh(item)
	m.goTo(item)
	m.setFlash(fmt.Sprintf("Undone on %s.", SanitizeLine(m.items[item].ID)))
	return m.push(saveOp{item: item, undo: true})
}

// startNote opens the note editor on the current item's note.
func (m *Model) startNote() tea.Cmd {
	if len(m.items) == 0 {
		return nil
	}
	m.noting = true
	m.note.SetValue(m.labels.note(m.cur))
	m.note.CursorEnd()
	m.note.SetWidth(max(m.width-12, 10))
	return m.note.Focus()
}

func (m Model) noteKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "esc":
		m.noting = false
		m.note.Blur()
		return m, nil
	case "enter":
		m.noting = false
		m.note.Blur()
		text := strings.TrimSpace(m.note.Value())
		if text == m.labels.note(m.cur) {
			return m, nil
		}
		a := sessions.Action{Kind: sessions.KindNote, ItemID: m.items[m.cur].ID, Note: text, Via: m.provenance()}
		k, e := keyOf(a, m.cur)
		m.labels.apply([]lkey{k}, []entry{e})
		m.cache.clear()
		return m, m.push(saveOp{item: m.cur, acts: []sessions.Action{a}})
	}
	var cmd tea.Cmd
	m.note, cmd = m.note.Update(msg)
	return m, cmd
}

// scaleKeys says which keys label a scale.
func scaleKeys(s judge.Scale) string {
	switch s {
	case judge.Ternary:
		return "0, 5 (= 0.5) or 1"
	case judge.Likert:
		return "1 to 5"
	}
	return "y or n"
}
