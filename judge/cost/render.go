package cost

import (
	"fmt"
	"strconv"
	"strings"
)

// Render is how an Estimate is told: the prices it is priced with, and
// whether the run goes through the Batch API.
type Render struct {
	Prices Prices
	Batch  bool
	// MaxTokensFlag names where max tokens come from, for the advice on
	// unbounded output ("--max-tokens").
	MaxTokensFlag string
}

// Lines tells the estimate in full, a line each: the requests, the prompt
// tokens, the output tokens and the price. The judge's name is the
// caller's to show (and sanitise).
func (r Render) Lines(e Estimate) []string {
	if e.Offline {
		return []string{fmt.Sprintf("%s to do; the judge calls no model: no request, no cost.", plural(e.Tasks, "task"))}
	}
	var lines []string
	lines = append(lines, requestsLine(e))
	if e.Requests == 0 {
		return lines
	}
	tokens, exact := e.PromptTokens()
	lines = append(lines, "prompt tokens: "+tokensText(tokens, exact)+" ("+encodingsText(e)+")")
	out, bounded := e.MaxOutput()
	flag := r.MaxTokensFlag
	if flag == "" {
		flag = "--max-tokens"
	}
	if bounded {
		lines = append(lines, fmt.Sprintf("output tokens: at most %s (each request's max tokens; the model may stop sooner)", Group(out)))
	} else {
		lines = append(lines, fmt.Sprintf("output tokens: not bounded (no max tokens: the server's default applies; %s sets one)", flag))
	}
	lines = append(lines, r.priceLine(e))
	if e.Unread > 0 {
		lines = append(lines, fmt.Sprintf("(%s could not be read to count their tokens)", plural(e.Unread, "request")))
	}
	return lines
}

// Short tells the estimate on one line, for a confirmation.
func (r Render) Short(e Estimate) string {
	if e.Offline {
		return "no model call"
	}
	parts := []string{plural(e.Requests, "request")}
	if e.Sampled > 0 {
		parts[0] = "about " + parts[0]
	}
	if e.Requests > 0 {
		tokens, exact := e.PromptTokens()
		p := Group(tokens) + " prompt tokens"
		if !exact {
			p = "about " + p + " (estimated)"
		}
		parts = append(parts, p)
		if out, bounded := e.MaxOutput(); bounded {
			parts = append(parts, "≤ "+Group(out)+" output tokens")
		}
		if in, out, ok := e.Price(r.Prices, r.Batch); ok {
			parts = append(parts, shortPrice(in, out, e, r.Batch))
		} else if missing := r.unpriced(e); len(missing) > 0 {
			// Said, not left out: a line without a price reads as free.
			kind := ""
			if r.Batch {
				kind = "batch "
			}
			parts = append(parts, "no "+kind+"price for "+strings.Join(missing, ", "))
		}
	}
	return strings.Join(parts, " · ")
}

func requestsLine(e Estimate) string {
	if e.Tasks == 0 {
		return "requests: 0 — nothing is left to do"
	}
	s := fmt.Sprintf("requests: %s for %s", Group(int64(e.Requests)), plural(e.Tasks, "task"))
	if e.Sampled > 0 {
		s = fmt.Sprintf("requests: about %s for %s (counted on %s of them)", Group(int64(e.Requests)), plural(e.Tasks, "task"), Group(int64(e.Sampled)))
	}
	var why []string
	if e.Samples > 1 {
		why = append(why, fmt.Sprintf("%d samples each", e.Samples))
	}
	if e.Cached > 0 {
		why = append(why, plural(e.Cached, "answer")+" from the session's cache, not sent")
	}
	if e.Repeated > 0 {
		what := " repeat another task's prompt: sent once, answered from the cache"
		if e.Repeated == 1 {
			what = " repeats another task's prompt: sent once, answered from the cache"
		}
		why = append(why, plural(e.Repeated, "request")+what)
	}
	if e.Paid > 0 {
		why = append(why, plural(e.Paid, "request")+" in batches still running, paid when sent")
	}
	if e.Skipped > 0 {
		why = append(why, plural(e.Skipped, "task")+" skipped: the item lacks what the prompt needs")
	}
	if e.TooLong > 0 {
		why = append(why, plural(e.TooLong, "task")+" too long for the server's context, not sent")
	}
	if e.Unbuilt > 0 {
		why = append(why, plural(e.Unbuilt, "prompt")+" that cannot be made")
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, "; ") + ")"
	}
	return s + "; retries of failed requests come on top"
}

