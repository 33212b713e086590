package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// labellingFlags are the review's flags of SPEC "Labelling well": the
// guidelines the person reads, the session's failure tags, and the seeded
// shares of the labeller's reliability checks.
type labellingFlags struct {
	guidelines string
	tags       string
	retest     share
	blindShare share
	seed       int64
}

// defaultShareSeed seeds the blind share and the re-tests when --seed is
// not given: a fixed one, so that a share is the same at every sitting
// (an item due for a re-test in the next sitting is still due there).
const defaultShareSeed = 1

func (l *labellingFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&l.guidelines, "guidelines", "", "the annotation guidelines, a Markdown `FILE` shown on i and once when new; every label records the version it was made under (default: the config's, else the session's latest)")
	f.StringVar(&l.tags, "tags", "", "failure `TAGS` to add to the session's tag set, separated by commas, e.g. \"too strict,format\"")
	f.Var(&l.retest, "retest", "the `SHARE` of the items you label that come back once, blind, as a re-test (your own consistency), e.g. 5%")
	f.Var(&l.blindShare, "blind-share", "the `SHARE` of items shown blind even without --blind, for the anchoring check, e.g. 30%")
	f.Int64Var(&l.seed, "seed", defaultShareSeed, "the `SEED` of --retest and --blind-share: the same seed picks the same items")
	for _, name := range []string{"tags", "retest", "blind-share"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
}

// share is a --retest or --blind-share value: a percentage ("5%") or a
// fraction from 0 to 1 ("0.05").
type share float64

func (s *share) String() string {
	if *s == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(*s)*100, 'f', -1, 64) + "%"
}

func (s *share) Set(v string) error {
	x, err := parseShare(v)
	if err != nil {
		return err
	}
	*s = share(x)
	return nil
}

func (s *share) Type() string { return "share" }

// parseShare reads "5%", "0.05" or "0": a share from 0 to 1. A bare
// number above 1 is refused rather than read as a percentage: 5 could be
// either.
func parseShare(v string) (float64, error) {
	t := strings.TrimSpace(v)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || x != x {
		return 0, fmt.Errorf("%q is not a share: write a percentage such as 5%% or a fraction such as 0.05", v)
	}
	if pct {
		x /= 100
	}
	switch {
	case x < 0 || x > 1 && pct:
		return 0, fmt.Errorf("%q is not a share: it is between 0%% and 100%%", v)
	case x > 1:
		return 0, fmt.Errorf("%q is not a share: a fraction is between 0 and 1; for a percentage write %s%%", v, t)
	}
	return x, nil
}

// maxGuidelinesBytes bounds a guidelines file: guidelines are read beside
// each item, not a book (and the session keeps every version whole).
const maxGuidelinesBytes = 1 << 20

// readGuidelines reads a guidelines file, refusing with what to do one
// that is missing, not a file, over maxGuidelinesBytes or not text.
func readGuidelines(path string) (string, error) {
	// Stat before opening: opening a named pipe waits for a writer, and
	// the review would hang before its first frame.
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("the guidelines file %s does not exist: check --guidelines (or the config's guidelines)", path)
	}
	if err != nil {
		return "", fmt.Errorf("cannot read the guidelines file %s: %v", path, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("the guidelines %s are not a file: give --guidelines a Markdown file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot read the guidelines file %s: %v", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGuidelinesBytes+1))
	if err != nil {
		return "", fmt.Errorf("cannot read the guidelines file %s: %v", path, err)
	}
	if len(data) > maxGuidelinesBytes {
		return "", fmt.Errorf("the guidelines file %s is over 1 MB: guidelines are read beside each item; keep them short, or link to a longer document from them", path)
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return "", fmt.Errorf("the guidelines file %s is not text (it holds binary or non-UTF-8 bytes): give --guidelines a Markdown file", path)
	}
	return string(data), nil
}

// guidelinesOnScreen is the version of the guidelines a review or a
// gavel label records decisions under: the file given (stored as a
// version when the session does not have it yet), else the session's
// latest version, else none (nil). A file that cannot be read is told in
// problem, and the session's latest version stands in for it.
type guidelinesOnScreen struct {
	version sessions.GuidelinesVersion
	path    string // the file, "" for the session's own version
	isNew   bool   // this call stored the version
	latest  int64  // the session's latest version's id
	count   int    // how many versions the session holds
}

// pickGuidelines stores the guidelines in path (if any) and says which
// version is on screen; nil when there is none. fileErr is the file's
// problem, if it could not be used.
func pickGuidelines(s *sessions.Store, path string) (g *guidelinesOnScreen, fileErr, err error) {
	var text string
	if path != "" {
		if text, fileErr = readGuidelines(path); fileErr != nil {
			path = ""
		}
	}
	if path != "" {
		v, isNew, err := s.AddGuidelines(text)
		if err != nil {
			return nil, nil, err
		}
		g = &guidelinesOnScreen{version: v, path: path, isNew: isNew}
	}
	all, err := s.GuidelinesVersions()
	if err != nil {
		return nil, fileErr, err
	}
	if len(all) == 0 {
		return g, fileErr, nil
	}
	if g == nil {
		g = &guidelinesOnScreen{version: all[len(all)-1]}
	}
	g.latest, g.count = all[len(all)-1].ID, len(all)
	return g, fileErr, nil
}

