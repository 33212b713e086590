package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gavel-dev/gavel/judge"
)

// batchResultLine is one line of a batch's output or error file: the
// request's custom_id and either the server's response (its status and
// body, a chat completion when 200) or the reason it has none
// (batch_expired, batch_cancelled…).
type batchResultLine struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// maxProblem bounds a failed request's message as reported.
const maxProblem = 300

// batchResult reads one result line: the request's key, and either the
// answer as the cache keeps it (value) or why there is none (problem,
// redacted). The body is read as the online path reads a response
// (answerOf), and kept as the online path keeps it (cacheValue): an
// empty answer is a problem, as it is never cached.
func (c *Client) batchResult(line []byte) (key, value, problem string) {
	var r batchResultLine
	if err := json.Unmarshal(line, &r); err != nil {
		return "", "", "a result line is not JSON: " + err.Error()
	}
	key = r.CustomID
	bad := func(msg string) (string, string, string) {
		msg = c.redact(strings.Join(strings.Fields(msg), " "))
		if len(msg) > maxProblem {
			msg = strings.ToValidUTF8(msg[:maxProblem], "") + "…"
		}
		return key, "", msg
	}
	switch {
	case r.Error != nil && (r.Error.Code != "" || r.Error.Message != ""):
		return bad(strings.TrimSpace(r.Error.Code + ": " + r.Error.Message))
	case r.Response == nil:
		return bad("the result holds no response")
	case r.Response.StatusCode != http.StatusOK:
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(r.Response.Body, &e)
		return bad(fmt.Sprintf("HTTP %d: %s", r.Response.StatusCode, e.Error.Message))
	}
	var resp openai.ChatCompletionResponse
	if err := json.Unmarshal(r.Response.Body, &resp); err != nil {
		return bad("the answer is not a chat completion: " + err.Error())
	}
	a, fail := answerOf(resp)
	if fail != nil {
		return bad(fail.msg)
	}
	v, ok := c.cacheValue(a)
	if !ok {
		return bad("empty answer")
	}
	return key, v, ""
}

// Judge returns the judge that gives the report's Ready tasks their
// verdicts: j's own, made from the answers in the cache, so nothing is
// sent. A verdict a batch answered says so (ExtraBatch) instead of
// ExtraCached.
func (rep BatchReport) Judge(j *Judge) judge.Judge {
	return batchJudge{j: j, batched: rep.batched}
}

type batchJudge struct {
	j       *Judge
	batched map[string]bool
}

func (b batchJudge) Info() judge.Info { return b.j.Info() }

func (b batchJudge) Judge(ctx context.Context, t judge.Task) judge.Verdict {
	v := b.j.Judge(ctx, t)
	if b.batched[taskID(t)] && v.Status != judge.StatusAPIError {
		delete(v.Extra, ExtraCached)
		v.Extra = setExtra(v.Extra, ExtraBatch, true)
	}
	return v
}