func tokensText(n int64, exact bool) string {
	if exact {
		return Group(n)
	}
	return "about " + Group(n) + ", an estimate"
}

// encodingsText says what the tokens were counted with, per model.
func encodingsText(e Estimate) string {
	var parts []string
	for _, m := range e.Models {
		var s string
		if _, own := Encoding(m.Model); own {
			s = fmt.Sprintf("%s's tokenizer, %s", m.Model, m.Encoding)
		} else {
			s = fmt.Sprintf("%s's tokenizer is not known to Gavel: counted with %s", m.Model, m.Encoding)
		}
		if m.Counted < m.Requests {
			s += fmt.Sprintf(", on %s of the %s, the others scaled by length", plural(m.Counted, "prompt"), Group(int64(m.Requests)))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ") + "; chat format included"
}

func (r Render) priceLine(e Estimate) string {
	kind := ""
	if r.Batch {
		kind = "batch "
	}
	in, out, ok := e.Price(r.Prices, r.Batch)
	if !ok {
		missing := r.unpriced(e)
		return fmt.Sprintf("price: unknown — the config gives no %sprice for %s (prices in config.yaml: see gavel config --help)", kind, strings.Join(missing, ", "))
	}
	return "price: " + priceText(in, out, e, r.Batch)
}

// unpriced are the models of e the prices do not price.
func (r Render) unpriced(e Estimate) []string {
	var missing []string
	for _, m := range e.Models {
		if _, _, has := r.Prices.For(m.Model, r.Batch); !has {
			missing = append(missing, m.Model)
		}
	}
	return missing
}

// shortPrice is the price on a confirmation's line: "$0.18 in + ≤ $0.14
// out", "about" before an estimate.
func shortPrice(in, out float64, e Estimate, batch bool) string {
	_, exact := e.PromptTokens()
	s := Money(in) + " in"
	if !exact || e.Sampled > 0 {
		s = "about " + s
	}
	if _, bounded := e.MaxOutput(); bounded {
		s += " + ≤ " + Money(out) + " out"
	} else {
		s += " + output not bounded"
	}
	if batch {
		s += " (batch)"
	}
	return s
}

func priceText(in, out float64, e Estimate, batch bool) string {
	_, exact := e.PromptTokens()
	s := Money(in) + " for the prompts"
	if !exact {
		s = "about " + s
	}
	if _, bounded := e.MaxOutput(); bounded {
		s += " + at most " + Money(out) + " for the answers"
	} else {
		s += " + the answers (not bounded)"
	}
	if batch {
		s += ", at batch prices"
	}
	return s
}

// Money is a price in dollars: cents, or four decimals below a cent,
// "<$0.0001" below that (not $0.0000, which reads as free).
func Money(x float64) string {
	if x > 0 && x < 0.00005 {
		return "<$0.0001"
	}
	if x > 0 && x < 0.01 {
		return "$" + strconv.FormatFloat(x, 'f', 4, 64)
	}
	return "$" + group(strconv.FormatFloat(x, 'f', 2, 64))
}

// plural is n and a noun, plural unless n is 1, n grouped by thousands.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Group(int64(n)) + " " + noun + "s"
}

// Group writes n with thousands separated by commas.
func Group(n int64) string { return group(strconv.FormatInt(n, 10)) }

// group puts commas in a decimal's whole part.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}
