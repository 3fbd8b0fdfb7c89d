package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/formula-code/template-verify/internal/suggest"
)

// command is one subcommand: its help text and its function.
type command struct {
	name    string
	summary string                                                                 // one line
	usage   string                                                                 // the synopsis after "template-verify "
	example string                                                                 // one or more command lines
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int // nil: help
}

// commands lists the subcommands in the order of the usage text.
var commands = []command{
	{
		name:    "run",
		summary: "Verify the template changes between two revisions of a repository.",
		usage:   "run --base REV [--head REV] [--repo DIR] [flags]",
		example: "template-verify run --repo . --base origin/main --head HEAD --format text",
		run:     cmdRun,
	},
	{
		name:    "demo",
		summary: "Build the bundled example repository and verify one of its pull requests.",
		usage:   "demo [--bad | --head NAME] [flags]",
		example: "template-verify demo --bad --format text",
		run:     cmdDemo,
	},
	{
		name:    "ledger",
		summary: "List the pull requests merged into a release branch and verify each merged head again.",
		usage:   "ledger --head BRANCH [--base BRANCH] [--repo DIR] [--format text|json]",
		example: "template-verify ledger --repo . --base main --head release/template-v1",
		run:     cmdLedger,
	},
	{
		name:    "serve",
		summary: "Run the GitHub App: answer webhooks, verify pull requests, publish check runs and a comment.",
		usage:   "serve [--app-id ID --private-key-file FILE --webhook-secret-file FILE] [flags]\n  template-verify serve --register --public-url https://HOST [flags]",
		example: "template-verify serve --register --public-url https://verify.example.org --data-dir /var/lib/template-verify\ntemplate-verify serve --data-dir /var/lib/template-verify --listen :8080",
		run:     cmdServe,
	},
	{
		name:    "action",
		summary: "Run as the GitHub Action; reads GITHUB_* and INPUT_* variables, takes no arguments.",
		usage:   "action",
		example: "env INPUT_CONFIG=.github/template-verify.yml GITHUB_EVENT_PATH=event.json GITHUB_WORKSPACE=. template-verify action",
		run:     cmdAction,
	},
	{
		name:    "version",
		summary: "Print the module version and the VCS revision of this binary.",
		usage:   "version",
		example: "template-verify version",
		run:     cmdVersion,
	},
	{
		name:    "help",
		summary: "Print the usage, or the help of one command.",
		usage:   "help [COMMAND]",
		example: "template-verify help run",
		// run: cmdHelp, set in run: cmdHelp reads commands.
	},
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usageText is the top-level usage: one line per command.
func usageText() string {
	var b strings.Builder
	b.WriteString("template-verify verifies pull requests that change task templates.\n\nUsage:\n  template-verify COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString(`
Exit status: 0 every check passed (or no template changed), 1 a check failed,
2 usage or configuration error, 3 no check failed but one or more did not run.
Run "template-verify help COMMAND" or "template-verify COMMAND --help" for its flags.
`)
	return b.String()
}

// wantsHelp reports whether args (after the command) ask for help: -h,
// -help or --help before a "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// writeHelp writes the help of one command: summary, usage, flags and
// example. The flags come from the command's own flag set: it runs with
// -h, which stops at flag parsing, before it does anything.
func writeHelp(ctx context.Context, c command, w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage:\n  template-verify %s\n", c.summary, c.usage)
	if c.run != nil && c.name != "version" && c.name != "action" {
		var flags bytes.Buffer
		c.run(ctx, []string{"-h"}, io.Discard, &flags)
		text := flags.String()
		if i := strings.Index(text, "\n"); strings.HasPrefix(text, "Usage of ") && i >= 0 {
			text = text[i+1:]
		}
		if strings.TrimSpace(text) != "" {
			fmt.Fprintf(w, "\nFlags:\n%s", text)
		}
	}
	if c.name == "action" {
		fmt.Fprintf(w, "\n%s", strings.TrimPrefix(actionUsage, "Usage: template-verify action\n\n"))
	}
	fmt.Fprintf(w, "\nExample:\n")
	for _, line := range strings.Split(c.example, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

func cmdHelp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		c, _ := lookupCommand("help")
		writeHelp(ctx, c, stdout)
		return exitPass
	}
	switch len(args) {
	case 0:
		fmt.Fprint(stdout, usageText())
		return exitPass
	case 1:
		if c, ok := lookupCommand(args[0]); ok {
			writeHelp(ctx, c, stdout)
			return exitPass
		}
		fmt.Fprintf(stderr, "template-verify help: unknown command %q%s\n\n%s", args[0], didYouMean(args[0], commandNames()), usageText())
		return exitUsage
	default:
		fmt.Fprintf(stderr, "template-verify help: give one command, not %d\n", len(args))
		return exitUsage
	}
}

func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

func cmdVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "template-verify version: unexpected argument %q\n", args[0])
		return exitUsage
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionString(version, revision, info))
	return exitPass
}

// toolVersion is the version of this binary alone (the -ldflags version,
// else the module version), for the SARIF log's tool.driver.version.
func toolVersion() string {
	info, _ := debug.ReadBuildInfo()
	v, _ := strings.CutPrefix(versionString(version, "", info), "template-verify ")
	v, _, _ = strings.Cut(v, " ")
	return v
}

// revisionUnknown says why a binary has no revision and how to give it one.
const revisionUnknown = "revision unknown: Go stamped none (a build with -buildvcs=false, without .git, or in a git worktree); " +
	`build in a git clone, or add -ldflags "-X main.revision=$(git rev-parse HEAD)"`

// versionString is the version line: the -ldflags version when set,
// else the module version of the build info, then the VCS revision (Go's
// vcs.revision stamp, else the -ldflags revision ldRevision), its time
// and whether the tree had changes, and the Go version. A released module
// version (go install module@v1.2.0) names its commit, so it needs no
// revision.
func versionString(ldflags, ldRevision string, info *debug.BuildInfo) string {
	v := ldflags
	if info == nil {
		if v == "" {
			v = "unknown"
		}
		return "template-verify " + v
	}
	if v == "" || v == "dev" {
		v = info.Main.Version
		if v == "" || v == "(devel)" {
			v = "devel"
		}
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	rev := settings["vcs.revision"]
	released := v == info.Main.Version && v != "devel" && !strings.HasPrefix(v, "v0.0.0-")
	switch {
	case rev == "" && ldRevision != "":
		if len(ldRevision) > 12 {
			ldRevision = ldRevision[:12]
		}
		rev = "revision " + ldRevision
	case rev == "" && released:
		return fmt.Sprintf("template-verify %s (%s)", v, info.GoVersion)
	case rev == "":
		rev = revisionUnknown
	default:
		if len(rev) > 12 {
			rev = rev[:12]
		}
		rev = "revision " + rev
		if t := settings["vcs.time"]; t != "" {
			rev += " of " + t
		}
		if settings["vcs.modified"] == "true" {
			rev += ", with uncommitted changes"
		}
	}
	return fmt.Sprintf("template-verify %s (%s, %s)", v, rev, info.GoVersion)
}

// didYouMean returns ` (did you mean "x"?)` for the nearest name
// (suggest.Nearest), or the empty string.
func didYouMean(got string, names []string) string {
	best := suggest.Nearest(got, names)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
