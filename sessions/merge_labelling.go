package sessions

import (
	"database/sql"
	"sort"
)

// mergedGuidelines is how the guidelines of every input map into the
// merged session.
type mergedGuidelines struct {
	ids []map[int64]int64 // per input: its version id -> the merged id
	sha map[int64]string  // merged id -> SHA-256
}

// newID returns the merged id of version id of input i, 0 for none.
func (g mergedGuidelines) newID(i int, id int64) int64 {
	if id == 0 {
		return 0
	}
	return g.ids[i][id]
}

// mergeGuidelines copies every input's guidelines versions into dst, one
// row per distinct text (by SHA-256) with the earliest time any input
// first saw it, numbered in that order so the newest version has the
// highest id (the current one for statistics), as in every input.
func mergeGuidelines(dst *Store, ins []*mergeInput) (mergedGuidelines, error) {
	type version struct {
		GuidelinesVersion
		input int
	}
	var all []version
	for i, in := range ins {
		vs, err := in.store.GuidelinesVersions()
		if err != nil {
			return mergedGuidelines{}, err
		}
		for _, v := range vs {
			all = append(all, version{v, i})
		}
	}
	// Earliest first; at one time, inputs and their own ids keep their
	// order.
	sort.SliceStable(all, func(a, b int) bool { return all[a].FirstSeen.Before(all[b].FirstSeen) })
	g := mergedGuidelines{ids: make([]map[int64]int64, len(ins)), sha: map[int64]string{}}
	for i := range g.ids {
		g.ids[i] = map[int64]int64{}
	}
	bySHA := map[string]int64{}
	err := dst.write("saving the merged guidelines", func(tx *sql.Tx) error {
		for _, v := range all {
			id, ok := bySHA[v.SHA256]
			if !ok {
				res, err := tx.Exec(`INSERT INTO guidelines (sha256, text, first_seen) VALUES (?, ?, ?)`, v.SHA256, v.Text, stamp(v.FirstSeen))
				if err != nil {
					return err
				}
				if id, err = res.LastInsertId(); err != nil {
					return err
				}
				bySHA[v.SHA256] = id
				g.sha[id] = v.SHA256
			}
			g.ids[v.input][v.ID] = id
		}
		return nil
	})
	return g, err
}

// mergeTags makes dst's tag set the union of the inputs', each tag added
// when any input first had it.
func mergeTags(dst *Store, ins []*mergeInput) error {
	added := map[string]string{} // name -> earliest added_at
	for _, in := range ins {
		err := in.store.read("reading the tag set", func(tx *sql.Tx) error {
			rows, err := tx.Query(`SELECT name, added_at FROM session_tags`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var name, at string
				if err := rows.Scan(&name, &at); err != nil {
					return err
				}
				if old, ok := added[name]; !ok || at < old {
					added[name] = at
				}
			}
			return rows.Err()
		})
		if err != nil {
			return err
		}
	}
	if len(added) == 0 {
		return nil
	}
	return dst.write("saving the merged tag set", func(tx *sql.Tx) error {
		for name, at := range added {
			if _, err := tx.Exec(`INSERT INTO session_tags (name, added_at) VALUES (?, ?)`, name, at); err != nil {
				return err
			}
		}
		return nil
	})
}
