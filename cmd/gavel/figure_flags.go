package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// figureFlags are the flags that decide how `gavel stats` and `gavel
// report` compute their figures, so that the report of a session shows
// the figures gavel stats prints with the same flags.
type figureFlags struct {
	seed        uint64
	resamples   int
	swapTies    bool
	parseErrors string
	// includeTrunc counts truncated verdicts in agreement.
	includeTrunc bool
	// costFalsePass, costFalseFail and bandAgreement choose a graded
	// judge's best cut and its "ask a human" band.
	costFalsePass, costFalseFail, bandAgreement float64
	// guidelines keeps the labels made under one guidelines version:
	// all, current or a version's number.
	guidelines string
	// targetWidth is the half-width a labelling plan's stop rule aims
	// for (stats.PlanInput.TargetWidth).
	targetWidth float64
	// plan is the labelling plan whose weighted estimates are reported:
	// its id, none, or "" for the default (sessions.PlanNewest).
	plan string
}

// The words --guidelines takes besides a version's number.
const (
	guidelinesAll     = "all"
	guidelinesCurrent = "current"
)

// The values of --parse-errors.
const (
	parseErrorsExclude = "exclude"
	parseErrorsFailed  = "fail"
)

func (o *figureFlags) add(f *pflag.FlagSet) {
	f.Uint64Var(&o.seed, "seed", statsSeed, "the `SEED` of the bootstrap intervals (the statistics screen uses the default)")
	f.IntVar(&o.resamples, "resamples", stats.DefaultResamples, "`N` bootstrap resamples per interval; 0 turns the bootstrap off")
	f.StringVar(&o.parseErrors, "parse-errors", parseErrorsExclude, "`HOW` to count a binary judge's unreadable answers: exclude (left out of agreement and pass rates, only counted) or fail (counted as NO, the judge's score as deployed)")
	f.BoolVar(&o.includeTrunc, "include-truncated", false, "count the values of truncated verdicts (answers to a prompt the server cut to its context) in agreement; by default they are only counted")
	f.Float64Var(&o.costFalsePass, "cost-false-pass", 1, "the `COST` of a false pass (the judge passes what a human fails) when choosing a graded judge's best cut")
	f.Float64Var(&o.costFalseFail, "cost-false-fail", 1, "the `COST` of a false fail (the judge fails what a human passes) when choosing a graded judge's best cut")
	f.Float64Var(&o.bandAgreement, "band-agreement", stats.DefaultBandAgreement, "the `SHARE` (0-1) of agreement with the humans a graded judge's \"ask a human\" band must leave on the items it keeps")
	f.StringVar(&o.guidelines, "guidelines", guidelinesAll, "count only the labels made under `VERSION` of the guidelines: all (every label), current (the newest version) or a version's number (the statistics list them)")
	addTargetWidth(f, &o.targetWidth)
	f.StringVar(&o.plan, "plan", "", "the labelling `PLAN` whose weighted estimates to report: its id (gavel plan lists them) or none (default: the newest plan with labels made on it, else the newest)")
	f.BoolVar(&o.swapTies, "swap-ties", false, "count a pair the judge answered differently in its two orders (--swap) as a tie when comparing it with the humans: a winner forced there is noise")
}

