package dataset

import (
	"regexp"
	"strings"
	"unicode"
)

// The roles a field can play. Question, gold, prediction and id take one
// field; rubric takes one; segment, verdict and human take one or more,
// joined with "+" in a mapping ("segment=category+difficulty").
const (
	RoleQuestion   = "question"
	RoleGold       = "gold"
	RolePrediction = "prediction"
	RoleID         = "id"
	RoleRubric     = "rubric"
	// RoleSegment fields group items for per-segment statistics.
	RoleSegment = "segment"
	// RoleVerdict fields hold the verdict of a judge that ran elsewhere;
	// the field name is the judge's name.
	RoleVerdict = "verdict"
	// RoleHuman fields hold a label a person gave elsewhere; the field
	// name is the annotator's name.
	RoleHuman = "human"
)

// Roles lists every role in the order mappings are shown.
func Roles() []string {
	return []string{RoleQuestion, RoleGold, RolePrediction, RoleID, RoleRubric, RoleSegment, RoleVerdict, RoleHuman}
}

// multiRole reports whether a role takes several fields.
func multiRole(role string) bool {
	return role == RoleSegment || role == RoleVerdict || role == RoleHuman
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
}

// roleWhat says what a role's field holds, for messages.
var roleWhat = map[string]string{
	RoleQuestion:   "the question",
	RoleGold:       "the gold answer",
	RolePrediction: "the prediction",
	RoleID:         "the id",
	RoleRubric:     "the rubric",
	RoleSegment:    "a segment",
	RoleVerdict:    "an imported verdict",
	RoleHuman:      "an imported human label",
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
