package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/formula-code/template-verify/internal/suggest"
)

// synopses are the usage lines of the commands, by name. They are filled
// from commands in init: commands refers to the command functions, which
// call parseFlags, so parseFlags cannot read commands itself (an
// initialization cycle).
var synopses = map[string]string{}

func init() {
	for _, c := range commands {
		synopses[c.name] = c.usage
	}
}

// parseFlags parses args with fs and reports whether the command goes on.
// A flag the command does not have, or a bad value, prints one line with
// the problem (and "did you mean --x?" for a near miss), then the
// command's usage line and where its flags are listed, instead of the
// flag package's message and its dump of every flag. -h and --help print
// the flags (writeHelp reads them).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case err == nil:
		return true
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stderr, "Usage of %s:\n", fs.Name())
		fs.PrintDefaults()
		return false
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + strings.TrimPrefix(name, "-") + flagHint(fs, name)
	}
	fmt.Fprintf(stderr, "template-verify %s: %s\n", fs.Name(), msg)
	if s, ok := synopses[fs.Name()]; ok {
		fmt.Fprintf(stderr, "Usage: template-verify %s\n", s)
	}
	fmt.Fprintf(stderr, "Run \"template-verify help %s\" for all its flags.\n", fs.Name())
	return false
}

// flagHint is " (did you mean --x?)" for the flag of fs nearest to name
// (suggest.Nearest: within two edits, a swap of two letters counting one,
// and half the length of name), or the empty string.
func flagHint(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	best := suggest.Nearest(strings.TrimPrefix(name, "-"), names)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean --%s?)", best)
}
