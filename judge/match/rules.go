package match

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rule ids, as stored in Verdict.Extra["rule"]: the rule that decided.
const (
	RuleNoAnswer        = "no-answer"        // the prediction holds no answer text
	RuleNotAnswerable   = "not-answerable"   // gold says "Not answerable" (seed 000), or the prediction does
	RuleList            = "list"             // gold is a list: every item must be present (seed 000)
	RuleOptionLetter    = "option-letter"    // multiple choice: (A) ≡ A ≡ Option A ≡ [A]… (seed 002)
	RuleBoolean         = "boolean"          // True ≡ true/yes/correct/valid… (seed 002)
	RulePlausibility    = "plausibility"     // yes ≡ plausible/likely/possible… (seed 002)
	RuleNumber          = "number"           // 42 ≡ 42.0 ≡ forty-two (seed 002)
	RulePercent         = "percent"          // 10% ≡ 10 percent ≡ ten percent (seed 000)
	RuleNormalizedExact = "normalized-exact" // equal after normalisation
	RuleAbbreviation    = "abbreviation"     // NASA ≡ National Aeronautics and Space Administration (seed 000)
	RuleContains        = "contains"         // baseline: gold phrase inside the answer
)

// outcome is what a rule decided and why, in words for the reason.
type outcome struct {
	correct bool
	rule    string
	detail  string
}

// input is everything the rules look at for one task.
type input struct {
	gold, question string
	gt             []tok // normalised gold
	ex             Extraction
	final          string // the final text the answer was extracted from
}

// scope is the text the list, "contains" and "not answerable" rules
// search: the extracted answer when a cue found it, else the whole final
// text, since prose answers put the answer anywhere.
func (in input) scope() string {
	if in.ex.Definitive() {
		return in.ex.Answer
	}
	return in.final
}

// decide compares the extraction with the gold, rule by rule in order of
// priority: the gold's kind picks the rule.
func decide(in input) outcome {
	if in.ex.Rule == "none" || in.ex.Answer == "" {
		return outcome{false, RuleNoAnswer, fmt.Sprintf("the prediction has no answer text to compare with gold %s", quote(in.gold))}
	}
	if isNotAnswerableGold(in.gt) {
		return notAnswerableRule(in)
	}
	// An option letter before lists, since "[B]" is an option, not a list.
	if l, ok := goldLetter(in.gold); ok {
		return letterRule(in, l)
	}
	if items, ok := goldList(in.gold, in.question); ok {
		return listRule(in, items)
	}
	if o, ok := polarityRule(in); ok {
		return o
	}
	if o, ok := numberRule(in); ok {
		return o
	}
	return textRule(in)
}

// goldLetter reads a gold that is an option letter: "(B)", "B", "[B]",
// "Option B". A lower-case single letter is not taken for an option.
func goldLetter(gold string) (byte, bool) {
	l, ok := wholeLetter(gold)
	if !ok || strings.IndexByte(gold, l) < 0 {
		return 0, false
	}
	return l, true
}

func notAnswerableRule(in input) outcome {
	ft := tokens(in.final)
	if p := unanswerablePhrase(ft); p != "" {
		return outcome{true, RuleNotAnswerable, fmt.Sprintf("gold %s means the question cannot be answered and the prediction says so (%q)", quote(in.gold), p)}
	}
	if p := premiseCorrection(ft, in.question); p != "" {
		return outcome{true, RuleNotAnswerable, fmt.Sprintf("gold %s means the question cannot be answered and the prediction corrects its premise (%q)", quote(in.gold), p)}
	}
	return outcome{false, RuleNotAnswerable, fmt.Sprintf("gold %s means the question cannot be answered but the prediction gives a substantive answer", quote(in.gold))}
}

