package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Path is where the verified repository keeps its configuration.
const Path = ".github/template-verify.yml"

// Config is the whole configuration of one verified repository.
type Config struct {
	Version int      `yaml:"version"`
	Groups  []Group  `yaml:"groups"`
	Restore *Restore `yaml:"restore"`
	Pytest  *Pytest  `yaml:"pytest"`
	Gate    Gate     `yaml:"gate"`
	Checks  Checks   `yaml:"checks"`
	// PreExisting says what a failure that also happens at the base is:
	// "warn" (default) or "fail". It is read at the base (see verdict.go).
	PreExisting string `yaml:"pre_existing"`
	// Limits bound what a PR's templates can cost (see limits.go).
	Limits Limits `yaml:"limits"`
	// Sync configures the sync check (sync.go); Names the names check
	// (names.go). Nil: the check is off.
	Sync  *Sync  `yaml:"sync"`
	Names *Names `yaml:"names"`
	// Archive configures the archive check (archive.go); Ledger the
	// release ledger (ledger.go). Nil: the check is off.
	Archive *Archive `yaml:"archive"`
	Ledger  *Ledger  `yaml:"ledger"`
	// Taint configures the taint check (taint.go); Description the
	// description check (description.go). Nil: the check is off.
	Taint       *Taint       `yaml:"taint"`
	Description *Description `yaml:"description"`

	// Source is the file the configuration came from, or "(defaults)".
	Source string `yaml:"-"`
	// Derived says what was read from the render code when there is no
	// config file (see defaults.go); nil for a config file.
	Derived *Derivation `yaml:"-"`
}

// Group is a set of templates that share one Jinja environment.
type Group struct {
	Name string `yaml:"name"`
	// Root is the loader root, relative to the repository top.
	Root string `yaml:"root"`
	// Search is the loader's whole search path in Jinja's order (a
	// FileSystemLoader of several folders, a ChoiceLoader), Root among
	// them: an include resolves in the first folder that has the name.
	// Empty means Root alone.
	Search []string `yaml:"search"`
	Jinja  Jinja    `yaml:"jinja"`
	// Vars and Matrix apply to every template of the group; a template's own
	// entries override them key by key.
	Vars      map[string]any   `yaml:"vars"`
	Matrix    map[string][]any `yaml:"matrix"`
	Templates []Template       `yaml:"templates"`
	// Exclude lists globs (relative to Root) of files under Root that are
	// not templates.
	Exclude []string `yaml:"exclude"`
	// Copy lists globs (relative to Root) of files production copies
	// verbatim: never rendered, but a change to them still runs the pytest
	// suites and the runner scenarios (see render.go).
	Copy []string `yaml:"copy"`
	// Where is the "file:line" of the jinja2.Environment a derived group
	// comes from; empty for a group of a config file or the defaults.
	Where string `yaml:"-"`
}

// Jinja holds the environment options, named as in Python Jinja2.
type Jinja struct {
	StrictUndefined     bool `yaml:"strict_undefined"`
	KeepTrailingNewline bool `yaml:"keep_trailing_newline"`
	TrimBlocks          bool `yaml:"trim_blocks"`
	LstripBlocks        bool `yaml:"lstrip_blocks"`
	Autoescape          bool `yaml:"autoescape"`
}

// Template selects templates of a group by a glob relative to the group root
// ("**" matches any number of folders) and gives their variables.
type Template struct {
	Path   string           `yaml:"path"`
	Vars   map[string]any   `yaml:"vars"`
	Matrix map[string][]any `yaml:"matrix"`
	// Shell forces (true) or disables (false) the bash -n check; when unset,
	// files ending in .sh or starting with a bash or sh shebang are shell.
	Shell *bool `yaml:"shell"`
	// Sets are variable sets of record observed in the repository's own
	// renders (a test that renders the template, and the variants its
	// types give); when there are any they are the template's sets, and
	// Vars and Matrix only fill names a set lacks. Never from a file.
	Sets []VarSet `yaml:"-"`
}

