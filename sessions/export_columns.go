package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// The columns of an export (see export.go), shared with the import of an
// exported file so that the two cannot drift apart. Names with a prefix
// carry the run or annotator they belong to after it; verdict and label
// columns also carry the dimension after a last colon. A run is named by
// RunNames ("match", "docqa · gpt-4o", "imported · GPT-4").
const (
	colID         = "id"
	colQuestion   = "question"
	colGold       = "gold"
	colPrediction = "prediction"
	colRubric     = "rubric"
	colResponseA  = "response_a" // only when the dataset has pairwise items
	colResponseB  = "response_b"
	colFields     = "fields"

	prefixSegment = "segment:"        // segment:<field>
	prefixVerdict = "verdict:"        // verdict:<run>:<dimension>
	prefixStatus  = "verdict_status:" // verdict_status:<run>
	prefixReason  = "verdict_reason:" // verdict_reason:<run>
	prefixError   = "verdict_error:"  // verdict_error:<run>
	// A run's confidences (from logprobs) and the reasons a confidence
	// was withheld, only for runs that have any.
	prefixConfidence = "verdict_confidence:"          // verdict_confidence:<run>
	prefixWithheld   = "verdict_confidence_withheld:" // verdict_confidence_withheld:<run>
	// The swapped-order verdicts of a pairwise run (the swap audit), only
	// for runs that have any; values in the original A/B terms.
	prefixSwapped       = "verdict_swapped:"        // verdict_swapped:<run>:<dimension>
	prefixSwappedStatus = "verdict_swapped_status:" // verdict_swapped_status:<run>
	prefixLabel         = "label:"                  // label:<annotator>:<dimension>
	prefixVia           = "label_via:"              // label_via:<annotator>
	prefixNote          = "note:"                   // note:<annotator>
	// An annotator's labelling record (export_labelling.go), only for
	// annotators who have one.
	prefixLabelGuidelines = "label_guidelines:" // label_guidelines:<annotator>
	prefixLabelShown      = "label_shown:"      // label_shown:<annotator>
	prefixLabelShownRun   = "label_shown_run:"  // label_shown_run:<annotator>
	prefixRetest          = "retest:"           // retest:<annotator>:<dimension>
	prefixCantJudge       = "cant_judge:"       // cant_judge:<annotator>
	prefixCantJudgeNote   = "cant_judge_note:"  // cant_judge_note:<annotator>
	prefixTags            = "tags:"             // tags:<annotator>
)

// splitLast splits "run:dimension" at its last colon, since run names may
// hold colons themselves ("ollama · llama3:70b").
func splitLast(s string) (head, last string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// exportColumn is one parsed column name of an export.
type exportColumn struct {
	// kind is one of the prefixes above, or colFields.
	kind string
	// owner is the run or annotator; dim the dimension or segment field.
	owner, dim string
}

// parseExportColumn reads a column name written by Export; ok is false
// for any other name.
func parseExportColumn(name string) (exportColumn, bool) {
	switch {
	case name == colFields:
		return exportColumn{kind: colFields}, true
	case strings.HasPrefix(name, prefixSegment):
		f := name[len(prefixSegment):]
		return exportColumn{kind: prefixSegment, dim: f}, f != ""
	case strings.HasPrefix(name, prefixVerdict), strings.HasPrefix(name, prefixLabel), strings.HasPrefix(name, prefixSwapped),
		strings.HasPrefix(name, prefixRetest):
		prefix := prefixVerdict
		switch {
		case strings.HasPrefix(name, prefixLabel):
			prefix = prefixLabel
		case strings.HasPrefix(name, prefixSwapped):
			prefix = prefixSwapped
		case strings.HasPrefix(name, prefixRetest):
			prefix = prefixRetest
		}
		owner, dim, ok := splitLast(name[len(prefix):])
		return exportColumn{kind: prefix, owner: owner, dim: dim}, ok
	}
	// prefixWithheld before prefixConfidence: the one begins with the other.
	for _, p := range []string{prefixStatus, prefixReason, prefixError, prefixWithheld, prefixConfidence, prefixSwappedStatus, prefixVia, prefixNote,
		prefixLabelGuidelines, prefixLabelShown, prefixLabelShownRun, prefixCantJudge, prefixCantJudgeNote, prefixTags} {
		if strings.HasPrefix(name, p) {
			owner := name[len(p):]
			return exportColumn{kind: p, owner: owner}, owner != ""
		}
	}
	return exportColumn{}, false
}

// parseRunName turns a run's exported name back into a judge name and a
// model: "docqa · gpt-4o" is docqa with gpt-4o, "match" is match alone.
func parseRunName(name string) (judgeName, model string) {
	if j, m, ok := strings.Cut(name, runNameSep); ok {
		return j, m
	}
	return name, ""
}

// runNameSep joins a judge's name and model in RunLabel.
const runNameSep = " · "

// exportFields returns a row's fields, in the order the row has them,
// when they look like a row written by Export: an object with an "id" and
// at least one column only Export writes (a "fields" object or a
// prefixed column).
func exportFields(fields json.RawMessage) ([]rawField, bool) {
	if len(fields) == 0 || !mayBeExported(fields) {
		return nil, false
	}
	fs, err := orderedFields(fields)
	if err != nil {
		return nil, false
	}
	hasID, exported := false, false
	for _, f := range fs {
		if f.name == colID {
			hasID = true
		}
		if c, ok := parseExportColumn(f.name); ok && c.kind != prefixSegment {
			exported = true
		}
	}
	return fs, hasID && exported
}

// rawField is one member of a JSON object.
type rawField struct {
	name  string
	value json.RawMessage
}

// orderedFields reads a JSON object's members in order.
func orderedFields(obj json.RawMessage) ([]rawField, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []rawField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, ok := t.(string)
		if !ok {
			return nil, errors.New("not a JSON object")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, rawField{name, v})
	}
	return out, nil
}
