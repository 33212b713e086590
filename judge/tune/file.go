package tune

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Instructions returns the instructions field of a judge file (YAML or
// JSON, which YAML reads too): what tuning rewrites.
func Instructions(file []byte) (string, error) {
	var f struct {
		Instructions *string `yaml:"instructions"`
	}
	if err := yaml.Unmarshal(file, &f); err != nil {
		return "", fmt.Errorf("cannot read the judge file: %w", err)
	}
	if f.Instructions == nil || strings.TrimSpace(*f.Instructions) == "" {
		return "", errors.New("the judge file has no instructions field (or an empty one): tuning rewrites only that field, so put the part of the prompt to tune in `instructions:` and write {instructions} where it goes in system or user")
	}
	return *f.Instructions, nil
}
