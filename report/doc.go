// Package report writes `gavel report`: one self-contained file that
// shows how far a session's judges can be trusted, for someone who has
// not seen the session — a team lead, a paper's reviewers, a pull
// request.
//
// The HTML report is a single page with its style sheet and its charts
// inline (SVG drawn by gonum.org/v1/plot), no script at all and a
// Content-Security-Policy that forbids one (script-src 'none') and any
// fetch (default-src 'none'), system fonts, a layout that reads on a
// phone and prints. The Markdown report holds the same figures as
// tables and no chart, for a pull request.
//
// Every figure comes from the statistics report that `gavel stats`
// computes (sessions/stats): the page formats them and draws them, it
// never computes one of its own. Each figure's element carries a
// data-fig attribute naming where it lives in `gavel stats --format
// json` (judge_table.0.cohen_kappa), so that a test can read the page
// back and compare. The curve of agreement as labels accumulate fills a
// stats.Confusion unit by unit in the order they were labelled and reads
// it with the table's own methods; its last point is the report's figure.
//
// Every piece of text from a session — item text, judge, model, dimension,
// segment, annotator and file names, notes, prompts — is made inert with
// safetext (control and bidirectional-override characters are shown, not
// obeyed) and escaped by html/template, so a hostile dataset can add no
// markup to the page and reorder none of its text.
package report
