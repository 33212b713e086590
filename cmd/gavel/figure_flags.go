package main

import (
	"strings"

	"github.com/spf13/pflag"

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
}

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
	opts := stats.Options{Seed: o.seed, Resamples: o.resamples, SwapDisagreeAsTie: o.swapTies,
		ParseErrorsFail: parseErrorsFail, IncludeTruncated: o.includeTrunc}
	if o.resamples == 0 {
		opts.Resamples = -1 // stats.Options reads 0 as the default
	}
	return opts, nil
}
