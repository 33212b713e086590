package sessions

import (
	"database/sql"
	"slices"
)

// bulkIndexes are the indexes a build's then drops while it adds its rows
// and makes again after: the large ones on actions and verdicts, which
// take a row per label or verdict and which nothing then reads needs.
// Kept up row by row, SQLite leaves each of their pages an eighth empty
// (a page split keeps room for inserts between its keys, which a build
// never makes); CREATE INDEX sorts the rows once and fills every page. For
// a million imported labels and verdicts that was 31 MB less of session
// (974 MB to 943 MB) in the same time. actions_undone, actions_labelling
// and (since v12) actions_by_group stay: they are partial and nearly
// empty, and live_actions and the labelling reads lean on them. Since v13
// actions_by_item stays too: the labels written find the earlier labels
// of their key by it (keepCurrentLabels).
var bulkIndexes = []string{"verdicts_by_item", "actions_by_annotator"}

// suspendBulkIndexes drops the bulkIndexes of the build's file and returns
// what makes them again, each from the text sqlite_schema kept, so that
// the finished session's schema reads as every other's.
func suspendBulkIndexes(db *sql.DB) (restore func() error, err error) {
	rows, err := db.Query(`SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	var names, texts []string
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			rows.Close()
			return nil, err
		}
		if slices.Contains(bulkIndexes, name) {
			names, texts = append(names, name), append(texts, text)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := db.Exec(`DROP INDEX "` + name + `"`); err != nil {
			return nil, err
		}
	}
	return func() error {
		for _, text := range texts {
			if _, err := db.Exec(text); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
