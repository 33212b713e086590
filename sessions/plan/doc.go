// Package plan draws labelling plans (SPEC "Labels where they count"):
// which items people should label, each with a known inclusion
// probability, so that estimates weighted by the inverse of those
// probabilities stay unbiased whatever the design.
//
// A plan is a pure function of its units (each item's size measure,
// permanent random number and stratum), its target size n and its floor:
//
//   - PRN gives every item a permanent random number from the plan's seed
//     and the item's id, so that the same seed always draws the same items
//     and a larger n draws a superset (see Select).
//   - Probabilities turns sizes into inclusion probabilities λ that sum to
//     n: uniform n/N, stratified n_h/N_h, active a uniform floor plus a
//     share proportional to each item's uncertainty, capped at 1.
//   - Select draws by sequential Poisson sampling (Ohlsson 1998): the n
//     items with the smallest ξ = prn/λ, certainties (λ = 1) first. With
//     equal probabilities this is simple random sampling without
//     replacement.
//   - Uncertainty reads how unsure a judge's verdict is, the size measure
//     of an active plan.
//
// The package holds no SQL: sessions stores plans (plan_store.go) and
// reads them into the statistics.
package plan
