// Package render writes a statistics report (sessions/stats) for people:
// as lines of text, as Markdown and as an HTML fragment.
//
// `gavel stats` and the review's statistics screen share these renderers,
// so the screen and the command print the same figures the same way. The
// package knows nothing of terminals or Lip Gloss: the text renderer tags
// each piece of a line with a Role (muted, header, a confusion-matrix cell
// and its shade…), `gavel stats --format text` prints the plain text and
// the screen maps the roles to its own styles.
//
// Every string that comes from a session (judge, dimension, segment and
// annotator names, notes) is made inert before it is written: control and
// bidirectional-override characters are shown, not obeyed, Markdown
// punctuation is escaped in Markdown and HTML is escaped in HTML.
package render
