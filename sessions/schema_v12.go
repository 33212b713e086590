package sessions

// schemaV12 drops what a large session paid for and no read used:
//   - verdicts_by_status (run_id, status) served no query Gavel makes:
//     every read of verdicts goes by run and item (verdicts_by_item) or by
//     id. At a million imported verdicts it was 12 MB of the file and a
//     sort of a million keys at the end of each import.
//   - actions_by_group (group_id) held every action, though nearly every
//     group is one action whose group_id is its own id, found by its key.
//     It now holds only the actions of larger groups (group_id <> id):
//     the undo of a group reads its first action by id and the others
//     through this index (see groupMembers). A million imported labels,
//     each its own group, add nothing to it (12 MB before).
//
// The upgrade drops one index and makes the other from the actions once.
const schemaV12 = `
DROP INDEX verdicts_by_status;
DROP INDEX actions_by_group;
CREATE INDEX actions_by_group ON actions (group_id) WHERE group_id <> id;
`

// groupMembers is the condition selecting the actions of group ?1 so that
// SQLite reads them through the group's first action (by id) and the
// partial index actions_by_group (the others), never through an index on
// the annotator, which for an import would be a million actions. Both
// halves also test group_id, so a group whose first action is not ?1 is
// still read whole.
const groupMembers = `group_id = ?1 AND (id = ?1 OR (group_id = ?1 AND group_id <> id))`

// groupActions reads the live actions of group ?1 by annotator ?2, and
// groupActionsOnItem those on item ?3 (the undo of a decision, of the
// last one on an item). The unary + keeps SQLite off the indexes on the
// annotator and the item, which it cannot tell are worse without
// statistics.
const (
	groupActions       = `SELECT ` + actionColumns + ` FROM live_actions WHERE ` + groupMembers + ` AND +annotator = ?2 ORDER BY id`
	groupActionsOnItem = `SELECT ` + actionColumns + ` FROM live_actions WHERE ` + groupMembers + ` AND +annotator = ?2 AND +item_id = ?3 ORDER BY id`
)
