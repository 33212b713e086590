package match

// Seed 002's equivalence table for yes/no answers: true and false words
// for booleans, yes and no words for plausibility. true/false and yes/no
// appear in both, as the table's Boolean row accepts yes and no.
var (
	booleanWords = map[string]bool{
		"true": true, "yes": true, "correct": true, "valid": true,
		"false": false, "no": false, "incorrect": false, "invalid": false,
	}
	plausibilityWords = map[string]bool{
		"yes": true, "plausible": true, "likely": true, "possible": true, "true": true,
		"no": false, "implausible": false, "unlikely": false, "impossible": false, "false": false,
	}
	// polarityWords is every yes/no word, for telling a bare answer.
	polarityWords = union(booleanWords, plausibilityWords)
	// negators flip the word after them: "not true" is false,
	// "not plausible" is no.
	negators = map[string]bool{
		"not": true, "isnt": true, "arent": true, "wasnt": true, "werent": true,
		"never": true, "hardly": true,
	}
	// softeners may stand between a negator and its word ("not very likely").
	softeners = map[string]bool{
		"very": true, "really": true, "quite": true, "entirely": true, "particularly": true,
		"so": true, "too": true, "at": true, "all": true, "completely": true,
	}
)

func union(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// polarity reads the yes/no value an answer states with the given words.
// A negator flips the word it governs ("not true" is false, "not
// implausible" is yes). found is false when no word appears; ambiguous is
// true when the words disagree ("true … false"), which counts as wrong.
// word is the last word read, for the reason.
func polarity(ts []tok, words map[string]bool) (value, found, ambiguous bool, word string) {
	for i, t := range ts {
		v, ok := words[t.text]
		if !ok {
			continue
		}
		w := t.text
		j := i - 1
		for j >= 0 && softeners[ts[j].text] {
			j--
		}
		if j >= 0 && negators[ts[j].text] {
			v = !v
			w = ts[j].text + " " + w
		}
		if found && v != value {
			ambiguous = true
		}
		value, found, word = v, true, w
	}
	return value, found, ambiguous, word
}
