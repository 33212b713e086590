package tui

// A blind queue (gavel assign --blind; SPEC "Teams": "in a blind queue
// people do not see each other's labels until adjudication") keeps the
// others' work on items off this person's screen: the screen is given
// their labels and can't judges (Options.Others, TeamUpdate.Others) and
// sets them aside at once, so that nothing derived from them exists to
// show — not beside the verdict, not in the filters that compare people
// ("annotators disagree", "judge ≠ a human", "to adjudicate"), not in
// the list or the message log. The statistics keep their aggregate
// figures (agreement between people, the team's progress): numbers, not
// anybody's label on an item; the items behind a figure are found from
// this person's own labels. The report (w), which lists people's labels
// item by item, is not written from here. The header says "blind queue".
// The adjudicator (Options.Adjudicate) sees everything: adjudication is
// what the blindness lasts until.

// blindQueueNotice is the header's word for a blind queue.
const blindQueueNotice = "blind queue"

// hidesOthers reports whether this screen keeps the others' labels off
// (a blind queue, outside adjudication).
func hidesOthers(o Options) bool { return o.BlindQueue && !o.Adjudicate }

// refuseBlindReport refuses the report in a blind queue, and reports
// whether it did.
func (w *workspace) refuseBlindReport() bool {
	if !w.blindQueue {
		return false
	}
	w.refuse("This is a blind queue: the report lists everyone's labels item by item, so it is not written from here until adjudication (gavel review --adjudicate).")
	return true
}

// blindQueueCell says, on opening the items behind a figure in a blind
// queue, that they are found from this person's labels alone.
func (w *workspace) blindQueueCell() {
	if w.blindQueue {
		w.tell("Blind queue: the items are those where your own labels fall in the figure's cell; the figure counts the team's labels, which stay hidden until adjudication.")
	}
}
