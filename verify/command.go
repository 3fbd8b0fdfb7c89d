package verify

import (
	"fmt"
	"strings"

	"github.com/formula-code/template-verify/config"
)

// Command is the command line that reproduces a run of opts.
func Command(opts Options) string {
	c := fmt.Sprintf("template-verify run --repo . --base %s --head %s", shellQuote(opts.Base), shellQuote(opts.Head))
	if opts.ConfigPath != "" && opts.ConfigPath != config.Path {
		c += " --config " + shellQuote(opts.ConfigPath)
	}
	if len(opts.Only) > 0 {
		c += " --only " + shellQuote(strings.Join(opts.Only, ","))
	}
	return c
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@^~", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
