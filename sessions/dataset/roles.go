package dataset

import (
	"regexp"
	"strings"
	"unicode"
)

// The roles a field can play. Gold, prediction, the two responses, id and
// rubric take one field; question takes one or more (joined with a blank
// line: "question=instruction+input"); segment, verdict and human take one
// or more, joined with "+" in a mapping ("segment=category+difficulty");
// swapped and reason take one per verdict field (see RoleSwapped).
const (
	RoleQuestion   = "question"
	RoleGold       = "gold"
	RolePrediction = "prediction"
	// RoleResponseA and RoleResponseB hold the two responses of a
	// pairwise item; with both mapped no prediction is needed.
	RoleResponseA = "response_a"
	RoleResponseB = "response_b"
	RoleID        = "id"
	RoleRubric    = "rubric"
	// RoleSegment fields group items for per-segment statistics.
	RoleSegment = "segment"
	// RoleVerdict fields hold the verdict of a judge that ran elsewhere;
	// the field name is the judge's name.
	RoleVerdict = "verdict"
	// RoleHuman fields hold a label a person gave elsewhere; the field
	// name is the annotator's name.
	RoleHuman = "human"
	// RoleSwapped fields hold a verdict column's second order: the same
	// judge's verdict made with the pair's two responses shown the other
	// way round, already written in the original A/B terms. Each belongs
	// to one verdict field, written "VERDICT:SWAPPED" in a mapping; a bare
	// "SWAPPED" belongs to the only verdict field.
	RoleSwapped = "swapped"
	// RoleReason fields hold the reason a judge gave for a verdict
	// column's verdicts, paired with it like RoleSwapped.
	RoleReason = "reason"
	// RoleConfidence fields hold the probability, 0 to 1, the judge gave
	// its own verdict in a verdict column, paired with it like
	// RoleSwapped. Only a mapping names one (--map confidence=COLUMN): a
	// column called "confidence" may mean anything.
	RoleConfidence = "confidence"
)

// pairedRoles are the roles whose fields each belong to a verdict field.
var pairedRoles = []string{RoleSwapped, RoleReason, RoleConfidence}

// Roles lists every role in the order mappings are shown.
func Roles() []string {
	return []string{RoleQuestion, RoleGold, RolePrediction, RoleResponseA, RoleResponseB, RoleID, RoleRubric,
		RoleSegment, RoleVerdict, RoleSwapped, RoleReason, RoleConfidence, RoleHuman}
}

// multiRole reports whether a role takes several fields, and so whether
// mapping it again adds fields rather than conflicting.
func multiRole(role string) bool {
	switch role {
	case RoleSegment, RoleVerdict, RoleHuman, RoleSwapped, RoleReason, RoleConfidence:
		return true
	}
	return false
}

// joinedRole reports whether a role's value may name several fields
// joined by "+": the multi-field roles, and the question, whose fields are
// joined into one text.
func joinedRole(role string) bool { return multiRole(role) || role == RoleQuestion }

// pairedRole reports whether a role's fields each belong to a verdict
// field ("VERDICT:FIELD").
func pairedRole(role string) bool {
	return role == RoleSwapped || role == RoleReason || role == RoleConfidence
}

// roleAliases are other names people use for a role in --map.
var roleAliases = map[string]string{
	"q": RoleQuestion, "input": RoleQuestion, "prompt": RoleQuestion,
	"answer": RoleGold, "target": RoleGold, "reference": RoleGold, "ground_truth": RoleGold, "gold_answer": RoleGold,
	"pred": RolePrediction, "response": RolePrediction, "output": RolePrediction, "model_answer": RolePrediction,
	"criteria": RoleRubric, "rubrics": RoleRubric,
	"segments": RoleSegment, "category": RoleSegment,
	"judge": RoleVerdict, "verdicts": RoleVerdict,
	"label": RoleHuman, "human_label": RoleHuman, "labels": RoleHuman,
	"a": RoleResponseA, "response1": RoleResponseA, "response_1": RoleResponseA,
	"b": RoleResponseB, "response2": RoleResponseB, "response_2": RoleResponseB,
	"swap": RoleSwapped, "swapped_verdict": RoleSwapped, "verdict_swapped": RoleSwapped,
	"reasons": RoleReason, "rationale": RoleReason, "explanation": RoleReason, "judge_reason": RoleReason,
}

// roleWhat says what a role's field holds, for messages.
var roleWhat = map[string]string{
	RoleQuestion:   "the question",
	RoleGold:       "the gold answer",
	RolePrediction: "the prediction",
	RoleID:         "the id",
	RoleRubric:     "the rubric",
	RoleSegment:    "a segment",
	RoleResponseA:  "the first response of the pair",
	RoleResponseB:  "the second response of the pair",
	RoleVerdict:    "an imported verdict",
	RoleSwapped:    "an imported verdict made with the responses swapped",
	RoleReason:     "an imported verdict's reason",
	RoleConfidence: "the probability an imported judge gave its own verdict",
	RoleHuman:      "an imported human label",
}

