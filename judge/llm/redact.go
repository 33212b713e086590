package llm

import "github.com/gavel-dev/gavel/judge"

// redactVerdict removes the API key from every text of a verdict, in case
// a server echoed it into an error or even into the model's output.
func redactVerdict(v judge.Verdict, key string) judge.Verdict {
	if len(key) < minRedactLen {
		return v
	}
	v.Raw = redactKey(v.Raw, key)
	v.Reason = redactKey(v.Reason, key)
	v.Error = redactKey(v.Error, key)
	for k, x := range v.Extra {
		v.Extra[k] = redactAny(x, key)
	}
	return v
}

func redactAny(x any, key string) any {
	switch t := x.(type) {
	case string:
		return redactKey(t, key)
	case []string:
		for i := range t {
			t[i] = redactKey(t[i], key)
		}
	case []any:
		for i := range t {
			t[i] = redactAny(t[i], key)
		}
	case map[string]any:
		for k, v := range t {
			t[k] = redactAny(v, key)
		}
	}
	return x
}

// minRedactLen is the shortest key that is redacted: shorter "keys" such
// as vLLM's conventional "EMPTY" are no secret, and replacing them would
// mangle ordinary words in model output.
const minRedactLen = 8
