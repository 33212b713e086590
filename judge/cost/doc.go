// Package cost says what a bulk model action will cost before its first
// request: how many requests it sends (tasks × samples, less what the
// session's response cache answers and the items a prompt cannot be made
// for), how many prompt tokens they carry, the most output tokens they may
// ask for, and the price when the config gives one (SPEC "Labels where
// they count": cost before spending).
//
// The requests are not predicted by a second copy of the client's rules:
// Count runs the very judge over the tasks on a client that sends nothing
// (llm.Client.Counting), whose transport records each request as it would
// leave — after the cache, the samples, the skipped items and the
// judge file's own model and max tokens — and refuses it. What the real
// run then sends to a server that answers every request equals the count;
// retries of failed requests and the re-asks of an empty answer are the
// only requests it cannot know of.
//
// Prompt tokens are counted with the model's own tokenizer where Gavel
// knows it (OpenAI's models: o200k_base, cl100k_base; tables embedded by
// github.com/tiktoken-go/tokenizer, nothing is downloaded) and OpenAI's
// chat format; for any other model they are counted with cl100k_base and
// labelled as an estimate.
package cost
