package match

import (
	"context"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

type ruleCase struct {
	name, gold, pred, question string
	want                       bool
	rule                       string
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeOne(t, tc.gold, tc.pred, tc.question)
			if verdictCorrect(v) != tc.want || verdictRule(v) != tc.rule {
				t.Errorf("gold %q, prediction %q: correct=%v by %q, want %v by %q\nreason: %s",
					tc.gold, tc.pred, verdictCorrect(v), verdictRule(v), tc.want, tc.rule, v.Reason)
			}
		})
	}
}

const (
	seed000Ex1Question = "What percentage of the party that holds the highest total percentage of good policy ideas and high ethical standards reported that they followed the news about congressional elections in their state very closely in the survey of U.S. adults conducted from April 25 to May 1, 2022?"
	seed000Ex1Pred     = "Based on the survey conducted from April 25 to May 1, 2018, 21% of the Democratic/Lean Democratic party members, which held the highest total percentage of good policy ideas and high ethical standards, reported that they followed the news about congressional elections in their state very closely. Please note that the survey was conducted in 2018, not 2022."
	seed000Ex3Question = `What is the deadline month of the January intake ISEP students need to nominate supervisors and nominations of tac? Write the answer in list format, e.g., ["Jan","Feb"]`
)

func TestNotAnswerable(t *testing.T) {
	runRuleCases(t, []ruleCase{
		// Seed 000, Example 1: the prediction corrects the premise (2018, not 2022).
		{"seed 000 example 1", "Not answerable.", seed000Ex1Pred, seed000Ex1Question, true, RuleNotAnswerable},
		// Seed 000, Example 2: a direct, substantive answer.
		{"seed 000 example 2", "Not answerable.", "The 47th President of the United States was Joe Biden, following his re-election in 2024.", "Who was the 47th President of the United States?", false, RuleNotAnswerable},
		{"says not answerable", "Not answerable", "Not answerable.", "", true, RuleNotAnswerable},
		{"says cannot be answered", "Not answerable", "The document does not mention the 47th president, so the question cannot be answered.", "", true, RuleNotAnswerable},
		{"long gold, N/A prediction", "The question cannot be answered based on the provided context", "N/A", "", true, RuleNotAnswerable},
		{"information not provided", "Unanswerable", "The information is not provided in the report.", "", true, RuleNotAnswerable},
		{"can't determine", "not answerable", "I can't determine that from the slides.", "", true, RuleNotAnswerable},
		{"number answer", "Not answerable", "42", "", false, RuleNotAnswerable},
		{"number not in the question is no correction", "Not answerable", "It was 21%, not 25%.", "What share was it in 2022?", false, RuleNotAnswerable},
		{"reason found in the trace text", "Not answerable", "The slides do not mention a year. The answer is 21%.", "", true, RuleNotAnswerable},
		// The other way: a substantive gold and an "unanswerable" prediction.
		{"prediction refuses, gold answers", "Paris", "The question cannot be answered from the document.", "", false, RuleNotAnswerable},
	})
}

func TestListRule(t *testing.T) {
	runRuleCases(t, []ruleCase{
		// Seed 000, Example 3: one of two months is missing.
		{"seed 000 example 3", "['Jun', 'Aug']", "['June']", seed000Ex3Question, false, RuleList},
		{"all months, full names", "['Jun', 'Aug']", `["June", "August"]`, seed000Ex3Question, true, RuleList},
		{"any order, prose", "['Jun', 'Aug']", "The deadlines are August and June.", seed000Ex3Question, true, RuleList},
		{"json gold", `["Jan", "Feb"]`, "['Feb', 'Jan']", "", true, RuleList},
		{"numbers", "[1500, 8000]", "The answer is [1,500, 8,000].", "", true, RuleList},
		{"percent item", "['White', '10%']", "white and ten percent", "", true, RuleList},
		{"duplicates need both", "[2, 2]", "[2]", "", false, RuleList},
		{"duplicates present", "[2, 2]", "[2, 2]", "", true, RuleList},
		{"mixed quotes", `["Singapore-Cambridge GCE 'A' Level", 'International Baccalaureate (IB) Diploma']`, "The GCE A Level (Singapore-Cambridge) and the IB Diploma.", "", false, RuleList},
		{"mixed quotes present", `["Singapore-Cambridge GCE 'A' Level", 'International Baccalaureate (IB) Diploma']`, "Singapore-Cambridge GCE 'A' Level; International Baccalaureate (IB) Diploma", "", true, RuleList},
		{"empty list, empty answer", "[]", "[]", "", true, RuleList},
		{"empty list, none", "[]", "None.", "", true, RuleList},
		{"empty list, items", "[]", "['Dog']", "", false, RuleList},
		{"article-only items", "['A', 'B']", "Grades: B and A", "", true, RuleList},
		{"article-only item missing", "['A', 'B']", "Grades: B and C", "", false, RuleList},
		{"empty items are ignored", "['', 'Dog']", "Dog", "", true, RuleList},
		{"only empty items", "['', ' ']", "['Dog']", "", false, RuleList},
		{"list question, comma gold", "Jun, Aug", "June and August", seed000Ex3Question, true, RuleList},
		{"list cue answer only", "['Jun', 'Aug']", "Deadlines are June and August for others. The answer is June.", "", false, RuleList},
		{"bullets after the cue", "['Dog', 'Cat', 'Bear']", "The answers are:\n- Bear\n- Dog\n- Cat", "", true, RuleList},
	})
}