// Restore configures the restore suite.
type Restore struct {
	// Template is the rendered script, as "group:path" or a repository path.
	Template string `yaml:"template"`
	// Vars picks the variable set to render it with (overrides on the
	// template's base vars); the first matrix value is used otherwise.
	Vars    map[string]any `yaml:"vars"`
	Section *Section       `yaml:"section"`
	// Command runs a restore written in another language instead of a
	// section of the script; it runs with bash -c in the fixture repository,
	// and "{script}" in it is replaced by the path of the rendered template.
	Command  string       `yaml:"command"`
	Paths    RestorePaths `yaml:"paths"`
	Patterns []string     `yaml:"patterns"`
	// Report is the JSON report file the step writes, as the script names it.
	Report string `yaml:"report"`
	// ReportKeys names the report's keys; a key left empty is learned
	// from the step (see checks/restore).
	ReportKeys ReportKeys `yaml:"report_keys"`
	Random     Random     `yaml:"random"`
	// RefusalExit judges the exit code of a step that must refuse (no
	// baseline file, HEAD not from the base): "any" (default), "zero" or
	// "nonzero".
	RefusalExit string `yaml:"refusal_exit"`
	// Fallback is what the step does without the baseline sha file:
	// "refuse" (default) or "base_commit" (it restores against the
	// rendered {{ base_commit }}).
	Fallback string `yaml:"fallback"`
	// Released lists paths the base's step protects that the head's step
	// may stop protecting: a path, a folder ("tests/") or a glob
	// (path.Match). Any other path the head stops protecting fails the
	// restore check.
	Released []string `yaml:"released"`
	// explicit is true when the restore block came from a file, not defaults.
	Explicit bool `yaml:"-"`
}

// Section names a part of a rendered script by regular expressions matched
// against whole lines: from the first line matching Start to the line before
// the next line matching End.
type Section struct {
	Start string `yaml:"start"`
	End   string `yaml:"end"`
}

// ReportKeys are the keys of the restore step's JSON report: the run
// flag, the base sha, the discarded and the remaining paths, and the
// error message of a step that does not run.
type ReportKeys struct {
	Ran       string `yaml:"ran"`
	Base      string `yaml:"base"`
	Discarded string `yaml:"discarded"`
	Remaining string `yaml:"remaining"`
	Error     string `yaml:"error"`
}

// RestorePaths maps the absolute paths the script uses onto fixture paths.
type RestorePaths struct {
	Repo        string `yaml:"repo"`
	BaselineSHA string `yaml:"baseline_sha"`
	Logs        string `yaml:"logs"`
}

// Random configures the random restore scenarios.
type Random struct {
	Count int   `yaml:"count"`
	Seed  int64 `yaml:"seed"`
}

// Pytest configures the pytest check.
type Pytest struct {
	// Python is the interpreter; empty means the first python3 that can
	// import pytest.
	Python  string   `yaml:"python"`
	Suites  []Suite  `yaml:"suites"`
	Runner  *Runner  `yaml:"runner"`
	Timeout Duration `yaml:"timeout"`
}

// Suite is one pytest suite of the verified repository.
type Suite struct {
	Name  string   `yaml:"name"`
	Files []string `yaml:"files"`
	// Triggers are globs of repository paths; a change to one runs the suite.
	Triggers []string          `yaml:"triggers"`
	Env      map[string]string `yaml:"env"`
	Timeout  Duration          `yaml:"timeout"`
}

// Runner configures the run of the template's own pytest runner on fixture
// Python projects.
type Runner struct {
	// Template is the rendered runner, as "group:path".
	Template string `yaml:"template"`
	// Command runs in the fixture project; {runner} is the rendered runner
	// file and {result} the result file. Empty: datasmith's (verdict.go).
	Command string `yaml:"command"`
	// Result is the result file, relative to the fixture project or under
	// "{logs}/", the scenario's log folder. Empty: datasmith's.
	Result string `yaml:"result"`
	// Env is the extra environment of the runner; "{logs}" in a value is
	// the scenario's log folder. Nil: datasmith's T_BENCH_TASK_LOGS_PATH.
	Env map[string]string `yaml:"env"`
	// Regressed is the dotted JSON path of the list of regressed test ids
	// in the result file; TestsRan the path that says whether tests ran (a
	// true bool, a number above 0 or a non-empty list). Empty: datasmith's.
	Regressed string `yaml:"regressed"`
	TestsRan  string `yaml:"tests_ran"`
}

// Gate configures the gate check.
type Gate struct {
	Branches []string `yaml:"branches"`
}