func listRule(in input, items []string) outcome {
	st := tokens(in.scope())
	items = slices.DeleteFunc(items, func(it string) bool { return squeeze(it) == "" })
	if len(items) == 0 {
		if strings.Contains(strings.ReplaceAll(in.scope(), " ", ""), "[]") ||
			(len(st) > 0 && len(st) <= 3 && emptyListWords[st[0].text]) {
			return outcome{true, RuleList, "gold is an empty list and the prediction names no item"}
		}
		return outcome{false, RuleList, "gold is an empty list but the prediction names items"}
	}
	// Count how often each distinct item is needed, so ['0', '0'] needs two.
	need := map[string]int{}
	itemToks := map[string][]tok{}
	written := map[string]string{} // the item as the gold writes it, for the reason
	var order []string
	var rawScope []tok
	for _, it := range items {
		k := normText(it)
		switch {
		case k != "":
			itemToks[k] = tokens(it)
		case len(rawTokens(it)) > 0:
			// An item that is only an article, like the grade "A": match
			// its words before articles are dropped.
			k = "raw:" + joinTokens(rawTokens(it))
			itemToks[k] = rawTokens(it)
			if rawScope == nil {
				rawScope = rawTokens(in.scope())
			}
		default:
			k = squeeze(it)
			itemToks[k] = nil
		}
		if need[k] == 0 {
			order = append(order, k)
			written[k] = strings.TrimSpace(it)
		}
		need[k]++
	}
	var missing []string
	for _, k := range order {
		var have int
		switch {
		case itemToks[k] == nil:
			have = strings.Count(squeeze(in.scope()), k)
		case strings.HasPrefix(k, "raw:"):
			have = countPhrase(rawScope, itemToks[k])
		default:
			have = countPhrase(st, itemToks[k])
		}
		if have < need[k] {
			missing = append(missing, written[k])
		}
	}
	if len(missing) > 0 {
		return outcome{false, RuleList, fmt.Sprintf("%d of %d gold items present, missing %s", len(order)-len(missing), len(order), quote(strings.Join(missing, ", ")))}
	}
	return outcome{true, RuleList, fmt.Sprintf("all %d gold items of %s present", len(items), quote(in.gold))}
}

func letterRule(in input, gold byte) outcome {
	letters := optionLetters(in.ex.Answer)
	via := ""
	if len(letters) == 0 {
		if l, ok := letterByOptionText(in.ex.Answer, questionOptions(in.question)); ok {
			letters, via = []byte{l}, " by its option text"
		}
	}
	g := fmt.Sprintf("gold %s", quote(in.gold))
	switch {
	case len(letters) == 0:
		return outcome{false, RuleOptionLetter, "no option letter in the answer, " + g}
	case len(letters) > 1:
		return outcome{false, RuleOptionLetter, fmt.Sprintf("several option letters (%s) make the answer ambiguous, %s", spaced(letters), g)}
	case letters[0] == gold:
		return outcome{true, RuleOptionLetter, fmt.Sprintf("option %c%s equals %s", letters[0], via, g)}
	}
	return outcome{false, RuleOptionLetter, fmt.Sprintf("option %c%s differs from %s", letters[0], via, g)}
}

func spaced(ls []byte) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = string(l)
	}
	return strings.Join(parts, ", ")
}

// polarityRule handles yes/no golds: booleans (True, valid…) and
// plausibility (yes, plausible…). ok is false for other golds.
func polarityRule(in input) (outcome, bool) {
	rule, words := RulePlausibility, plausibilityWords
	if len(in.gt) == 0 || len(in.gt) > 3 {
		return outcome{}, false
	}
	for _, t := range in.gt {
		if _, ok := booleanWords[t.text]; ok && t.text != "yes" && t.text != "no" {
			rule, words = RuleBoolean, booleanWords
		}
		_, isWord := polarityWords[t.text]
		if !isWord && !negators[t.text] && !softeners[t.text] {
			return outcome{}, false
		}
	}
	gv, found, amb, _ := polarity(in.gt, words)
	if !found || amb {
		return outcome{}, false
	}
	g := fmt.Sprintf("gold %s", quote(in.gold))
	v, found, amb, w := polarity(tokens(in.ex.Answer), words)
	switch {
	case !found:
		return outcome{false, rule, "no yes/no word in the answer, " + g}, true
	case amb:
		return outcome{false, rule, "the answer says both yes and no, " + g}, true
	case v == gv:
		return outcome{true, rule, fmt.Sprintf("%q agrees with %s", w, g)}, true
	}
	return outcome{false, rule, fmt.Sprintf("%q contradicts %s", w, g)}, true
}