func TestNumbersAndPercentages(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{"thousands separator", "1000", "1,000", "", true, RuleNumber},
		{"number words thousands", "1115", "one thousand one hundred and fifteen", "", true, RuleNumber},
		{"number words big", "2024", "two thousand twenty-four", "", true, RuleNumber},
		{"scale word", "300 million", "The answer is 300,000,000.", "", true, RuleNumber},
		{"negative", "-3", "minus three", "", true, RuleNumber},
		{"negative digits", "-3", "So the answer is -3.", "", true, RuleNumber},
		{"sign matters", "-3", "3", "", false, RuleNumber},
		{"rounded to gold decimals", "2.92", "about 2.9166", "", true, RuleNumber},
		{"integer gold is not rounded", "3", "3.4", "", false, RuleNumber},
		{"number in a sentence", "7", "There are 7 items in total.", "", true, RuleNumber},
		{"two different numbers are ambiguous", "42", "The answer is 41 or 42.", "", false, RuleNumber},
		{"the same number twice", "42", "The answer is 42 (forty-two).", "", true, RuleNumber},
		{"no number", "42", "I do not know", "", false, RuleNumber},
		{"money", "$1,000", "1000 dollars", "", true, RuleNumber},
		{"percent sign", "10%", "10%", "", true, RulePercent},
		{"percent word", "10%", "10 percent", "", true, RulePercent},
		{"percent words", "10%", "ten percent", "", true, RulePercent},
		{"per cent", "10%", "10 per cent", "", true, RulePercent},
		{"percent sign left out", "10%", "The answer is 10.", "", true, RulePercent},
		{"fraction is not a percent", "10%", "0.1", "", false, RulePercent},
		{"different percent", "10%", "11%", "", false, RulePercent},
		{"percent among numbers", "21%", "In 2018, 21% of members did.", "", true, RulePercent},
		{"decimal percent", "18.29%", "18.29 %", "", true, RulePercent},
		{"plain gold, percent answer", "21", "21%", "", true, RulePercent},
	})
}

func TestTextRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{"case and article", "The Eiffel Tower", "eiffel tower.", "", true, RuleNormalizedExact},
		{"punctuation and whitespace", "Las Vegas, Nevada", "  las   vegas nevada ", "", true, RuleNormalizedExact},
		{"ampersand", "MSc (Exercise & Sport Studies)", "MSc Exercise and Sport Studies", "", true, RuleNormalizedExact},
		{"apostrophe", "highest paid person's opinion", "The answer is: Highest Paid Persons Opinion", "", true, RuleNormalizedExact},
		{"number words inside text", "3 apples", "three apples", "", true, RuleNormalizedExact},
		{"month names", "June 2019", "Jun 2019", "", true, RuleNormalizedExact},
		{"different text", "Paris", "The answer is Rome.", "", false, RuleContains},
		{"contains in prose", "Paris", "The capital is Paris, of course.", "", true, RuleContains},
		{"contains is token based", "Paris", "Parisian food is great", "", false, RuleContains},
		{"contains only the extracted answer", "Berlin", "Berlin is nice. The answer is Paris.", "", false, RuleContains},
		{"abbreviation", "National Aeronautics and Space Administration.", "NASA launched the Hubble Space Telescope in 1990.", "", true, RuleAbbreviation},
		{"abbreviation spelled out", "NASA", "The National Aeronautics and Space Administration did.", "", true, RuleAbbreviation},
		{"symbols only", "] ) }", "So the answer is ] ) }.", "", true, RuleNormalizedExact},
		{"symbols differ", "] ) }", "So the answer is ) ] }.", "", false, RuleNormalizedExact},
		{"date", "12/25/1937", "The answer is 12/25/1937.", "", true, RuleNormalizedExact},
	})
}

const bbhQuestion = `Infer the date from context.

Q: Today is Christmas Eve of 1937. What is the date tomorrow in MM/DD/YYYY?
Options:
(A) 12/11/1937
(B) 12/25/1937
(C) 01/04/1938
A: Let's think step by step.`

