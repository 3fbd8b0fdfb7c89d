package verify

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// UncoveredTitle is the title of the render result when changed files
// look like templates and no group covers them.
const UncoveredTitle = "Changed files look like templates, but no template group covers them"

// maxUncoveredReads bounds the changed files whose content is read.
const maxUncoveredReads = 200

// jinjaExts are the names of files that are Jinja templates wherever
// they are.
var jinjaExts = []string{".j2", ".jinja", ".jinja2"}

// jinjaSyntax matches a Jinja expression or statement; "${{" (a GitHub
// Actions expression) is not one.
var jinjaSyntax = regexp.MustCompile(`(?:^|[^$])\{\{-?\s*[A-Za-z_][^{}\n]*\}\}|\{%-?\s*(?:if|for|set|include|import|from|macro|block|extends|filter|with|raw)\b`)

// uncovered returns, in path order, the files the change adds or modifies
// that look like templates and that no group of cfgs covers: a file named
// .j2, .jinja or .jinja2 anywhere, or a file with Jinja syntax next to a
// loader root (under the root's parent folder, the root included) or under
// the folder of a render module. A group covers a file under its root that
// a template entry selects, that it copies or excludes, or that a
// selected template includes.
func uncovered(ctx context.Context, p *plan.Plan, cfgs ...*config.Config) []string {
	var roots, near []string
	for _, c := range cfgs {
		if c == nil {
			continue
		}
		for _, g := range c.Groups {
			roots = append(roots, strings.TrimSuffix(g.Root, "/"))
		}
		if d := c.Derived; d != nil {
			for _, r := range d.Roots {
				near = append(near, path.Dir(r))
			}
			for _, f := range d.RenderFiles {
				near = append(near, path.Dir(f))
			}
		}
	}
	for _, r := range roots {
		near = append(near, path.Dir(r))
	}
	via := map[string]bool{} // included files a selected template renders
	for _, t := range p.Templates {
		for _, v := range t.Via {
			via[v] = true
		}
	}
	covered := func(f string) bool {
		for _, c := range cfgs {
			if c == nil {
				continue
			}
			if g, rel, ok := c.GroupOf(f); ok && (len(g.TemplateFor(rel)) > 0 || g.Copied(rel) || excluded(g, rel) || via[rel]) {
				return true
			}
		}
		return false
	}
	isNear := func(f string) bool {
		for _, n := range near {
			switch {
			case n == "." && !strings.Contains(f, "/"):
				return true
			case n != "." && strings.HasPrefix(f, n+"/"):
				return true
			}
		}
		return false
	}
	var out []string
	reads := 0
	for _, c := range p.Changed {
		if c.Status == 'D' || covered(c.Path) || strings.HasPrefix(c.Path, ".github/") {
			continue
		}
		if slices.Contains(jinjaExts, path.Ext(c.Path)) {
			out = append(out, c.Path)
			continue
		}
		if path.Ext(c.Path) == ".py" || !isNear(c.Path) || reads >= maxUncoveredReads {
			continue
		}
		reads++
		data, ok, err := p.Trees.File(ctx, p.Head, c.Path)
		if err == nil && ok && jinjaSyntax.Match(data) {
			out = append(out, c.Path)
		}
	}
	slices.Sort(out)
	return out
}

func excluded(g *config.Group, rel string) bool {
	for _, ex := range g.Exclude {
		if config.MatchGlob(ex, rel) {
			return true
		}
	}
	return false
}

// markUncovered makes the render result "not run" when files are
// uncovered: they look like templates and nothing verifies them. A render
// result that failed or timed out keeps its conclusion; the files are
// added to it either way. Without a render result one is added.
func markUncovered(results []checks.Result, files []string, cfgPath string) []checks.Result {
	if len(files) == 0 {
		return results
	}
	at := slices.IndexFunc(results, func(r checks.Result) bool { return r.Check == "render" })
	if at < 0 {
		results = append(results, checks.Result{Check: "render"})
		at = len(results) - 1
	}
	r := &results[at]
	msg := fmt.Sprintf("%d changed %s like %s, but no template group covers %s, so %s not verified: %s. %s",
		len(files), plural(len(files), "file looks", "files look"), plural(len(files), "a template", "templates"),
		plural(len(files), "it", "them"), plural(len(files), "it is", "they are"), "`"+strings.Join(files, "`, `")+"`", advice(files, cfgPath))
	for _, f := range files {
		r.Findings = append(r.Findings, checks.Finding{Path: f, Level: checks.LevelWarning, Title: "No template group covers this file",
			Message: fmt.Sprintf("%s looks like a template (a Jinja file name or Jinja syntax near a loader root), but no group's root holds it, so nothing renders or checks it.", f)})
	}
	if r.Conclusion != checks.Failure && r.Conclusion != checks.TimedOut {
		r.Conclusion = checks.NotRun
		r.Title = UncoveredTitle
		r.Summary = msg
	} else {
		r.Summary = strings.TrimSpace(r.Summary + "\n\n" + msg)
	}
	r.Notes = append(r.Notes, msg)
	return results
}

// advice says what to add to the config: a group per folder of the files.
func advice(files []string, cfgPath string) string {
	var dirs []string
	for _, f := range files {
		if d := path.Dir(f); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Name their folder as a loader root in %s, one group each, and keep the groups you have (a groups key replaces the built-in ones): ", cfgPath)
	for i, d := range dirs {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "`{name: %s, root: %s, jinja: {strict_undefined: true}, templates: [{path: \"**\", vars: {...}}]}`", groupNameOf(d), d)
	}
	b.WriteString(". A file under the root of a group needs a `templates:` entry whose path matches it, or a `copy:` or `exclude:` entry")
	b.WriteString(". Or render them from a jinja2.Environment whose FileSystemLoader names that folder.")
	return b.String()
}

func groupNameOf(dir string) string {
	if dir == "." {
		return "top"
	}
	return path.Base(dir)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
