package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxTagRunes is the longest failure tag name, in runes: a tag is a short
// name shown in a dialog beside a number key and in list columns.
const MaxTagRunes = 40

// CheckTagName is the one check of a failure tag's name, wherever it comes
// from (--tags, the config, the screen, gavel label, a merged session): 1
// to MaxTagRunes runes of valid UTF-8, no white space at either end (pass
// strings.TrimSpace(name)), no control, bidirectional or other format
// characters (Unicode Cf: the name reaches terminals and reports, and an
// invisible zero-width space would make "zw\u200bsp" look like "zwsp"; a
// joiner is kept where it shows, see invisibleFormat), and no comma
// (--tags "a,b" splits on commas, so a comma could never be given there).
func CheckTagName(name string) error {
	switch {
	case name == "":
		return errors.New("a tag name cannot be empty")
	case !utf8.ValidString(name):
		return fmt.Errorf("tag name %q is not valid UTF-8", name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("tag name %q starts or ends with white space", name)
	case utf8.RuneCountInString(name) > MaxTagRunes:
		return fmt.Errorf("tag name %q is longer than %d characters", name, MaxTagRunes)
	case strings.ContainsRune(name, ','):
		return fmt.Errorf("tag name %q holds a comma (commas separate tags in --tags)", name)
	}
	runes := []rune(name)
	for i, r := range runes {
		if unicode.IsControl(r) || isBidiControl(r) {
			return fmt.Errorf("tag name %q holds a control character (%U)", name, r)
		}
		if invisibleFormat(runes, i) {
			return fmt.Errorf("tag name %q holds an invisible format character (%U)", name, r)
		}
	}
	return nil
}

// invisibleFormat reports whether runes[i] is a format character (Unicode
// Cf: zero-width space, word joiner, soft hyphen, byte-order mark, …) that
// would make the name look like another. A zero-width joiner inside an
// emoji sequence ("👩\u200d💻") and a joiner or non-joiner between two
// letters of a script whose letters join (Arabic, Persian, the Indic
// scripts) change what is drawn, so they are kept.
func invisibleFormat(runes []rune, i int) bool {
	r := runes[i]
	if !unicode.Is(unicode.Cf, r) {
		return false
	}
	if r != '\u200c' && r != '\u200d' || i == 0 || i == len(runes)-1 {
		return true
	}
	prev, next := runes[i-1], runes[i+1]
	if r == '\u200d' && (unicode.In(prev, unicode.So, unicode.Sk) || prev == '\ufe0f') && unicode.Is(unicode.So, next) {
		return false
	}
	return !(joiningScript(prev) && joiningScript(next))
}

// joiningScript reports the letters and marks of the scripts in which a
// zero-width joiner or non-joiner changes the shapes drawn.
func joiningScript(r rune) bool {
	if !unicode.In(r, unicode.L, unicode.M) {
		return false
	}
	return unicode.In(r, unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian,
		unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya,
		unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala)
}

// isBidiControl reports the characters that reorder the text around them
// (the "Trojan Source" characters): a tag name holding one could display
// as another.
func isBidiControl(r rune) bool {
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e':
		return true
	case r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// ParseTagList reads a comma-separated list of tag names (--tags, the
// config): each name trimmed, empty ones (",,", a trailing comma) skipped,
// repeats kept once in first-seen order, and each checked by CheckTagName.
func ParseTagList(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(list, ",") {
		name := strings.TrimSpace(part)
		if name == "" || seen[name] {
			continue
		}
		if err := CheckTagName(name); err != nil {
			return nil, err
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, nil
}

// TagSet returns the session's failure tags in the order they were added
// (the number keys of the tag dialog follow it), then by name.
func (s *Store) TagSet() ([]string, error) {
	var out []string
	err := s.read("reading the tag set", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT name FROM session_tags ORDER BY added_at, name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				return err
			}
			out = append(out, name)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AddTags adds names (each trimmed, then checked by CheckTagName; all or
// none) to the session's tag set, in the order given; names it has
// already are left where they are.
func (s *Store) AddTags(names ...string) error {
	clean := make([]string, 0, len(names))
	for _, n := range names {
		n = strings.TrimSpace(n)
		if err := CheckTagName(n); err != nil {
			return fmt.Errorf("session %s: %w", s.path, err)
		}
		clean = append(clean, n)
	}
	if len(clean) == 0 {
		return nil
	}
	return s.write("adding tags", func(tx *sql.Tx) error {
		for _, n := range clean {
			if err := addSessionTag(tx, n, now()); err != nil {
				return err
			}
		}
		return nil
	})
}

// addSessionTag adds name to the tag set unless it is there, stamped at
// at or, when the set holds a tag as new or newer, a millisecond after
// the newest: the set's order is the order tags were added, even within
// one millisecond.
func addSessionTag(tx *sql.Tx, name string, at time.Time) error {
	var known int
	if err := tx.QueryRow(`SELECT count(*) FROM session_tags WHERE name = ?`, name).Scan(&known); err != nil || known > 0 {
		return err
	}
	var last sql.NullString
	if err := tx.QueryRow(`SELECT max(added_at) FROM session_tags`).Scan(&last); err != nil {
		return err
	}
	if last.Valid {
		if t, err := parseStamp(last.String); err == nil && !t.Before(at) {
			at = t.Add(time.Millisecond)
		}
	}
	_, err := tx.Exec(`INSERT INTO session_tags (name, added_at) VALUES (?, ?)`, name, stamp(at))
	return err
}

// ItemTag is a failure tag an annotator has on an item now.
type ItemTag struct {
	ItemID, Annotator, Tag string
	At                     time.Time
}

// ItemTags returns the current tags of annotator ("" for everyone), as
// the current_tags view derives them, in item order, then tag, then
// annotator.
func (s *Store) ItemTags(annotator string) ([]ItemTag, error) {
	var out []ItemTag
	err := s.read("reading the items' tags", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT t.item_id, t.annotator, t.tag, t.at FROM current_tags t JOIN items i ON i.item_id = t.item_id
			WHERE ? = '' OR t.annotator = ? ORDER BY i.idx, t.tag, t.annotator`, annotator, annotator)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t ItemTag
			var at string
			if err := rows.Scan(&t.ItemID, &t.Annotator, &t.Tag, &at); err != nil {
				return err
			}
			if t.At, err = parseStamp(at); err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
