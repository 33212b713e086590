package sessions

import (
	"database/sql"
	"strconv"
	"strings"

	sqlite3 "modernc.org/sqlite/lib"
)

// The statistics read a million rows of a few columns each. The driver
// costs far more per column it hands over than SQLite costs per row it
// reads (every sqlite3_column_* call takes the connection's mutex, every
// text is copied into a new string, every value passes through
// database/sql's conversions), so the large tables are read packed: one
// row whose columns are group_concat lists, a column of the table per
// list, which SQLite builds in one pass and Go splits without allocating
// (the strings it keeps, the item ids, are slices of the list).
//
// A packed list is read only when it is sure to hold exactly one element
// per row: text lists are joined with packSep and must split into as
// many elements as the query counted rows (a value holding packSep would
// give more, and the whole read falls back to the row readers). Values
// that the packed form cannot carry exactly (a fraction, a text, NULL, an
// unusual row) are written as packSlow and read by the row reader, which
// selects exactly those rows with the same condition (slowRows). A list
// too long for SQLite also leaves the table to the row readers
// (unpackable).

// packedReads turns the packed reads on; tests turn it off to compare
// them with the row readers.
var packedReads = true

// packSep separates text elements of a packed list: the ASCII record
// separator, which no id, dimension or annotator name is expected to
// hold (one that does only makes the read slower).
const packSep = '\x1e'

// packSlow marks an element of a packed list whose row the row reader
// reads instead.
const packSlow = "x"

// packedInt is the SQL of an element that is the whole number n when
// cond holds and packSlow otherwise.
func packedInt(cond, n string) string {
	return `group_concat(iif(` + cond + `, ` + n + `, '` + packSlow + `'), ',')`
}

// slowRows is the WHERE condition selecting the rows that packedInt with
// cond leaves to the row reader: cond false or NULL.
func slowRows(cond string) string {
	return `iif(` + cond + `, 0, 1)`
}

// wholeValue holds when a stored value is a number that its whole-number
// text gives back exactly (which 0 and 1, the Likert points and every
// integer scale's values are); a text or NULL value fails it.
const wholeValue = `CAST(value AS INTEGER) = value`

// unpackable tells whether err is a packed query's failure to build a list
// longer than SQLite allows (SQLITE_TOOBIG, past a billion bytes by
// default): the row readers read such a table instead.
func unpackable(err error) bool {
	return sqliteCode(err) == sqlite3.SQLITE_TOOBIG
}

// packedList walks a packed list's elements, which splitPacked has
// counted.
type packedList struct {
	rest string
	sep  byte
}

// next is the next element.
func (p *packedList) next() string {
	i := strings.IndexByte(p.rest, p.sep)
	if i < 0 {
		s := p.rest
		p.rest = ""
		return s
	}
	s := p.rest[:i]
	p.rest = p.rest[i+1:]
	return s
}

// splitPacked makes a packedList of a list column, checking that it
// holds n elements: false when it does not (a text element held sep).
// NULL, what group_concat gives for no rows, holds none.
func splitPacked(list sql.NullString, sep byte, n int64) (packedList, bool) {
	if !list.Valid || n == 0 {
		return packedList{sep: sep}, !list.Valid && n == 0
	}
	return packedList{rest: list.String, sep: sep}, int64(strings.Count(list.String, string(sep))) == n-1
}

// packedNumber reads an element of a packed list of whole numbers; ok is
// false for anything else (packSlow among others).
func packedNumber(s string) (n int64, ok bool) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		n, err := strconv.ParseInt(s, 10, 64) // 19 digits may overflow
		return n, err == nil
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(s) {
		n = -n
	}
	return n, true
}

// ignore is nil when skip(err), else err.
func ignore(err error, skip func(error) bool) error {
	if skip(err) {
		return nil
	}
	return err
}
