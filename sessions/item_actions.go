package sessions

// ItemActions returns annotator's history on one item, undo rows
// included, oldest first: what ReplayLabels needs to tell the annotator's
// current decisions there (gavel label records nothing that only repeats
// one), without reading the rest of a history that may hold a million
// imported labels.
func (s *Store) ItemActions(annotator, itemID string) ([]Action, error) {
	return s.readActions(`FROM actions INDEXED BY actions_by_item WHERE item_id = ? AND annotator = ? ORDER BY id`, itemID, annotator)
}
