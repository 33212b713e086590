package sessions

import (
	"database/sql"
	"os"
)

// tidyAfterReading removes the empty -wal and the -shm files a read-only
// store left beside the session at abs: SQLite makes them to read a
// session in WAL mode, and a connection that may not write (mode=ro)
// leaves them when it closes, so that `gavel stats` or `gavel export`
// left two files a review would not have. A connection that may write
// (query_only still, as every reader) is opened and closed: SQLite's last
// connection to close removes both, as after a review. Should another
// Gavel have the session open, SQLite sees its lock and leaves them. A
// -wal that holds changes (a writer at work, or one killed) is left
// alone, and so is a folder that cannot be written: the open fails and
// nothing is done. Nothing here is an error of the command.
func tidyAfterReading(abs string) {
	st, err := os.Stat(abs + "-wal")
	if err != nil || st.Size() > 0 {
		return
	}
	db, err := sql.Open("sqlite", dsn(abs, false, false))
	if err != nil {
		return
	}
	defer db.Close()
	var n int
	_ = db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&n)
}
