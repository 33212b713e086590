package sessions

import (
	"fmt"
	"testing"
)

// TestUpgradeFromV4 opens a v4 session with segments (flat strings, an
// empty object, a number, none) and checks that the v5 step indexes them
// and that the statistics read each item's segments as the item_segments
// view gives them, in dataset order whatever the ids' order.
func TestUpgradeFromV4(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:4], 4
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	for _, q := range []string{
		`INSERT INTO dataset (id, path, sha256, format, items, created_at) VALUES (1, 'd.jsonl', 'x', 'jsonl', 5, '2025-01-01T00:00:00.000Z')`,
		`INSERT INTO items (idx, item_id, question, gold, prediction, segments) VALUES
			(0, 'z', 'a?', 'b', 'c', '{"category":"math","task":"a \"quoted\" one"}'),
			(1, 'b', 'd?', 'e', 'f', '{"category":""}'),
			(2, 'y', 'g?', 'h', 'i', NULL),
			(3, 'a', 'j?', 'k', 'l', '{}'),
			(4, 'c', 'm?', 'n', 'o', '{"category":"math","task":"a \"quoted\" one","level":3}')`,
	} {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	db := rawDB(t, path)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'items_by_segments'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("items_by_segments after the upgrade: %d, %v", n, err)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range in.Units {
		got = append(got, u.ItemID+" "+fmt.Sprint(u.Segments))
	}
	want := []string{
		`z map[category:math task:a "quoted" one]`,
		`b map[category:]`,
		`y map[]`,
		`a map[]`,
		`c map[category:math level:3 task:a "quoted" one]`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("units after the upgrade:\n%q\nwant\n%q", got, want)
	}
	if in.Units[2].Segments != nil || in.Units[3].Segments != nil {
		t.Errorf("items without segments have %v and %v, want nil", in.Units[2].Segments, in.Units[3].Segments)
	}
}
