package config

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

func utf8Valid(b []byte) bool { return utf8.Valid(b) }

// validate checks values that decode but make no sense. Each error names the
// line of the offending key, found in the parsed node tree.
func (c *Config) validate(file string, root *yaml.Node) error {
	fail := func(msg string, keyPath ...string) error {
		return &Error{File: file, Line: lineOf(root, keyPath...), Msg: msg}
	}
	if c.Version != 0 && c.Version != 1 {
		return fail(fmt.Sprintf("version %d is not supported (want 1)", c.Version), "version")
	}
	if !oneOf(c.PreExisting, "", PreExistingWarn, PreExistingFail) {
		return fail(fmt.Sprintf("pre_existing %q is not warn or fail", c.PreExisting), "pre_existing")
	}
	names := map[string]bool{}
	for i, g := range c.Groups {
		gi := strconv.Itoa(i)
		if g.Name == "" {
			return fail("a group needs a name", "groups", gi)
		}
		if names[g.Name] {
			return fail(fmt.Sprintf("group name %q is used twice", g.Name), "groups", gi, "name")
		}
		names[g.Name] = true
		if g.Root == "" {
			return fail(fmt.Sprintf("group %q needs a root", g.Name), "groups", gi)
		}
		if len(g.Templates) == 0 {
			return fail(fmt.Sprintf("group %q lists no templates", g.Name), "groups", gi)
		}
		for j, dir := range g.Search {
			if dir == "" || path.IsAbs(dir) || path.Clean(dir) != dir || strings.HasPrefix(dir, "../") || dir == ".." {
				return fail(fmt.Sprintf("search folder %q is not a clean path relative to the repository top", dir), "groups", gi, "search", strconv.Itoa(j))
			}
		}
		if len(g.Search) > 0 && !slices.Contains(g.Search, g.Root) {
			return fail(fmt.Sprintf("group %q: search lists the loader's whole search path, so it must hold the root %q", g.Name, g.Root), "groups", gi, "search")
		}
		for j, t := range g.Templates {
			if !validGlob(t.Path) {
				return fail(fmt.Sprintf("template path %q is not a valid glob", t.Path), "groups", gi, "templates", strconv.Itoa(j), "path")
			}
			for k, vals := range t.Matrix {
				if len(vals) == 0 {
					return fail(fmt.Sprintf("matrix key %q has no values", k), "groups", gi, "templates", strconv.Itoa(j), "matrix", k)
				}
			}
		}
		for k, vals := range g.Matrix {
			if len(vals) == 0 {
				return fail(fmt.Sprintf("matrix key %q has no values", k), "groups", gi, "matrix", k)
			}
		}
		for j, ex := range g.Exclude {
			if !validGlob(ex) {
				return fail(fmt.Sprintf("exclude %q is not a valid glob", ex), "groups", gi, "exclude", strconv.Itoa(j))
			}
		}
	}
	if r := c.Restore; r != nil {
		if r.Section != nil && r.Command != "" {
			return fail("restore: give section or command, not both", "restore", "command")
		}
		if r.Section == nil && r.Command == "" {
			return fail("restore: give a section (start and end) or a command", "restore")
		}
		if r.Section != nil {
			for _, k := range []string{"start", "end"} {
				v := r.Section.Start
				if k == "end" {
					v = r.Section.End
				}
				if v == "" {
					return fail("restore.section."+k+" is empty", "restore", "section")
				}
				if _, err := regexp.Compile(v); err != nil {
					return fail(fmt.Sprintf("restore.section.%s is not a valid regular expression: %v", k, err), "restore", "section", k)
				}
			}
		}
		if r.Template == "" {
			return fail("restore.template is empty", "restore")
		}
		// The default block names datasmith's template; where the groups
		// do not have it, the restore check looks for the step itself.
		if _, _, err := c.ResolveTemplate(r.Template); err != nil && r.Explicit {
			return fail("restore.template: "+err.Error(), "restore", "template")
		}
		for j, p := range r.Patterns {
			if _, err := regexp.Compile(p); err != nil {
				return fail(fmt.Sprintf("restore pattern %q is not a valid regular expression: %v", p, err), "restore", "patterns", strconv.Itoa(j))
			}
		}
		if !oneOf(r.RefusalExit, "", RefusalExitAny, RefusalExitZero, RefusalExitNonzero) {
			return fail(fmt.Sprintf("restore.refusal_exit %q is not any, zero or nonzero", r.RefusalExit), "restore", "refusal_exit")
		}
		if !oneOf(r.Fallback, "", FallbackRefuse, FallbackBaseCommit) {
			return fail(fmt.Sprintf("restore.fallback %q is not refuse or base_commit", r.Fallback), "restore", "fallback")
		}
		for j, p := range r.Released {
			if _, err := path.Match(strings.TrimSuffix(p, "/"), ""); err != nil || strings.TrimSuffix(p, "/") == "" {
				return fail(fmt.Sprintf("restore.released %q is not a path or a valid glob", p), "restore", "released", strconv.Itoa(j))
			}
		}
		if r.Random.Count < 0 {
			return fail("restore.random.count is negative", "restore", "random", "count")
		}
	}
	if p := c.Pytest; p != nil {
		for i, s := range p.Suites {
			si := strconv.Itoa(i)
			if s.Name == "" {
				return fail("a pytest suite needs a name", "pytest", "suites", si)
			}
			if len(s.Files) == 0 {
				return fail(fmt.Sprintf("pytest suite %q lists no files", s.Name), "pytest", "suites", si)
			}
			for j, t := range s.Triggers {
				if !validGlob(t) {
					return fail(fmt.Sprintf("trigger %q is not a valid glob", t), "pytest", "suites", si, "triggers", strconv.Itoa(j))
				}
			}
		}
		if r := p.Runner; r != nil {
			if r.Template == "" {
				return fail("pytest.runner needs a template", "pytest", "runner")
			}
			if _, _, err := c.ResolveTemplate(r.Template); err != nil {
				return fail("pytest.runner.template: "+err.Error(), "pytest", "runner", "template")
			}
		}
	}
	if err := c.validateArchive(fail); err != nil {
		return err
	}
	if err := c.validateLedger(fail); err != nil {
		return err
	}
	if err := c.validateCopy(fail); err != nil {
		return err
	}
	if err := c.validateLimits(fail); err != nil {
		return err
	}
	if err := c.validateTaint(fail); err != nil {
		return err
	}
	if err := c.validateDescription(fail); err != nil {
		return err
	}
	if err := c.validateSync(fail); err != nil {
		return err
	}
	if err := c.validateNames(fail); err != nil {
		return err
	}
	for j, b := range c.Gate.Branches {
		if !validGlob(b) {
			return fail(fmt.Sprintf("gate branch %q is not a valid glob", b), "gate", "branches", strconv.Itoa(j))
		}
	}
	return nil
}

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// lineOf walks a mapping/sequence node tree along keyPath (mapping keys, or
// decimal indices for sequences) and returns the line of the deepest node
// found; 0 when even the first key is missing.
func lineOf(n *yaml.Node, keyPath ...string) int {
	line := 0
	for _, k := range keyPath {
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					line = n.Content[i].Line
					next = n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(k); err == nil && i < len(n.Content) {
				next = n.Content[i]
				line = next.Line
			}
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}
