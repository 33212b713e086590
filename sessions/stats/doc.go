// Package stats computes how far an LLM judge can be trusted: agreement
// with humans, with other judges and with itself, and agreement among the
// humans. Everything here is a pure function of its arguments — no I/O, no
// clock, no global state — so the review screen, `gavel stats` and tests
// all get the same numbers from the same input.
//
// # Use
//
// Build an Input from a session (the judges, and every unit with its
// verdicts and labels) and call Compute. The Report it returns holds every
// figure, and marshals to the stable JSON that `gavel stats --format json`
// prints. The statistics are also exported one by one: the two-rater ones
// as methods of Confusion (CohenKappa, WeightedKappa, GwetAC1,
// KrippendorffAlpha, Spearman, KendallTauB, ScoreBias, CorrectedPassRate…),
// the others as functions (KrippendorffAlpha, FleissKappa, GwetAC1Multi,
// Spearman, KendallTauB, Wilson, RoganGladen), and AgreementOf fills a
// whole Agreement from a table. Compare puts two judges side by side on
// the same labelled units (`gavel compare`), with McNemarExact and
// NewcombePaired for their paired difference.
//
// # Conventions
//
//   - Who is compared with whom: every comparison is over units where both
//     sides gave a usable value. The judge's value is its current verdict
//     (its latest in the original order) with status ok; parse and API
//     errors are counted in Judging and never enter agreement. A pairwise
//     verdict made with the responses swapped (Verdict.Swapped) is never
//     the current verdict nor a re-judge: the last one is the current
//     verdict's second order, read by the swap audit alone (and, with
//     Options.SwapDisagreeAsTie, by the comparison with humans). The humans' value is the unit's
//     adjudicated label (provenance "adjudication", the latest) when it
//     has one, else the single label, or the annotators' majority; a tie
//     on the most common value that no adjudication settles leaves the
//     unit out (counted in human_ties) rather than breaking it one way.
//     An adjudication is no annotator's label: it enters neither the
//     figures between annotators nor the unit's selection class.
//   - Tables: Confusion rows are the reference (the humans, or the second
//     judge of a pair), columns the judge, over every category of the scale
//     in ascending order, so chance terms (kappa, AC1, alpha) count the
//     scale's own categories. On nominal and pairwise scales a value is
//     the category's position (pairwise: A 0, tie 0.5, B 1) and the table
//     names the categories.
//   - Scales: figures follow the scale's kind (judge.Scale.Kind). Ordinal
//     figures only on ordinal scales; the binary classifier figures only on
//     binary ones; per-class and macro precision, recall and F1 on nominal
//     and pairwise ones; means and score bias wherever a mean means
//     something (binary, ordinal, and pairwise as the share of B with ties
//     half), undefined on nominal scales.
//   - Units: proportions (agreement, rates, coverage, pass rates) are in
//     [0, 1], never percent; kappas, alpha, AC1 and correlations are in
//     [−1, 1]; MAE, mean signed difference and score bias are in scale
//     points (for binary, a difference of pass rates). Differences are
//     judge − reference: positive means the judge is more lenient.
//   - Intervals are 95 %: Wilson score intervals for proportions, a
//     normal (CLT) interval for prediction-powered inference, and seeded
//     percentile bootstraps (Options.Resamples, default 1,000) for every
//     coefficient, the score bias and the corrected pass rate. The
//     bootstrap resamples items: for two raters, a multinomial draw of the
//     contingency table, which is the same distribution; among annotators,
//     a multinomial draw of the units' label patterns; for the corrected
//     pass rate, one draw of the judged items with each item's verdict and
//     label together. Each figure's bootstrap is seeded from Options.Seed
//     and the figure's place in the report, so the same input and seed
//     always give the same report, and adding a judge or a segment does
//     not move any other figure. Below MinReliableItems (30) items the
//     figures carry a SmallSample warning: their intervals are unreliable.
//   - Which labels are a fair sample: only labels reached at random (a
//     seeded random order, a sample, a plan). Rogan–Gladen and PPI use
//     those alone, unless every judged unit is labelled (a census), when
//     every label counts. Labels reached in dataset order, through a
//     filter or imported count in the agreement figures, with a warning
//     and the random part's figures apart (Selection).
//   - Parse errors stay out of agreement unless Options.ParseErrorsFail,
//     which counts a binary judge's parse errors as NO.
//   - Undefined values: a statistic that does not exist for the data (no
//     items; kappa when both raters used one same category, where chance
//     agreement is 1 and kappa is 0/0; a correlation when one side is
//     constant; Rogan–Gladen when sensitivity + specificity ≤ 1) is NaN in
//     Go, with a Reason, and null in JSON with a "reason" string. NaN is
//     never written. Show values with FormatNumber, FormatPercent or the
//     String/Format methods, which render undefined as Undefined ("—").
//   - Graded judges (an ordinal score; a binary verdict with a logprob
//     confidence or several samples) get operating points: the judge read
//     at every pass threshold of its grade against binary human labels,
//     the cut of least cost (Options.Costs), and the narrowest "ask a
//     human" band that leaves the judge Costs.BandAgreement on the rest;
//     and a reliability curve (ten bins of confidence against observed
//     agreement, the expected calibration error with a seeded bootstrap).
//     A confidence withheld as meaningless is unknown: such items are
//     counted and left out.
//   - Perfect agreement gives 1 for every coefficient whose chance
//     agreement is below 1; with one class only, AC1 and percent agreement
//     are 1 while kappa and alpha are undefined (the "kappa paradox" that
//     AC1 exists for).
//
// # JSON shape (schema_version 2)
//
// testdata/report.golden.json is a complete example. Key order is as
// listed; lists are never null; figures that can be undefined are objects
// {"value": number|null, "reason"?: string} (Estimate) or
// {"value", "low", "high": number|null, "reason"?: string} (Interval).
//
//	schema_version, seed, resamples, units, parse_errors
//	judge_table[]: rank, judge, dimension, scale, n, percent_agreement,
//	    cohen_kappa, gwet_ac1, score_bias, false_pass_rate,
//	    false_fail_rate, small_sample?      (by kappa, then n)
//	judges[]: judge, per_criterion, dimensions[]:
//	    dimension, scale (judge.Scale's canonical spelling: "binary",
//	        "ternary", "likert", "ordinal:1-10", "nominal:A,B,C", "pairwise"…)
//	    overall: Figures
//	    segments[]: field, value, figures: Figures   (by field, then value)
//	    rejudges, samples: {units, flipped, rate: Interval}
//	    swap: null | {swapped, pairs, consistent, inconsistent,
//	        positional_agreement, kappa_between_orders,
//	        orders: {categories[], names[], counts[original][swapped]},
//	        position: {first, second, other, first_share},
//	        vs_humans: {n, right_original, right_swapped, right_both,
//	            original, swapped, both},
//	        disagree_as_tie}                         (pairwise only)
//	judge_pairs[]: judge, reference, dimension, scale, agreement: Agreement
//	humans[]: dimension, scale, annotators[], labelled, pairable,
//	    majority_ties, adjudicated, awaiting_adjudication, small_sample?,
//	    percent_agreement, alpha_nominal,
//	    alpha_ordinal, alpha_interval, alpha_ratio, fleiss_kappa, gwet_ac1,
//	    gwet_ac2, pairs[]: {a, b, n, percent_agreement, cohen_kappa}
//	operating_points[]: judge, dimension, scale, grade ("score", "logprob",
//	    "samples"), against, graded, unknown, labelled, small_sample?,
//	    costs {false_pass, false_fail, band_agreement},
//	    cuts[]: {cut, pass_rate, agreement, false_pass_rate,
//	        false_fail_rate, cohen_kappa, false_passes, false_fails, cost},
//	    best: null | cut, band: null | {low, high, sent_items, sent, rest,
//	        agreement}, band_reason?
//	reliability[]: judge, dimension, scale, confidence, n, unknown,
//	    small_sample?, bins[]: {low, high, n, confidence, agreement}, ece
//	notes[]: sentences about problems in the input
//
//	Figures: units, judging {judged, ok, no_value, parse_errors,
//	    api_errors, parse_error_rate, api_error_rate}, labelled, coverage,
//	    human_ties, vs_humans: Agreement,
//	    corrected: null | {judged, observed_pass_rate, sensitivity,
//	        specificity, pass_rate, resamples}          (binary only)
//	    benchmark: null | {judged, labelled, labels_only, ppi, lambda,
//	        effective_labels}                 (scales with a mean)
//	    labels_needed[]: {figure, n, half_width, for_2, for_5}
//	    selection: {unbiased, order, filtered, unknown, census, fair,
//	        filtered_share, by_provenance {provenance: labels}, warning?,
//	        unbiased_part: null | {vs_humans}}
//
//	Agreement: n, percent_agreement, cohen_kappa, gwet_ac1, alpha_nominal,
//	    small_sample?, judge_mean, reference_mean, score_bias,
//	    ordinal: null | {step, linear_kappa, quadratic_kappa, alpha_ordinal,
//	        alpha_interval, alpha_ratio, mean_absolute_error, mean_signed_difference,
//	        spearman, kendall_tau_b, exact_agreement, within_one}
//	    binary: null | {true_positives, false_positives, false_negatives,
//	        true_negatives, precision, recall, specificity, f1,
//	        balanced_accuracy, false_pass_rate, false_fail_rate}
//	    classes: null | {per_class[]: {category, support, predicted,
//	        precision, recall, f1}, macro_classes, macro_precision,
//	        macro_recall, macro_f1}                  (nominal, pairwise)
//	    confusion: {categories[], names[]?, counts[reference][judge]}
//
// # References
//
// Cohen (1960, 1968) for kappa and weighted kappa; Gwet (2008), BJMSP
// 61:29–48, and Gwet (2014), Handbook of Inter-Rater Reliability, for AC1
// and Fleiss' kappa with missing ratings; Fleiss (1971), Psychological
// Bulletin 76(5):378–382; Krippendorff (2011), "Computing Krippendorff's
// Alpha-Reliability"; Kendall (1945) and Knight (1966) for tau-b; Wilson
// (1927) and Newcombe (1998), Statistics in Medicine 17:857–872, for the
// score interval; Rogan and Gladen (1978), American Journal of
// Epidemiology 107(1):71–76; Angelopoulos, Bates, Fannjiang, Jordan and
// Zrnic (2023), "Prediction-powered inference", Science 382:669–674, and
// Angelopoulos, Duchi and Zrnic (2024), "PPI++: Efficient
// prediction-powered inference", following the ppi_py package's
// ppi_mean_ci; Hörmann (1993), Journal of Statistical
// Computation and Simulation 46:101–110, for the binomial sampler behind
// the bootstrap. The tests check each statistic against a published
// example or an independent exact computation (testdata/reference.py).
package stats
