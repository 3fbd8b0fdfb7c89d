package config

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Sync configures the sync check: groups of copies of one list or text that
// must stay equal, such as the restore pattern list of tests/test.sh and
// PROTECTED_PATCH_PATTERNS of the grader (seed "discard agent edits to the
// measurement setup": "A change to one needs the same change to the other").
type Sync struct {
	Groups []SyncGroup `yaml:"groups"`
	// Discover turns on the discovery of copies: a list literal of a
	// changed template that equals, at the base, a list in another tracked
	// file forms a group. Unset, it is on when the block names no groups
	// (and so when the file has no sync block).
	Discover *bool `yaml:"discover"`
	// Ignore lists discovered groups that are not compared.
	Ignore []SyncIgnore `yaml:"ignore"`
	// Explicit is true when the block came from a file, not defaults.
	Explicit bool `yaml:"-"`
}

// SyncIgnore silences discovered groups: those with a copy in a file that
// Path matches, and, when given, whose list there is named List and whose
// other copy is in a file that With matches. Path and With are globs
// ("**" spans folders).
type SyncIgnore struct {
	Path string `yaml:"path"`
	List string `yaml:"list"`
	With string `yaml:"with"`
}

// Discovers reports whether the sync check discovers groups.
func (s *Sync) Discovers() bool {
	if s == nil {
		return false
	}
	if s.Discover != nil {
		return *s.Discover
	}
	return !s.Explicit || len(s.Groups) == 0
}

// Ignored reports whether a discovered group of the list named aList in
// file a and the list named bList in file b is silenced.
func (s *Sync) Ignored(a, aList, b, bList string) bool {
	if s == nil {
		return false
	}
	for _, ig := range s.Ignore {
		for _, pair := range [][4]string{{a, aList, b, bList}, {b, bList, a, aList}} {
			if MatchGlob(ig.Path, pair[0]) && (ig.List == "" || ig.List == pair[1]) && (ig.With == "" || MatchGlob(ig.With, pair[2])) {
				return true
			}
		}
	}
	return false
}

// SyncGroup is one set of copies.
type SyncGroup struct {
	Name   string     `yaml:"name"`
	Copies []SyncCopy `yaml:"copies"`
}

// SyncCopy is one copy: a file and one extractor that yields its items.
// Exactly one of Bash, Python, JinjaDefault, Between, YAML, JSON and TOML
// is set.
type SyncCopy struct {
	// Path is a repository path, or "group:path" for a template. A template
	// (either form, when the path is a template of a group) is rendered
	// first with its first variable set and Vars on top; JinjaDefault
	// reads the template source instead.
	Path string `yaml:"path"`
	// Bash names a bash array; its elements are the items.
	Bash string `yaml:"bash"`
	// Python names a module-level list, tuple or set of strings.
	Python string `yaml:"python"`
	// JinjaDefault names a Jinja variable: the items are the argument of
	// its default filter, a list of strings or one string.
	JinjaDefault string `yaml:"jinja_default"`
	// Between takes the lines strictly between the first line matching
	// Start and the next line matching End, trimmed, empty lines dropped.
	Between *Section `yaml:"between"`
	// YAML, JSON and TOML name a list of strings in a data file by its key
	// path, "restore.patterns" ("jobs.0.paths" indexes a list); the
	// format's parser reads the file.
	YAML string `yaml:"yaml"`
	JSON string `yaml:"json"`
	TOML string `yaml:"toml"`
	// Vars override the template's variables when the copy is rendered.
	Vars map[string]any `yaml:"vars"`
	// Drop lists items removed before the comparison, such as the "-e" of
	// a grep argument array.
	Drop []string `yaml:"drop"`
	// OnlyHere lists items this copy may have that the others lack.
	OnlyHere []string `yaml:"only_here"`
}

// Extractor names the copy's extractor: bash, python, jinja_default,
// between, yaml, json or toml.
func (c *SyncCopy) Extractor() string {
	switch {
	case c.YAML != "":
		return "yaml"
	case c.JSON != "":
		return "json"
	case c.TOML != "":
		return "toml"
	case c.Bash != "":
		return "bash"
	case c.Python != "":
		return "python"
	case c.JinjaDefault != "":
		return "jinja_default"
	case c.Between != nil:
		return "between"
	}
	return ""
}

// Datasmith's copies of the restore pattern list.
const (
	// DefaultGatesPath is the grader's file that holds
	// PROTECTED_PATCH_PATTERNS, at the repository top as datasmith's seed
	// names it (fcrl/grading/gates.py).
	DefaultGatesPath = "fcrl/grading/gates.py"
	// DefaultGatesName is the list in DefaultGatesPath.
	DefaultGatesName = "PROTECTED_PATCH_PATTERNS"
	// DefaultRestoreArray is the bash array of the restore patterns in
	// tests/test.sh.
	DefaultRestoreArray = "_fc_restore_patterns"
)

