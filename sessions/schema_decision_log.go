package sessions

import "strings"

// schemaDecisionLog is the decision log, part of schema v9: each action
// written on the review screen or by `gavel label` (any action with a
// sitting or a labelling column), kept again as one short text that the
// statistics' labelling section reads as it is (stats_input_history_log.go).
//
// Why a second copy: that section reads every decision of every annotator
// who labels on the screen (time on screen, sitting, what was shown, the
// value), and SQLite's cost of reading it from actions is per column and
// per row: formatting eight columns of a hundred thousand actions into one
// list took four fifths of `gavel stats`' extra time on such a session,
// and two of those columns were times only ever used as their difference.
// The log stores that difference in milliseconds, written once when the
// action is, and the statistics read one column.
//
// It is derived, never written by Go code: the trigger fills it from
// every action inserted (screen, gavel label, merge, import of labelling
// columns), the step fills it from the actions already there, and an
// action changed or deleted (Gavel never does; a hand edit may) changes
// or takes its row with it. The reader trusts it only when it
// holds as many rows as actions has for the annotator and id range; an
// annotator whose history mixes logged and unlogged actions (labels
// imported without labelling columns, or made before schema v8) is read
// from actions as before.
//
// Columns: annotator and id (the action's); decision, 1 for a label,
// accept, "can't judge" or tag, 0 for a note or an undo; record, fields
// joined by the unit separator (char 31): the id, the group ("" when it is
// the id), the item, the run shown ("" unknown), the sitting, the
// milliseconds from appeared_at to at ("" without appeared_at, "x" when a
// time is not in Gavel's layout: the reader then falls back), the value as
// a whole number, the guidelines version (0 none) and the dimension; odd,
// for an action that is not a plain label (another kind, a re-test, a
// criterion, a value that is not a whole number), the element of
// oddPacked (its texts by length, so no separator can break it).
//
// The SQL uses only functions older SQLite builds have (no concat_ws or
// octet_length): scripts and the sqlite3 shell insert actions too.
var schemaDecisionLog = `
CREATE TABLE decision_log (
	annotator TEXT    NOT NULL,
	id        INTEGER NOT NULL,
	decision  INTEGER NOT NULL,
	record    TEXT    NOT NULL,
	odd       TEXT,
	PRIMARY KEY (annotator, id)
) WITHOUT ROWID;

CREATE TRIGGER decision_log_on_insert AFTER INSERT ON actions
WHEN ` + logged("NEW.") + `
BEGIN
	INSERT INTO decision_log (annotator, id, decision, record, odd)
	VALUES (NEW.annotator, NEW.id, ` + logDecision("NEW.") + `, ` + logRecord("NEW.") + `, ` + logOdd("NEW.") + `);
END;

CREATE TRIGGER decision_log_on_update AFTER UPDATE ON actions
BEGIN
	DELETE FROM decision_log WHERE annotator = OLD.annotator AND id = OLD.id;
	INSERT INTO decision_log (annotator, id, decision, record, odd)
	SELECT NEW.annotator, NEW.id, ` + logDecision("NEW.") + `, ` + logRecord("NEW.") + `, ` + logOdd("NEW.") + `
	WHERE ` + logged("NEW.") + `;
END;

CREATE TRIGGER decision_log_on_delete AFTER DELETE ON actions
BEGIN
	DELETE FROM decision_log WHERE annotator = OLD.annotator AND id = OLD.id;
END;

INSERT INTO decision_log (annotator, id, decision, record, odd)
SELECT a.annotator, a.id, ` + logDecision("a.") + `, ` + logRecord("a.") + `, ` + logOdd("a.") + `
FROM actions a WHERE ` + logged("a.") + `;
`

// stampGlob matches a time in timeLayout (2006-01-02T15:04:05.000Z).
const stampGlob = `'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z'`

// logged is the decision log's predicate on an action (its columns
// prefixed with p): written with a sitting or a labelling column.
func logged(p string) string {
	return withPrefix(p, `(@sitting IS NOT NULL OR @shown IS NOT NULL OR @appeared_at IS NOT NULL OR @retest = 1 OR @kind IN ('cant_judge', 'tag'))`)
}

func logDecision(p string) string {
	return withPrefix(p, `(@kind IN ('label', 'accept', 'cant_judge', 'tag'))`)
}

// logRecord is the record of an action (see schemaDecisionLog). The
// milliseconds: julianday keeps a millisecond exactly at today's dates
// (its error is under a tenth of one), and round makes it whole.
func logRecord(p string) string {
	return withPrefix(p, `@id || char(31) || CASE WHEN @group_id = @id THEN '' ELSE @group_id END
		|| char(31) || @item_id || char(31) || coalesce(@shown, '') || char(31) || coalesce(@sitting, '')
		|| char(31) || CASE WHEN @appeared_at IS NULL THEN ''
			WHEN @appeared_at GLOB `+stampGlob+` AND @at GLOB `+stampGlob+`
			THEN coalesce(CAST(round((julianday(@at) - julianday(@appeared_at)) * 86400000) AS INTEGER), 'x')
			ELSE 'x' END
		|| char(31) || coalesce(CAST(@value AS INTEGER), '') || char(31) || coalesce(@guidelines_id, 0)
		|| char(31) || @dimension`)
}

// logOdd is the odd element (oddElement) of the actions that are not a
// plain label whatever the annotator's usual dimension (the record
// carries the dimension).
func logOdd(p string) string {
	return withPrefix(p, `CASE WHEN @kind <> 'label' OR @retest + @criterion <> 0 OR @value <> CAST(@value AS INTEGER) THEN `) +
		oddElement(p) + ` END`
}

// oddElement is an unusual action written whole, so that it needs no
// separator (a text may hold any): its id, the kind's first letter, the
// re-test flag (0 or 1), ",", the criterion, ",", then the dimension and
// the "text" each as its length in bytes, "," and its bytes. The text is
// a "can't judge"'s reason, a tag action's tag, or a value that is not a
// whole number: a text with a "t" before it (a category's name, as the
// row reader's decoding needs to know), a number as SQLite writes it; ""
// for a whole value (read from the records). Byte lengths are read as a
// blob's: octet_length is recent.
func oddElement(p string) string {
	text := withPrefix(p, `coalesce(CASE WHEN @kind = 'cant_judge' THEN @reason WHEN @kind = 'tag' THEN @tag
		WHEN typeof(@value) = 'text' THEN 't' || @value WHEN @value <> CAST(@value AS INTEGER) THEN CAST(@value AS TEXT) ELSE '' END, '')`)
	return withPrefix(p, `@id || substr(@kind, 1, 1) || @retest || ',' || @criterion || ','
		|| length(CAST(@dimension AS BLOB)) || ',' || @dimension || length(CAST(`+text+` AS BLOB)) || ',' || `) + text
}

// withPrefix writes the columns marked @ with the prefix p (NEW. in the
// trigger, a. in the step's copy).
func withPrefix(p, sql string) string { return strings.ReplaceAll(sql, "@", p) }