// Checks holds per-check settings.
type Checks struct {
	// Timeouts maps a check name to its time limit.
	Timeouts map[string]Duration `yaml:"timeouts"`
	// Disable lists checks that do not run; the report says so.
	Disable []string `yaml:"disable"`
}

// Duration is a time.Duration written as "90s" or "5m" in YAML.
type Duration struct{ time.Duration }

// UnmarshalYAML implements yaml.Unmarshaler; the error names the line.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: bad duration %q (want for example 90s or 5m)", n.Line, n.Value)
	}
	if v < 0 {
		return fmt.Errorf("line %d: bad duration %q: negative", n.Line, n.Value)
	}
	d.Duration = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Timeout returns the time limit of a check, with a default of 10 minutes.
func (c *Config) Timeout(check string) time.Duration {
	if d, ok := c.Checks.Timeouts[check]; ok {
		return d.Duration
	}
	return 10 * time.Minute
}

// Disabled reports whether the configuration turns a check off: it lists
// the check under checks.disable, or sets the check's block to null.
func (c *Config) Disabled(check string) bool {
	switch {
	case slices.Contains(c.Checks.Disable, check):
		return true
	case check == "restore":
		return c.Restore == nil
	case check == "pytest":
		return c.Pytest == nil
	case check == "sync":
		return c.Sync == nil
	case check == "names":
		return c.Names == nil
	case check == "archive":
		return c.Archive == nil
	case check == "ledger":
		return c.Ledger == nil
	case check == "taint":
		return c.Taint == nil
	case check == "description":
		return c.Description == nil
	}
	return false
}

// GroupOf returns the group whose root holds the repository path p, and p
// relative to that root. The longest matching root wins.
func (c *Config) GroupOf(p string) (*Group, string, bool) {
	var best *Group
	var rel string
	for i := range c.Groups {
		g := &c.Groups[i]
		root := strings.TrimSuffix(g.Root, "/")
		if root == "" || root == "." {
			if best == nil {
				best, rel = g, p
			}
			continue
		}
		if r, ok := strings.CutPrefix(p, root+"/"); ok && (best == nil || len(root) > len(strings.TrimSuffix(best.Root, "/"))) {
			best, rel = g, r
		}
	}
	return best, rel, best != nil
}

// Group returns the group with the given name.
func (c *Config) Group(name string) (*Group, bool) {
	for i := range c.Groups {
		if c.Groups[i].Name == name {
			return &c.Groups[i], true
		}
	}
	return nil, false
}

// ResolveTemplate turns "group:path" or a repository path into its group and
// the path relative to the group root.
func (c *Config) ResolveTemplate(ref string) (*Group, string, error) {
	if name, rel, ok := strings.Cut(ref, ":"); ok {
		g, found := c.Group(name)
		if !found {
			return nil, "", fmt.Errorf("template %q names group %q, which is not in the config", ref, name)
		}
		return g, rel, nil
	}
	g, rel, ok := c.GroupOf(ref)
	if !ok {
		return nil, "", fmt.Errorf("template %q is under no group root", ref)
	}
	return g, rel, nil
}

// TemplateFor returns the template entries of g whose glob matches rel, in
// config order; it is empty when rel is not a template (or is excluded).
func (g *Group) TemplateFor(rel string) []Template {
	if g.Copied(rel) {
		return nil
	}
	for _, ex := range g.Exclude {
		if MatchGlob(ex, rel) {
			return nil
		}
	}
	var out []Template
	for _, t := range g.Templates {
		if MatchGlob(t.Path, rel) {
			out = append(out, t)
		}
	}
	return out
}

// VarSet is one named set of template variables.
type VarSet struct {
	Name string         // "run_pytest=true,rounds=5", or "default"
	Vars map[string]any // values as decoded from YAML: int, bool, string, nil, lists, maps
}

// VarSets expands the group's and the template's vars and matrices into the
// cartesian product, in a fixed order (matrix keys sorted, values in the
// order written).
// At most CeilingLimits.VarSets sets are made: use VarSetsUpTo to learn
// whether there are more.
func (g *Group) VarSets(t Template) []VarSet {
	sets, _ := g.VarSetsUpTo(t, CeilingLimits.VarSets)
	return sets
}

func formatValue(v any) string { return varValueText(v) }
