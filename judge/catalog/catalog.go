// Package catalog lists the judges Gavel can run — the offline match
// judge, the built-in LLM judges and custom judges from files — and builds
// one by name. It is what `gavel judges` prints and what --judge looks up.
package catalog

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/judge/match"
)

// Entry describes a judge before it is built.
type Entry = llm.Entry

// Catalog is every judge Gavel knows: match, the LLM built-ins and the
// custom judges added from files.
type Catalog struct {
	llm *llm.Catalog
}

// New returns the built-in judges.
func New() *Catalog { return &Catalog{llm: llm.NewCatalog()} }

// AddFile loads a custom judge file (YAML or JSON).
func (c *Catalog) AddFile(path string) (Entry, error) {
	if isMatch(path) {
		return Entry{}, fmt.Errorf("judge file %s: %q is the offline judge's name: choose another", path, match.Name)
	}
	return c.llm.AddFile(path)
}

// List returns every judge: match first, then the LLM built-ins, then the
// custom judges in the order they were added.
func (c *Catalog) List() []Entry {
	return append([]Entry{matchEntry()}, c.llm.List()...)
}

// Find returns a judge's entry by name, or by the path of a judge file
// (which is loaded). An unknown name gets an error that lists every judge.
func (c *Catalog) Find(name string) (Entry, error) {
	if isMatch(name) {
		return matchEntry(), nil
	}
	e, err := c.llm.Entry(name)
	if err != nil {
		return Entry{}, c.unknown(name, err)
	}
	return e, nil
}

// Prompt returns a judge's prompt template ("" for match, which has none).
func (c *Catalog) Prompt(name string) (string, error) {
	if isMatch(name) {
		return "", nil
	}
	p, err := c.llm.Prompt(name)
	if err != nil {
		return "", c.unknown(name, err)
	}
	return p, nil
}

// Definition returns a judge's judge file, what `gavel judges NAME --save`
// writes: a built-in LLM judge's exported file (llm.ExportBuiltin), a
// custom judge's text as read. The match judge has none.
func (c *Catalog) Definition(name string) (string, error) {
	if isMatch(name) {
		return "", fmt.Errorf("the match judge is rules, not a prompt: it has no judge file to save; the LLM judges have (see `gavel judges`)")
	}
	d, err := c.llm.Definition(name)
	if err != nil {
		return "", c.unknown(name, err)
	}
	return d, nil
}

// Build makes the named judge (Entry.Key names it too). LLM judges call the server cfg describes;
// client, when not nil, is shared instead (several judges of one run then
// share its connections, pacing and fatal state). match ignores both.
func (c *Catalog) Build(name string, cfg llm.Config, client *llm.Client) (judge.Judge, error) {
	if isMatch(name) {
		return match.New(), nil
	}
	if client != nil {
		return c.llm.NewWithClient(name, client)
	}
	j, err := c.llm.New(name, cfg)
	if err != nil {
		return nil, err
	}
	return j, nil
}

// ParseOutput reads text a judge's model wrote elsewhere (an imported
// judge column) with that judge's parser.
func (c *Catalog) ParseOutput(name, raw string) (judge.Verdict, error) {
	if isMatch(name) {
		return judge.Verdict{}, fmt.Errorf("the match judge reads predictions, not judge outputs: name the LLM judge whose output this is (see `gavel judges`)")
	}
	return c.llm.Parse(name, raw)
}

// ParseSwappedOutput is ParseOutput for text written with a pair's
// responses shown in the other order: its preferences come back in the
// original A/B terms (see llm.Catalog.ParseSwapped).
func (c *Catalog) ParseSwappedOutput(name, raw string) (judge.Verdict, error) {
	if isMatch(name) {
		return c.ParseOutput(name, raw)
	}
	return c.llm.ParseSwapped(name, raw)
}

// ParseOutput is Catalog.ParseOutput on the built-in judges.
func ParseOutput(name, raw string) (judge.Verdict, error) {
	return New().ParseOutput(name, raw)
}

func isMatch(name string) bool { return name == match.Name }

func matchEntry() Entry {
	info := match.New().Info()
	return Entry{
		Key:         info.Name,
		Name:        info.Name,
		Description: info.Description,
		Inputs:      []string{"question", "gold", "prediction"},
		Dimensions:  info.Dimensions,
		Output:      "no model: rules decide",
		Source:      "built-in",
	}
}

// unknown keeps errors about judge files as they are and rewrites "no
// such judge" into one that lists every name.
func (c *Catalog) unknown(name string, err error) error {
	if strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json") {
		return err
	}
	var names []string
	for _, e := range c.List() {
		names = append(names, e.Name)
	}
	return fmt.Errorf("there is no judge called %q: choose one of %s, or give the path of a judge file (see `gavel judges`)", name, strings.Join(names, ", "))
}
