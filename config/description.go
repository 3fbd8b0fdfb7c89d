package config

import (
	"fmt"
	"slices"
	"strconv"
)

// Description configures the description check: the house format of the
// pull request's body. description: null turns it off.
type Description struct {
	// Level is what a broken rule is: "warn" (default) or "fail". The
	// stricter of the base's and the head's level applies.
	Level string `yaml:"level"`
	// Ignore lists rules (internal/housestyle names such as
	// sentence-length) that the check does not report.
	Ignore []string `yaml:"ignore"`
}

// Values of description.level.
const (
	DescriptionWarn = "warn"
	DescriptionFail = "fail"
)

// DescriptionRules are the rule names description.ignore accepts, as
// internal/housestyle names them.
var DescriptionRules = []string{"section", "sentence-length", "banned-word", "host-name", "ai-attribution", "footer", "mermaid", "fence"}

// DescriptionFails reports whether a broken rule fails the description
// check: base or head says fail (the head cannot relax the base).
func DescriptionFails(base, head *Config) bool {
	for _, c := range []*Config{base, head} {
		if c != nil && c.Description != nil && c.Description.Level == DescriptionFail {
			return true
		}
	}
	return false
}

func (c *Config) validateDescription(fail func(msg string, keyPath ...string) error) error {
	d := c.Description
	if d == nil {
		return nil
	}
	if !oneOf(d.Level, "", DescriptionWarn, DescriptionFail) {
		return fail(fmt.Sprintf("description.level %q is not warn or fail", d.Level), "description", "level")
	}
	for j, r := range d.Ignore {
		if !slices.Contains(DescriptionRules, r) {
			return fail(fmt.Sprintf("description.ignore %q is not a rule (rules: %v)", r, DescriptionRules), "description", "ignore", strconv.Itoa(j))
		}
	}
	return nil
}
