// Package llm holds Gavel's LLM judges and the client that calls them.
//
// The built-in judges docqa, rubric, same-event, bbh and quality are made
// from the seed prompts, embedded verbatim (prompts/); pairwise, which
// prefers one of two responses, has a prompt written for Gavel
// (prompts/pairwise*.txt). A pair may be judged in both orders
// (judge.Task.Swapped): the verdict comes back in the original A/B terms.
// Custom judges come from a YAML or JSON file (LoadCustom), on any scale.
// A Catalog lists both, prints a judge's prompt and builds a judge from a
// name and a Config.
//
// A built-in exports as a judge file (ExportBuiltin) whose output.parser
// names it: loaded, the file sends the same messages and reads answers
// the same way, and once edited it is a variant of the built-in, its own
// run under the built-in's name. NewVariant builds a judge from such a
// file's bytes; ReplaceInstructions rewrites the file's instructions (the
// text {instructions} stands for), which is what tuning changes; a file
// whose templates say {examples} shows few-shot examples given with
// Judge.WithExamples.
//
// Every judge calls an OpenAI-compatible chat completions server through a
// Client built on go-openai. The client adds what the library leaves out:
// a temperature of 0 that really reaches the server, retries with
// exponential backoff and jitter that honour Retry-After, a request pacer
// for --rpm, a response cache, confidence from logprobs, repeated samples
// with a majority verdict, and a Fatal error for the failures that no retry
// can mend (a wrong key, model or URL), which stops the whole run through
// StopOnFatal.
//
// Judges never return errors: a model output that cannot be read becomes a
// parse_error verdict with the raw text kept, a server that gives no
// usable answer after the last try becomes an api_error verdict, and an
// answer to a prompt the server cut to its context without saying so (its
// usage far below the prompt's size) a truncated one, never cached. A
// confidence the server's logprobs cannot describe (the answer's token far
// below the top alternative, as llama.cpp reports under a grammar) is
// withheld, with the reason in Extra[ExtraConfidenceWithheld]. The API key
// never appears in a verdict, an error, a cache key or Info.
package llm