// pairCandidates are the field names of a pairwise item's two responses,
// as pairs: a dataset's responses are recognised only together, so that
// "response1" is never paired with "output_2".
var pairCandidates = [][2]string{
	{"response_a", "response_b"}, {"response1", "response2"}, {"response_1", "response_2"},
	{"output_1", "output_2"}, {"output_a", "output_b"}, {"answer_a", "answer_b"},
	{"answer1", "answer2"}, {"answer_1", "answer_2"}, {"completion_a", "completion_b"},
	{"model_a_response", "model_b_response"},
}

// candidates are the field names each role is recognised by, best first,
// in normalised form (see normName).
var candidates = map[string][]string{
	RoleQuestion: {"question", "input", "prompt", "query", "instruction", "problem"},
	RoleGold: {"answer", "gold", "gold_answer", "target", "reference", "references", "ground_truth",
		"correct_answer", "reference_answer", "expected_answer", "expected_output", "golden_answer"},
	RolePrediction: {"prediction", "pred", "response", "output", "model_answer", "completion", "llm_response",
		"model_output", "model_response", "predicted_answer", "generation", "generated_text"},
	RoleID: {"id", "qid", "uid", "question_id", "idx", "uuid", "example_id", "sample_id", "item_id",
		"task_id", "problem_id", "_id"},
	RoleRubric: {"rubric", "rubrics", "criteria", "nuggets", "rubric_items", "checklist"},
	RoleSegment: {"category", "subcategory", "sub_category", "task", "task_name", "subtask", "subject",
		"type", "question_type", "difficulty", "level", "benchmark", "dataset", "domain", "topic",
		"language", "lang", "model", "model_name", "answer_format", "doc_type"},
	RoleVerdict: {"verdict", "judge_verdict", "judgement", "judgment", "judge_judgement", "judge_judgment",
		"judge_output", "judge_result", "judge_score", "judge_label", "judge_decision", "is_correct",
		"correct", "result", "score", "eval_result", "evaluation", "grade"},
	RoleHuman: {"human_label", "human", "label", "human_judgement", "human_judgment", "human_score",
		"human_rating", "human_verdict", "human_annotation", "annotation", "gold_label"},
}

// Name patterns for the multi-field imported roles: "gpt_result",
// "pandalm_result", "annotator1"…
var (
	verdictPattern = regexp.MustCompile(`^[a-z0-9_]+_(verdict|judgement|judgment|result)$`)
	humanPattern   = regexp.MustCompile(`^(annotator|rater|human|labeler|labeller)_?[0-9]+$`)
)

// normName lowercases a field name and turns camelCase, spaces and dashes
// into snake_case, so that "HumanJudgement", "human-judgement" and
// "Human Judgement" all read "human_judgement".
func normName(s string) string {
	var b strings.Builder
	var prev rune
	for i, r := range s {
		orig := r
		switch {
		case r == '-' || r == ' ' || r == '.':
			r = '_'
		case unicode.IsUpper(r):
			if i > 0 && unicode.IsLower(prev) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
		prev = orig
	}
	return b.String()
}

// rolePreference ranks a field name for a role: 0 is the best candidate, -1
// means the name is not one of the role's.
func rolePreference(role, field string) int {
	n := normName(field)
	for i, c := range candidates[role] {
		if n == c {
			return i
		}
	}
	switch role {
	case RoleVerdict:
		if verdictPattern.MatchString(n) && !strings.HasPrefix(n, "human") {
			return len(candidates[role])
		}
	case RoleHuman:
		if humanPattern.MatchString(n) {
			return len(candidates[role])
		}
	}
	return -1
}

// soleSwapped and soleReason are the names of a swapped or reason field
// that belongs to a dataset's only verdict field.
var (
	soleSwapped = []string{"swapped", "verdict_swapped", "swapped_verdict", "verdict_swap", "swap_verdict", "judge_swapped"}
	soleReason  = []string{"reason", "judge_reason", "judge_reasoning", "judge_explanation", "judge_rationale", "verdict_reason"}
)

// verdictSuffix is what ends most verdict field names; a reason field is
// named after what comes before it ("gpt_result" -> "gpt_reason").
var verdictSuffix = regexp.MustCompile(`_(verdict|judgement|judgment|result|score|label|decision|winner)$`)

// pairedNames are the names, normalised, of a field that holds the
// swapped order or the reason of verdict field v: "v_swapped",
// "swapped_v"; "v_reason", and for "gpt_result" also "gpt_reason".
func pairedNames(role, v string) []string {
	n := normName(v)
	if role == RoleSwapped {
		return []string{n + "_swapped", n + "_swap", "swapped_" + n, n + "_swapped_order"}
	}
	names := []string{n + "_reason", n + "_reasoning", n + "_explanation", n + "_rationale"}
	if base := verdictSuffix.ReplaceAllString(n, ""); base != n && base != "" {
		names = append(names, base+"_reason", base+"_reasoning", base+"_explanation", base+"_rationale")
	}
	return names
}
