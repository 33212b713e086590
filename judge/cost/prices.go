package cost

// Price is what a model's tokens cost, per million tokens, as the config
// file gives it (key prices, by model name). Batch prices are those of
// the OpenAI Batch API (gavel run --batch), when given.
type Price struct {
	Input, Output           float64
	BatchInput, BatchOutput float64
	HasBatch                bool
}

// Prices are the configured prices by model name, as the server names
// the model (the name sent in each request: --model, or a judge file's
// own model). A model not listed has no price: none is guessed.
type Prices map[string]Price

// For returns model's per-million prices for input and output, batch or
// not; ok is false when the config gives none.
func (p Prices) For(model string, batch bool) (input, output float64, ok bool) {
	pr, ok := p[model]
	switch {
	case !ok:
		return 0, 0, false
	case batch && !pr.HasBatch:
		return 0, 0, false
	case batch:
		return pr.BatchInput, pr.BatchOutput, true
	}
	return pr.Input, pr.Output, true
}