func TestOptionTextRule(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{"option text for a letter gold", "(B)", "The answer is 12/25/1937.", bbhQuestion, true, RuleOptionLetter},
		{"wrong option text", "(B)", "The answer is 01/04/1938.", bbhQuestion, false, RuleOptionLetter},
		{"letter for a text gold", "12/25/1937", "So the answer is (B).", bbhQuestion, true, RuleOptionLetter},
		{"leading letter and text", "(B)", "B) 12/25/1937", bbhQuestion, true, RuleOptionLetter},
		{"article is not a letter", "(A)", "A date after Christmas Eve.", bbhQuestion, false, RuleOptionLetter},
		{"no letter", "(A)", "I am not sure.", bbhQuestion, false, RuleOptionLetter},
		{"last mentioned option text", "(B)", "If today is 12/11/1937 then tomorrow is 12/25/1937", bbhQuestion, true, RuleOptionLetter},
		{"longer option text wins", "(B)", "It is in Paris, France", "Options:\n(A) France\n(B) Paris, France", true, RuleOptionLetter},
	})
}

func TestNoAnswer(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{"empty prediction", "(A)", "", "", false, RuleNoAnswer},
		{"empty trace", "42", "<think></think>", "", false, RuleNoAnswer},
		{"no answer to not answerable", "Not answerable", "   ", "", false, RuleNoAnswer},
	})
}

func TestEmptyGoldIsParseError(t *testing.T) {
	for _, gold := range []string{"", "   ", "\n\t"} {
		v := New().Judge(context.Background(), judge.Task{Item: judge.Item{ID: "it-1", Gold: gold, Prediction: "The answer is (B)."}})
		checkVerdict(t, v, "The answer is (B).")
		if v.Status != judge.StatusParseError || !strings.Contains(v.Error, "no gold answer") {
			t.Errorf("gold %q: status %q, error %q; want parse_error saying there is no gold answer", gold, v.Status, v.Error)
		}
	}
}

func TestVerdictFields(t *testing.T) {
	v := New().Judge(context.Background(), judge.Task{
		Item:      judge.Item{ID: "it-1", Gold: "(B)", Prediction: `So the answer is \boxed{B}.`},
		Criterion: 2,
	})
	checkVerdict(t, v, `So the answer is \boxed{B}.`)
	if v.Criterion != 2 || v.Status != judge.StatusOK || v.Values[Dimension] != 1 {
		t.Errorf("verdict = %+v; want criterion 2, ok, correct 1", v)
	}
	want := map[string]any{
		ExtraAnswer: "B", ExtraRule: RuleOptionLetter, ExtraExtraction: "boxed",
		ExtraFromTrace: false, ExtraStart: 24, ExtraEnd: 25,
	}
	for k, w := range want {
		if v.Extra[k] != w {
			t.Errorf("Extra[%q] = %v, want %v", k, v.Extra[k], w)
		}
	}
	if wantReason := `rule "option-letter": extracted "B" from \boxed{}; option B equals gold "(B)".`; v.Reason != wantReason {
		t.Errorf("Reason = %q, want %q", v.Reason, wantReason)
	}
}

func TestInfo(t *testing.T) {
	info := New().Info()
	if info.Name != "match" || info.Model != "" || info.PerCriterion {
		t.Errorf("Info = %+v; want name match, no model, whole items", info)
	}
	d, ok := info.Dimension("correct")
	if !ok || d.Scale != judge.Binary || len(info.Dimensions) != 1 {
		t.Errorf("dimensions = %+v; want one binary \"correct\"", info.Dimensions)
	}
	if info.Description == "" || strings.Contains(info.Description, "\n") {
		t.Errorf("Description = %q; want one line", info.Description)
	}
	if info.Params["version"] != Version {
		t.Errorf("Params = %v; want version %q", info.Params, Version)
	}
}

// TestConcurrentUse runs the judge through the worker pool; with -race it
// checks that the judge is safe for concurrent use.
func TestConcurrentUse(t *testing.T) {
	var tasks []judge.Task
	for i := range 200 {
		gold := []string{"(B)", "42", "True", "['Jun', 'Aug']", "Not answerable"}[i%5]
		tasks = append(tasks, judge.Task{Item: judge.Item{ID: "it-1", Gold: gold, Prediction: "So the answer is (B)."}})
	}
	n, yes := 0, 0
	for v := range judge.RunPool(context.Background(), New(), tasks, judge.PoolOptions{Concurrency: 8}) {
		checkVerdict(t, v, "So the answer is (B).")
		n++
		yes += int(v.Values[Dimension])
	}
	if n != len(tasks) || yes != 40 {
		t.Errorf("%d verdicts, %d correct; want %d and 40", n, yes, len(tasks))
	}
}
