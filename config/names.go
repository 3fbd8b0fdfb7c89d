package config

import (
	"fmt"
	"strconv"
)

// Names configures the names check: the names a template of a group
// without strict_undefined reads that no variable set defines. Such a name
// renders as nothing, with no error ("edits to  are discarded").
type Names struct {
	// Ignore lists names that are defined another way (globals that
	// production's environment adds); they are never reported.
	Ignore []string `yaml:"ignore"`
}

// validateNames checks the names block.
func (c *Config) validateNames(fail func(msg string, keyPath ...string) error) error {
	if c.Names == nil {
		return nil
	}
	for i, n := range c.Names.Ignore {
		if !identRE.MatchString(n) {
			return fail(fmt.Sprintf("names.ignore: %q is not a variable name", n), "names", "ignore", strconv.Itoa(i))
		}
	}
	return nil
}
