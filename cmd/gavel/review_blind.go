package main

import (
	"errors"
	"fmt"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// A blind queue (gavel assign --blind; SPEC "Teams": "in a blind queue
// people do not see each other's labels until adjudication"): a review of
// the session, on a file or in PostgreSQL, team member or not, shows
// nobody else's labels or can't judges (tui.Options.BlindQueue; the
// screen sets aside what it is given, and the caller gives it nothing),
// and the judge comparison counts this person's labels only; the
// adjudicator (--adjudicate) sees them all.

// blindQueueOptions sets the screen's options from the session's queue
// settings as read (st, err): a blind queue hides the others' labels
// unless --adjudicate. A queue that could not be read is taken as blind
// (a label seen cannot be unseen), and said so; no queue, nothing.
func blindQueueOptions(st sessions.QueueSettings, err error, o reviewFlags, opts *tui.Options) {
	switch {
	case errors.Is(err, sessions.ErrNoQueue):
		return
	case err != nil && !o.adjudicate:
		opts.Notices = append(opts.Notices, fmt.Sprintf("The session's queue could not be read (%v): the others' labels are kept hidden in case it is blind (gavel review --adjudicate shows them).", err))
	case err != nil:
		return
	case !st.Blind:
		return
	case o.adjudicate:
		opts.Notices = append(opts.Notices, "Blind queue: as the adjudicator you see everyone's labels; the team sees only their own until adjudication.")
	default:
		opts.Notices = append(opts.Notices, "Blind queue: the others' labels stay hidden until adjudication; the statistics (s) show the team's progress and agreement as figures.")
	}
	opts.BlindQueue = true
	if !o.adjudicate {
		opts.Others, opts.OthersCantJudge = nil, nil
	}
}

// hidesOthers reports whether the screen opened with opts keeps the
// others' labels hidden (a blind queue, outside adjudication).
func hidesOthers(opts *tui.Options) bool { return opts.BlindQueue && !opts.Adjudicate }

// ownLabelsOnly keeps only annotator's labels in a statistics input (the
// judge comparison of a review in a blind queue).
func ownLabelsOnly(units []stats.Unit, annotator string) {
	for i := range units {
		ls := units[i].Labels[:0:0]
		for _, l := range units[i].Labels {
			if l.Annotator == annotator {
				ls = append(ls, l)
			}
		}
		units[i].Labels = ls
	}
}