// DefaultSync is datasmith's sync block: the restore patterns of the
// rendered tests/test.sh against PROTECTED_PATCH_PATTERNS. The test-file
// patterns are in test.sh only, on purpose (seed "restore step also matches
// test files"), so they are only_here items of the test.sh copy.
func DefaultSync() *Sync {
	return &Sync{Groups: []SyncGroup{{
		Name: "restore-patterns",
		Copies: []SyncCopy{
			{Path: "harbor:tests/test.sh", Bash: DefaultRestoreArray, Drop: []string{"-e"},
				OnlyHere: append([]string{}, TestFilePatterns...)},
			{Path: DefaultGatesPath, Python: DefaultGatesName},
		},
	}}}
}

var (
	identRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	keyPathRE = regexp.MustCompile(`^[^.\s]+(\.[^.\s]+)*$`)
)

// validateSync checks the sync block.
func (c *Config) validateSync(fail func(msg string, keyPath ...string) error) error {
	s := c.Sync
	if s == nil {
		return nil
	}
	for i, ig := range s.Ignore {
		at := []string{"sync", "ignore", strconv.Itoa(i)}
		if ig.Path == "" {
			return fail("a sync.ignore entry needs a path (a glob)", at...)
		}
		for _, kv := range [][2]string{{"path", ig.Path}, {"with", ig.With}} {
			if k, v := kv[0], kv[1]; v != "" && !validGlob(v) {
				return fail(fmt.Sprintf("sync.ignore %s %q is not a valid glob", k, v), append(at, k)...)
			}
		}
	}
	names := map[string]bool{}
	for i, g := range s.Groups {
		gi := strconv.Itoa(i)
		if g.Name == "" {
			return fail("a sync group needs a name", "sync", "groups", gi)
		}
		if names[g.Name] {
			return fail(fmt.Sprintf("sync group name %q is used twice", g.Name), "sync", "groups", gi, "name")
		}
		names[g.Name] = true
		if len(g.Copies) < 2 {
			return fail(fmt.Sprintf("sync group %q needs at least two copies", g.Name), "sync", "groups", gi, "copies")
		}
		for j, cp := range g.Copies {
			at := []string{"sync", "groups", gi, "copies", strconv.Itoa(j)}
			if cp.Path == "" {
				return fail(fmt.Sprintf("a copy of sync group %q needs a path", g.Name), at...)
			}
			file := cp.Path
			if _, rel, ok := strings.Cut(cp.Path, ":"); ok {
				file = rel
			}
			if file != path.Clean(file) || file == "." || !filepath.IsLocal(file) {
				return fail(fmt.Sprintf("copy %s of sync group %q: the path is not a clean relative file path", cp.Path, g.Name), append(at, "path")...)
			}
			n := 0
			for _, set := range []bool{cp.Bash != "", cp.Python != "", cp.JinjaDefault != "", cp.Between != nil, cp.YAML != "", cp.JSON != "", cp.TOML != ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				return fail(fmt.Sprintf("copy %s of sync group %q needs exactly one of bash, python, jinja_default, between, yaml, json and toml", cp.Path, g.Name), at...)
			}
			for _, name := range []string{cp.Bash, cp.Python, cp.JinjaDefault} {
				if name != "" && !identRE.MatchString(name) {
					return fail(fmt.Sprintf("copy %s: %q is not a variable name", cp.Path, name), at...)
				}
			}
			for _, kv := range [][2]string{{"yaml", cp.YAML}, {"json", cp.JSON}, {"toml", cp.TOML}} {
				if k, v := kv[0], kv[1]; v != "" && !keyPathRE.MatchString(v) {
					return fail(fmt.Sprintf("copy %s: %q is not a key path (keys joined by dots)", cp.Path, v), append(at, k)...)
				}
			}
			if b := cp.Between; b != nil {
				for _, kv := range [][2]string{{"start", b.Start}, {"end", b.End}} {
					k, v := kv[0], kv[1]
					if v == "" {
						return fail(fmt.Sprintf("copy %s: between.%s is empty", cp.Path, k), append(at, "between")...)
					}
					if _, err := regexp.Compile(v); err != nil {
						return fail(fmt.Sprintf("copy %s: between.%s is not a valid regular expression: %v", cp.Path, k, err), append(at, "between", k)...)
					}
				}
			}
		}
	}
	return nil
}
