package sessions

import (
	"bytes"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// DatasetChange says how a dataset file differs from the items a session
// holds, matched by id.
type DatasetChange struct {
	// File is the dataset's file name, for messages.
	File string
	// Added are the ids of the file's new items, in file order; Removed
	// the ids of the session's items the file no longer has, in review
	// order; Edited the ids of items whose question, gold, prediction,
	// rubric, segments or original fields changed, in file order.
	Added, Removed, Edited []string
}

// Changed reports whether any item was added, removed or edited.
func (c DatasetChange) Changed() bool {
	return len(c.Added)+len(c.Removed)+len(c.Edited) > 0
}

// Notice tells the person what changed, in one sentence.
func (c DatasetChange) Notice() string {
	if !c.Changed() {
		return fmt.Sprintf("%s changed since this session began, but its items are the same.", c.File)
	}
	var what, which []string
	count := func(n int, verb string) {
		if n == 0 {
			return
		}
		if len(what) == 0 {
			what = append(what, plural(n, "item", "items")+" "+verb)
		} else {
			what = append(what, fmt.Sprintf("%d %s", n, verb))
		}
	}
	count(len(c.Added), "added")
	count(len(c.Removed), "removed")
	count(len(c.Edited), "edited")
	if len(c.Removed) > 0 {
		which = append(which, "removed "+idList(c.Removed)+", kept at the end")
	}
	if len(c.Edited) > 0 {
		which = append(which, "edited "+idList(c.Edited)+", now showing the new text")
	}
	if len(which) == 0 {
		which = append(which, "added "+idList(c.Added))
	}
	return fmt.Sprintf("%s changed since this session began: %s (%s); labels stay with their ids.",
		c.File, strings.Join(what, ", "), strings.Join(which, "; "))
}

// idList names a few ids: "ids a, b, c and 4 more".
func idList(ids []string) string {
	const show = 5
	word := "ids "
	if len(ids) == 1 {
		word = "id "
	}
	if len(ids) <= show {
		return word + strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s%s and %d more", word, strings.Join(ids[:show], ", "), len(ids)-show)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// DiffItems matches the items of a file (now) with those a session holds
// (held) by id and says what changed.
func DiffItems(held, now []judge.Item) DatasetChange {
	var c DatasetChange
	old := make(map[string]*judge.Item, len(held))
	for i := range held {
		old[held[i].ID] = &held[i]
	}
	inFile := make(map[string]bool, len(now))
	for i := range now {
		it := &now[i]
		inFile[it.ID] = true
		prev, ok := old[it.ID]
		switch {
		case !ok:
			c.Added = append(c.Added, it.ID)
		case !sameItem(prev, it):
			c.Edited = append(c.Edited, it.ID)
		}
	}
	for _, it := range held {
		if !inFile[it.ID] {
			c.Removed = append(c.Removed, it.ID)
		}
	}
	return c
}

// sameItem compares what a file says about an item.
func sameItem(a, b *judge.Item) bool {
	return a.Question == b.Question && a.Gold == b.Gold && a.Prediction == b.Prediction && a.ResponseA == b.ResponseA && a.ResponseB == b.ResponseB &&
		slices.Equal(a.Rubric, b.Rubric) && maps.Equal(a.Segments, b.Segments) &&
		bytes.Equal(a.Fields, b.Fields)
}

// SyncDataset brings the session's items up to date with a dataset file
// whose content changed since the session began (OpenReview calls it when
// the SHA-256 differs), and says what changed. Items are matched by id:
//
//   - new items are added, in their place in the file's order;
//   - items the file no longer has stay in the session, with their
//     verdicts and labels, after the file's items in the review order:
//     a label is never lost because a row went missing;
//   - edited items take the file's new text, rubric, segments and fields.
//     The session keeps no copy of the old text (the old file is the
//     record of it); the verdicts and labels given to the old text stay,
//     and the change names the edited ids so they can be checked again.
//     A rubric's labels stay with their criterion numbers.
//
// The session then records the new file's path, hash, format and mapping,
// so the change is reported once. A file that shares no id with the
// session is refused: it is another dataset, not a changed one.
func (s *Store) SyncDataset(ds *dataset.Dataset) (DatasetChange, error) {
	held, err := s.Items()
	if err != nil {
		return DatasetChange{}, err
	}
	c := DiffItems(held, ds.Items)
	c.File = filepath.Base(ds.Name)
	if len(held) > 0 && len(ds.Items) > 0 && len(c.Removed) == len(held) {
		return c, fmt.Errorf("session %s holds another dataset: none of the %d item ids of %s is in it; choose another --session, or start a new session for this file",
			s.path, len(ds.Items), c.File)
	}
	order := make([]string, 0, len(ds.Items)+len(c.Removed))
	for _, it := range ds.Items {
		order = append(order, it.ID)
	}
	order = append(order, c.Removed...)
	edited := make(map[string]bool, len(c.Edited))
	for _, id := range c.Edited {
		edited[id] = true
	}
	added := make(map[string]bool, len(c.Added))
	for _, id := range c.Added {
		added[id] = true
	}
	oldIdx := make(map[string]int, len(held))
	for _, it := range held {
		oldIdx[it.ID] = it.Index
	}
	path := ds.Path
	if path == "" {
		path = ds.Name
	}
	err = s.write("updating the dataset", func(tx *sql.Tx) error {
		// Move the items whose place changes out of the way first: idx
		// is unique, and the new places are a permutation of all.
		moved := map[string]int{}
		for i, id := range order {
			if old, ok := oldIdx[id]; ok && old != i {
				moved[id] = i
				if _, err := tx.Exec(`UPDATE items SET idx = ? WHERE item_id = ?`, -1-old, id); err != nil {
					return err
				}
			}
		}
		for id, i := range moved {
			if _, err := tx.Exec(`UPDATE items SET idx = ? WHERE item_id = ?`, i, id); err != nil {
				return err
			}
		}
		var fresh []judge.Item
		for i, it := range ds.Items {
			switch {
			case added[it.ID]:
				it.Index = i
				fresh = append(fresh, it)
			case edited[it.ID]:
				if err := updateItem(tx, it); err != nil {
					return err
				}
			}
		}
		if err := insertItems(tx, fresh); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE dataset SET path = ?, sha256 = ?, format = ?, items = ? WHERE id = 1`,
			path, ds.SHA256, ds.Format, len(order)); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM dataset_mapping`); err != nil {
			return err
		}
		for role, field := range ds.Mapping {
			if _, err := tx.Exec(`INSERT INTO dataset_mapping (role, field) VALUES (?, ?)`, role, field); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	return c, nil
}

// updateItem replaces an item's texts, rubric, segments and fields.
func updateItem(tx *sql.Tx, it judge.Item) error {
	var fields any
	if len(it.Fields) > 0 {
		fields = string(it.Fields)
	}
	// Inline, as any item may hold them (schema_v11.go): the item's
	// layout and segment set, if it had some, are left to the others.
	if _, err := tx.Exec(`UPDATE items SET question = ?, gold = ?, prediction = ?, response_a = ?, response_b = ?, fields = ?, segments = ?, layout = NULL, segment_set = NULL WHERE item_id = ?`,
		it.Question, it.Gold, it.Prediction, it.ResponseA, it.ResponseB, fields, segmentsJSON(it.Segments), it.ID); err != nil {
		return fmt.Errorf("item %q: %w", it.ID, err)
	}
	if _, err := tx.Exec(`DELETE FROM item_criteria WHERE item_id = ?`, it.ID); err != nil {
		return err
	}
	for k, c := range it.Rubric {
		if _, err := tx.Exec(`INSERT INTO item_criteria (item_id, criterion, text) VALUES (?, ?, ?)`, it.ID, k+1, c); err != nil {
			return fmt.Errorf("item %q criterion %d: %w", it.ID, k+1, err)
		}
	}
	return nil
}