// screenGuidelines is what the review screen is given, and the notices
// that go with it: the guidelines changed since this person's labels were
// made, or the file names an older version than the session's latest.
func screenGuidelines(s *sessions.Store, annotator, path string) (*tui.Guidelines, []string, error) {
	g, fileErr, err := pickGuidelines(s, path)
	if err != nil {
		return nil, nil, err
	}
	var notices []string
	if fileErr != nil {
		notices = append(notices, fileErr.Error()+"; the review opens without it.")
	}
	if g == nil {
		return nil, notices, nil
	}
	older, err := s.OlderGuidelinesLabels(annotator, g.version.ID)
	if err != nil {
		return nil, nil, err
	}
	shown := &tui.Guidelines{ID: g.version.ID, Path: g.path, Text: g.version.Text, First: g.isNew, Older: older}
	if g.path == "" {
		shown.Path = fmt.Sprintf("%s (guidelines version %d)", s.Path(), g.version.ID)
		if fileErr != nil {
			notices[len(notices)-1] = fileErr.Error() + fmt.Sprintf("; the review shows the session's latest guidelines (version %d) instead.", g.version.ID)
		}
	}
	notices = append(notices, guidelinesNotices(g, older)...)
	return shown, notices, nil
}

// guidelinesNotices say what changed: new guidelines over older ones,
// labels to re-review, an older version given than the session's latest.
func guidelinesNotices(g *guidelinesOnScreen, older int) []string {
	var out []string
	// Labels not made under the version on screen are older ones when it is
	// the latest; under an older file they may be newer, so "other".
	under := plural(older, "of your labels was made under an older version", "of your labels were made under an older version")
	if g.version.ID != g.latest {
		under = plural(older, "of your labels was made under another version", "of your labels were made under other versions")
	}
	relabel := under + "; the filter 're-review: older guidelines' lists them."
	switch {
	case g.isNew && g.count > 1 && older > 0:
		out = append(out, "The guidelines changed: "+relabel)
	case g.isNew && g.count > 1:
		out = append(out, "The guidelines changed; none of your labels was made under an older version.")
	case older > 0:
		out = append(out, "Guidelines: "+relabel)
	}
	if g.version.ID != g.latest {
		out = append(out, fmt.Sprintf("%s is guidelines version %d, older than the session's latest (%d): your labels record version %d, and gavel stats --guidelines current leaves them out.",
			g.path, g.version.ID, g.latest, g.version.ID))
	}
	return out
}

// labellingOptions fills the screen's options of SPEC "Labelling well"
// for an open session: the guidelines on screen (with their notices), the
// tag set (--tags added first) and the seeded shares.
func (l labellingFlags) options(s *sessions.Store, annotator string, opts *tui.Options) error {
	tags, err := sessions.ParseTagList(l.tags)
	if err != nil {
		return usagef("--tags: %v", err)
	}
	if err := s.AddTags(tags...); err != nil {
		return err
	}
	if opts.Tags, err = s.TagSet(); err != nil {
		return err
	}
	g, notices, err := screenGuidelines(s, annotator, l.guidelines)
	if err != nil {
		return err
	}
	opts.Guidelines = g
	opts.Notices = append(opts.Notices, notices...)
	l.shares(opts)
	return nil
}

// shares sets the seeded shares of the reliability checks.
func (l labellingFlags) shares(opts *tui.Options) {
	opts.Retest, opts.BlindShare, opts.Seed = float64(l.retest), float64(l.blindShare), l.seed
}

// pendingOptions fills the same options for a new dataset whose session
// is still being written: the guidelines file is read now and stored,
// with the tags, once the session is there (pendingLabelling.ready).
func (l labellingFlags) pendingOptions(opts *tui.Options) (*pendingLabelling, error) {
	tags, err := sessions.ParseTagList(l.tags)
	if err != nil {
		return nil, usagef("--tags: %v", err)
	}
	p := &pendingLabelling{tags: tags}
	opts.Tags = tags
	if l.guidelines != "" {
		text, err := readGuidelines(l.guidelines)
		if err != nil {
			opts.Notices = append(opts.Notices, err.Error()+"; the review opens without it.")
		} else {
			p.text, p.hasText = text, true
			opts.Guidelines = &tui.Guidelines{Path: l.guidelines, Text: text, First: true}
		}
	}
	l.shares(opts)
	return p, nil
}

// pendingLabelling is what a new session is given once it is written.
type pendingLabelling struct {
	tags    []string
	text    string
	hasText bool
}

// ready stores the tags and the guidelines in the new session, and
// returns the guidelines version the screen's decisions were made under
// (0: none).
func (p *pendingLabelling) ready(s *sessions.Store) (int64, error) {
	if p == nil {
		return 0, nil
	}
	if err := s.AddTags(p.tags...); err != nil {
		return 0, err
	}
	if !p.hasText {
		return 0, nil
	}
	v, _, err := s.AddGuidelines(p.text)
	return v.ID, err
}

// stampingStore is a new session's store as the screen records into it:
// the screen opened before the session had its guidelines version, so
// its decisions carry version 0, and each is stamped with the version
// here. Every method of the store stays (the screen asks it for a run's
// verdicts, for one); Notices brings the notices found once the dataset
// was read whole (tui.LateNotices).
type stampingStore struct {
	*sessions.Store
	guidelines int64
	notices    []string
}

func (s stampingStore) Record(acts []sessions.Action) ([]sessions.Action, error) {
	if s.guidelines != 0 {
		stamped := make([]sessions.Action, len(acts))
		for i, a := range acts {
			if a.Guidelines == 0 {
				a.Guidelines = s.guidelines
			}
			stamped[i] = a
		}
		acts = stamped
	}
	return s.Store.Record(acts)
}

func (s stampingStore) Notices() []string { return s.notices }
