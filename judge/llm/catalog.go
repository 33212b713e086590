package llm

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gavel-dev/gavel/judge"
)

// Entry describes a judge for `gavel judges`: what it needs, what it
// rates and how.
type Entry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Inputs are the item fields the prompt uses (question, gold,
	// prediction, criterion, id, or dataset fields of custom judges).
	Inputs []string `json:"inputs"`
	// Optional are the item fields the prompt uses when an item has them
	// (the pairwise judge's gold answer, as a reference).
	Optional     []string          `json:"optional,omitempty"`
	Dimensions   []judge.Dimension `json:"dimensions"`
	PerCriterion bool              `json:"per_criterion,omitempty"`
	// Output is the format the model must write, in a few words.
	Output string `json:"output"`
	// NeedsModel is true for every LLM judge (and false for the offline
	// match judge, which lives elsewhere).
	NeedsModel bool `json:"needs_model"`
	// Source is "built-in" or the custom judge's file.
	Source string `json:"source"`
	// Key finds the judge in the catalog again (Catalog.New, Build): its
	// name, or the file's path for a variant of a built-in (a file with
	// output.parser that takes the built-in's name), so that the two
	// can run side by side.
	Key string `json:"-"`
}

// id is what the catalog finds a judge by (Entry.Key).
func (d *definition) id() string {
	if d.key != "" {
		return d.key
	}
	return d.name
}

func (d *definition) entry() Entry {
	return Entry{
		Key:          d.id(),
		Name:         d.name,
		Description:  d.description,
		Inputs:       slices.Clone(d.inputs),
		Optional:     slices.Clone(d.optional),
		Dimensions:   slices.Clone(d.dims),
		PerCriterion: d.perCriterion,
		Output:       d.format,
		NeedsModel:   true,
		Source:       d.source,
	}
}

// Catalog knows the built-in LLM judges and the custom judges loaded from
// files. It is safe for concurrent use.
type Catalog struct {
	mu   sync.Mutex
	defs []*definition
}

// NewCatalog returns a catalog of the built-in LLM judges.
func NewCatalog() *Catalog {
	return &Catalog{defs: builtins()}
}

// AddFile loads a custom judge file into the catalog and returns its
// entry. Loading the same file again replaces its judge; a name already
// taken by another judge is an error, except a built-in's name taken by
// a variant of it (output.parser), which is found by its path.
func (c *Catalog) AddFile(path string) (Entry, error) {
	d, err := c.addFile(path)
	if err != nil {
		return Entry{}, err
	}
	return d.entry(), nil
}

func (c *Catalog) addFile(path string) (*definition, error) {
	data, err := readJudgeFile(path)
	if err != nil {
		return nil, err
	}
	_, d, err := parseCustom(data, path)
	if err != nil {
		return nil, err
	}
	if d.parser == d.name {
		d.key = path
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, old := range c.defs {
		if old.id() != d.id() {
			continue
		}
		if old.source != path {
			return nil, fmt.Errorf("judge file %s: the name %q is already taken by %s: rename one of them", path, d.name, old.source)
		}
		// Judges built before keep the old definition.
		c.defs[i] = d
		return d, nil
	}
	c.defs = append(c.defs, d)
	return d, nil
}

func (c *Catalog) find(key string) *definition {
	for _, d := range c.defs {
		if d.id() == key {
			return d
		}
	}
	return nil
}

// List returns every judge of the catalog: the built-ins first, then the
// custom judges in the order they were added.
func (c *Catalog) List() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Entry, len(c.defs))
	for i, d := range c.defs {
		out[i] = d.entry()
	}
	return out
}

// Entry returns the named judge's entry. A name that is a path to a judge
// file (.yaml, .yml, .json) loads the file first.
func (c *Catalog) Entry(name string) (Entry, error) {
	d, err := c.resolve(name)
	if err != nil {
		return Entry{}, err
	}
	return d.entry(), nil
}

// Definition returns the named judge's judge file: a custom judge's text
// as it was read, a built-in's ExportBuiltin text.
func (c *Catalog) Definition(name string) (string, error) {
	d, err := c.resolve(name)
	if err != nil {
		return "", err
	}
	if d.source == builtinSource {
		b, err := ExportBuiltin(d.name)
		return string(b), err
	}
	return d.text, nil
}

// Prompt returns the named judge's prompt as a template, with its
// placeholders ({question}, <llm_response>…) where the item goes.
func (c *Catalog) Prompt(name string) (string, error) {
	d, err := c.resolve(name)
	if err != nil {
		return "", err
	}
	return d.prompt, nil
}

// New builds the named judge (or the judge in the named file) with a new
// Client for cfg.
func (c *Catalog) New(name string, cfg Config) (*Judge, error) {
	d, err := c.resolve(name)
	if err != nil {
		return nil, err
	}
	cl, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return newJudge(d, cl), nil
}

// NewWithClient builds the named judge on an existing Client, so that
// several judges share its connections, pacing and fatal state.
func (c *Catalog) NewWithClient(name string, cl *Client) (*Judge, error) {
	d, err := c.resolve(name)
	if err != nil {
		return nil, err
	}
	return newJudge(d, cl), nil
}

func (c *Catalog) resolve(name string) (*definition, error) {
	c.mu.Lock()
	d := c.find(name)
	var names []string
	for _, x := range c.defs {
		names = append(names, x.name)
	}
	c.mu.Unlock()
	if d != nil {
		return d, nil
	}
	if looksLikeJudgeFile(name) {
		return c.addFile(name)
	}
	return nil, fmt.Errorf("unknown judge %q: the LLM judges are %s; a custom judge is a .yaml or .json file", name, strings.Join(names, ", "))
}

func looksLikeJudgeFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// ParseSwapped is Parse for an output written with the pair's responses
// shown in the other order (B first), as a live swapped task's answer is
// read: the preferences are mapped back to the original A/B terms and the
// verdict is marked Swapped. Use it for raw judge text of the swapped
// order; a column of values already in the original terms needs no
// mapping.
func (c *Catalog) ParseSwapped(name, raw string) (judge.Verdict, error) {
	v, err := c.Parse(name, raw)
	if err != nil {
		return v, err
	}
	d, _ := c.resolve(name)
	unswapVerdict(&v, d.dims)
	return v, nil
}

// Parse reads an output the named judge's model wrote elsewhere (a judge
// column imported with a dataset) exactly as a live answer would be read:
// an ok verdict with values, reason and extra fields, or a parse_error
// verdict that keeps the raw text and says what was expected.
func (c *Catalog) Parse(name, raw string) (judge.Verdict, error) {
	d, err := c.resolve(name)
	if err != nil {
		return judge.Verdict{}, err
	}
	v := judge.Verdict{Raw: raw}
	p, err := readOutput(d.parse, raw)
	if err != nil {
		v.Status = judge.StatusParseError
		v.Error = "expected " + d.format + ": " + err.Error()
		return v, nil
	}
	v.Status = judge.StatusOK
	v.Values, v.Reason, v.Extra = p.values, p.reason, p.extra
	return v, nil
}
