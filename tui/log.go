package tui

import "time"

// severity ranks a message of the log.
type severity int

const (
	sevInfo severity = iota
	sevWarning
	sevError
)

// logEntry is one message of the log.
type logEntry struct {
	at   time.Time
	sev  severity
	text string
	// about is the item whose own decision the message tells (a note, a
	// tag, a can't judge, an accept), "" for any other: the log hides it
	// while that item is a re-test on screen, which must not show what the
	// person decided the first time.
	about string
}

// messageLog keeps everything the screen has said that matters (how the
// dataset was mapped, a changed dataset, judge errors with their whole
// advice, run summaries, notes saved), so that nothing important is said
// only on a line the next key clears. The last message also shows on the
// hint line until the next key; the status line counts the unread ones.
type messageLog struct {
	entries []logEntry
	read    int // entries[:read] have been seen in the log dialog
	// flash is the one-line message of the last key, cleared by the next
	// key; flashSev its severity.
	flash    string
	flashSev severity
	// flashKept says the flash is also in the log, where it can be read
	// whole when the hint line cuts it.
	flashKept bool
}

// maxLogEntries bounds the log; the oldest messages go first.
const maxLogEntries = 500

func (l *messageLog) add(sev severity, text string) {
	l.entries = append(l.entries, logEntry{at: time.Now(), sev: sev, text: text})
	if over := len(l.entries) - maxLogEntries; over > 0 {
		l.entries = l.entries[over:]
		l.read = max(l.read-over, 0)
	}
	l.flash, l.flashSev, l.flashKept = text, sev, true
}

// about marks the latest message as telling the person's own decision on
// the item with id (see logEntry.about).
func (l *messageLog) about(id string) {
	if n := len(l.entries); n > 0 {
		l.entries[n-1].about = id
	}
}

// unread counts the messages not yet seen in the log.
func (l *messageLog) unread() int { return len(l.entries) - l.read }

// tell logs a message worth keeping and shows it on the hint line.
func (w *workspace) tell(text string) { w.log.add(sevInfo, text) }

// mention logs what happened in the background (a judge run that ended
// well) without taking the hint line from the keys: the status line
// counts it as unread.
func (w *workspace) mention(text string) {
	flash, sev, kept := w.log.flash, w.log.flashSev, w.log.flashKept
	w.log.add(sevInfo, text)
	w.log.flash, w.log.flashSev, w.log.flashKept = flash, sev, kept
}

// warn logs a warning and shows it.
func (w *workspace) warn(text string) { w.log.add(sevWarning, text) }

// fail logs an error and shows it.
func (w *workspace) fail(text string) { w.log.add(sevError, text) }

// hint shows a passing remark on the hint line only ("that was the last
// item"): it answers the key just pressed and is not worth keeping.
func (w *workspace) hint(text string) {
	w.log.flash, w.log.flashSev, w.log.flashKept = text, sevInfo, false
}

// refuse shows why a key did nothing, as a warning on the hint line.
func (w *workspace) refuse(text string) {
	w.log.flash, w.log.flashSev, w.log.flashKept = text, sevWarning, false
}