// options checks the flags and returns the statistics' options; a bad
// value is a usage error that says which values are allowed.
func (o figureFlags) options() (stats.Options, error) {
	var parseErrorsFail bool
	switch strings.ToLower(strings.TrimSpace(o.parseErrors)) {
	case parseErrorsExclude:
	case parseErrorsFailed:
		parseErrorsFail = true
	default:
		return stats.Options{}, usagef("unknown --parse-errors %q: use %s or %s", o.parseErrors, parseErrorsExclude, parseErrorsFailed)
	}
	if o.resamples < 0 || o.resamples > maxResamples {
		return stats.Options{}, usagef("--resamples %d is out of range: use 0 (no bootstrap) to %d", o.resamples, maxResamples)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"--cost-false-pass", o.costFalsePass}, {"--cost-false-fail", o.costFalseFail}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			return stats.Options{}, usagef("%s %v is out of range: use a number of 0 or more", c.name, c.v)
		}
	}
	if o.costFalsePass == 0 && o.costFalseFail == 0 {
		return stats.Options{}, usagef("--cost-false-pass and --cost-false-fail are both 0: every cut would cost nothing")
	}
	if err := checkTargetWidth(o.targetWidth); err != nil {
		return stats.Options{}, err
	}
	if !(o.bandAgreement > 0 && o.bandAgreement <= 1) {
		return stats.Options{}, usagef("--band-agreement %v is out of range: use a share above 0 and at most 1 (0.95 is 95%%)", o.bandAgreement)
	}
	opts := stats.Options{Seed: o.seed, Resamples: o.resamples, SwapDisagreeAsTie: o.swapTies,
		ParseErrorsFail: parseErrorsFail, IncludeTruncated: o.includeTrunc,
		Costs: &stats.Costs{FalsePass: o.costFalsePass, FalseFail: o.costFalseFail, BandAgreement: o.bandAgreement}}
	if o.resamples == 0 {
		opts.Resamples = -1 // stats.Options reads 0 as the default
	}
	return opts, nil
}

// readOptions checks --guidelines and says which labels the statistics
// read: every label, those made under the current guidelines, or those
// made under one version. Whether the session has that version is the
// session's to say (sessions.ErrGuidelinesVersion).
func (o figureFlags) readOptions() (sessions.StatsOptions, error) {
	ro, err := o.guidelinesOption()
	if err != nil {
		return ro, err
	}
	ro.PlanID, err = planOption(o.plan)
	return ro, err
}

// guidelinesOption reads --guidelines.
func (o figureFlags) guidelinesOption() (sessions.StatsOptions, error) {
	g := strings.ToLower(strings.TrimSpace(o.guidelines))
	switch g {
	case "", guidelinesAll:
		return sessions.StatsOptions{Guidelines: sessions.GuidelinesAll}, nil
	case guidelinesCurrent:
		return sessions.StatsOptions{Guidelines: sessions.GuidelinesCurrent}, nil
	}
	n, err := strconv.ParseInt(g, 10, 64)
	if err != nil || n < 1 {
		return sessions.StatsOptions{}, usagef("unknown --guidelines %q: use all, current or a version's number (1, 2…: gavel stats lists them under Labelling)", o.guidelines)
	}
	return sessions.StatsOptions{Guidelines: n}, nil
}

// planOption reads --plan: "" the default plan (sessions.PlanNewest),
// none, or a plan's id. Whether the session has that plan is the
// session's to say (sessions.ErrPlan).
func planOption(p string) (int64, error) {
	switch p = strings.ToLower(strings.TrimSpace(p)); p {
	case "":
		return sessions.PlanNewest, nil
	case "none":
		return sessions.PlanNone, nil
	}
	n, err := strconv.ParseInt(p, 10, 64)
	if err != nil || n < 1 {
		return 0, usagef("unknown --plan %q: use a plan's id (1, 2…: gavel plan SESSION lists them) or none", p)
	}
	return n, nil
}

// addTargetWidth defines --target-width (gavel stats, report and review):
// the half-width a labelling plan's stop rule aims for.
func addTargetWidth(f *pflag.FlagSet, w *float64) {
	f.Float64Var(w, "target-width", stats.DefaultTargetWidth, "the half-`WIDTH` of the corrected score's 95% interval a labelling plan's stop rule aims for (gavel plan), in the score's units: 0.05 is ±5 points on a pass rate, ±0.05 on a mean score")
}

// checkTargetWidth refuses a --target-width that is no half-width of an
// interval on a rate: 0 would never be reached, 1 always.
func checkTargetWidth(w float64) error {
	if !(w > 0 && w < 1) {
		return usagef("--target-width %v is out of range: give the half-width as a number above 0 and below 1 (0.05 is ±5 points on a pass rate)", w)
	}
	return nil
}

// planInput gives the plan the statistics estimate from (if any) the
// stop rule's width.
func (o figureFlags) planInput(in *stats.Input) {
	if in.Plan != nil {
		in.Plan.TargetWidth = o.targetWidth
	}
}