// numberRule handles golds that are one number, optionally a percentage.
// ok is false for other golds.
func numberRule(in input) (outcome, bool) {
	gt := in.gt
	if len(gt) == 0 || len(gt) > 2 || !gt[0].isNum || (len(gt) == 2 && gt[1].text != "percent") {
		return outcome{}, false
	}
	gold, goldPct := gt[0], len(gt) == 2
	rule := RuleNumber
	var pct, plain []tok
	at := tokens(in.ex.Answer)
	for i, t := range at {
		if !t.isNum {
			continue
		}
		if i+1 < len(at) && at[i+1].text == "percent" {
			pct = append(pct, t)
		} else {
			plain = append(plain, t)
		}
	}
	cands := plain
	if goldPct || (len(plain) == 0 && len(pct) > 0) {
		rule = RulePercent
		cands = pct
		if goldPct && len(pct) == 0 {
			cands = plain
		}
	}
	g := fmt.Sprintf("gold %s", quote(in.gold))
	if len(cands) == 0 {
		return outcome{false, rule, "no number in the answer, " + g}, true
	}
	for _, c := range cands[1:] {
		if !sameNumber(c, cands[0]) && !(numEqual(c, gold) && numEqual(cands[0], gold)) {
			return outcome{false, rule, fmt.Sprintf("several numbers (%s, %s) make the answer ambiguous, %s", cands[0].text, c.text, g)}, true
		}
	}
	if numEqual(cands[0], gold) {
		return outcome{true, rule, fmt.Sprintf("%s equals %s", cands[0].text, g)}, true
	}
	return outcome{false, rule, fmt.Sprintf("%s differs from %s", cands[0].text, g)}, true
}

func sameNumber(a, b tok) bool { return a.text == b.text }

// numEqual reports whether a number in an answer equals the gold number:
// the same value, or the gold's value when rounded to the decimals the
// gold was written with ("2.9166" for "2.92").
func numEqual(a, gold tok) bool {
	if a.num == gold.num || math.Abs(a.num-gold.num) <= 1e-9*math.Max(1, math.Abs(gold.num)) {
		return true
	}
	if gold.decimals > 0 && a.decimals > gold.decimals {
		p := math.Pow(10, float64(gold.decimals))
		return math.Abs(math.Round(a.num*p)/p-gold.num) <= 1e-9*math.Max(1, math.Abs(gold.num))
	}
	return false
}

// textRule compares free-text golds: normalised equality, the option
// whose text the gold is, an acronym, then the "contains" baseline.
func textRule(in input) outcome {
	g := fmt.Sprintf("gold %s", quote(in.gold))
	if len(in.gt) == 0 {
		// A gold of symbols only, such as "] ) }": compare the symbols.
		if squeeze(in.ex.Answer) == squeeze(in.gold) {
			return outcome{true, RuleNormalizedExact, "the answer's symbols equal " + g}
		}
		return outcome{false, RuleNormalizedExact, "the answer's symbols differ from " + g}
	}
	ng := joinTokens(in.gt)
	if normText(in.ex.Answer) == ng {
		return outcome{true, RuleNormalizedExact, fmt.Sprintf("equals %s after normalisation (%q)", g, ng)}
	}
	if ls := optionLetters(in.ex.Answer); len(ls) == 1 {
		if text, ok := questionOptions(in.question)[ls[0]]; ok && normText(text) == ng {
			return outcome{true, RuleOptionLetter, fmt.Sprintf("option %c is %s", ls[0], g)}
		}
	}
	if a := abbreviation(in.gold, in.gt, in.scope()); a != "" {
		return outcome{true, RuleAbbreviation, fmt.Sprintf("%q abbreviates %s", a, g)}
	}
	st := tokens(in.scope())
	if countPhrase(st, in.gt) > 0 {
		return outcome{true, RuleContains, fmt.Sprintf("normalised %s appears in the answer as a phrase (a lenient baseline that can be wrong)", g)}
	}
	if p := unanswerablePhrase(st); p != "" {
		return outcome{false, RuleNotAnswerable, fmt.Sprintf("the prediction says the question cannot be answered (%q) but the gold is %s", p, quote(in.gold))}
	}
	return outcome{false, RuleContains, fmt.Sprintf("normalised %s is neither the answer nor a phrase in it", g)}
}

// squeeze lower-cases s and drops its spaces and final period, for golds
// that normalisation would empty.
func squeeze(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), ""))
	return strings.TrimSuffix(s, ".")
}

// quote renders a value for a reason: quoted, one line, at most 60
// characters.
func quote(s string) string {
	cut := false
	if s = strings.TrimSpace(s); len(s) > 512 {
		// A long answer is cut below anyway: spare the work on the rest.
		k := 512
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		s, cut = s[:k], true
	}
	s = strings.Join(strings.Fields(s), " ")
	if cut {
		s += "…"
	}
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:59]) + "…"
	}
	return strconv.Quote(s)
}
