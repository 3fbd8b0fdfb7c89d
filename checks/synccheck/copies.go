package synccheck

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/rendertemplate"
)

// resolve returns the repository path of a copy and, for a template, its
// group and loader name.
func resolve(cfg *config.Config, cp config.SyncCopy) (string, *config.Group, string, error) {
	if strings.Contains(cp.Path, ":") {
		g, rel, err := cfg.ResolveTemplate(cp.Path)
		if err != nil {
			return "", nil, "", fmt.Errorf("copy %s: %w", cp.Path, err)
		}
		return path.Join(g.Root, rel), g, rel, nil
	}
	if g, rel, ok := cfg.GroupOf(cp.Path); ok && len(g.TemplateFor(rel)) > 0 {
		return cp.Path, g, rel, nil
	}
	return cp.Path, nil, "", nil
}

// side reads every copy of g at rev. groups resolves template groups (the
// configuration of that commit); sync is the configuration of the groups.
func (c *Check) side(ctx context.Context, in *checks.Input, r *jinja.Renderer, groups, sync *config.Config, g config.SyncGroup, rev string) side {
	var s side
	for _, cp := range g.Copies {
		s.states = append(s.states, c.read(ctx, in, r, groups, sync, cp, rev))
	}
	if s.usable() {
		s.lacks = compare(g, s.states)
	}
	return s
}

// read extracts one copy at rev.
func (c *Check) read(ctx context.Context, in *checks.Input, r *jinja.Renderer, groups, sync *config.Config, cp config.SyncCopy, rev string) copyState {
	repoPath, g, rel, err := resolve(groups, cp)
	if err != nil {
		if repoPath, g, rel, err = resolve(sync, cp); err != nil {
			return copyState{path: cp.Path, broken: err.Error()}
		}
	}
	st := copyState{path: repoPath}
	lim := in.Config.Limits.Effective()
	dir := repoPath
	if g != nil {
		dir = g.Root
	}
	if g == nil {
		// A plain copy is one file: a folder would read every file under it.
		entries, err := in.Plan.Trees.Repo.ListTree(ctx, rev, repoPath)
		if err != nil {
			st.broken = fmt.Sprintf("%s cannot be read: %v", repoPath, err)
			return st
		}
		if len(entries) > 0 && !slices.ContainsFunc(entries, func(e gitx.Entry) bool { return e.Path == repoPath }) {
			st.broken = fmt.Sprintf("%s is a folder, not a file", repoPath)
			return st
		}
	}
	var files map[string][]byte
	if g != nil {
		files, err = in.Plan.Trees.GroupFiles(ctx, rev, g)
	} else {
		files, err = in.Plan.Trees.Get(ctx, rev, dir)
	}
	if err != nil {
		st.broken = fmt.Sprintf("%s cannot be read: %v", repoPath, err)
		return st
	}
	links, _ := in.Plan.Trees.Symlinks(ctx, rev, dir)
	src, ok := files[repoPath]
	switch {
	case !ok:
		st.missing = fmt.Sprintf("%s is not in the repository", repoPath)
		return st
	case links[repoPath] != "":
		st.broken = fmt.Sprintf("%s is a symbolic link to %q; it is not followed", repoPath, links[repoPath])
		return st
	case len(src) > lim.RenderOutput:
		st.broken = fmt.Sprintf("%s is %d bytes, more than limits.render_output (%d)", repoPath, len(src), lim.RenderOutput)
		return st
	}
	text := string(src)
	if g != nil && cp.JinjaDefault == "" {
		out, err := render(ctx, r, g, rel, files, links, cp.Vars, lim)
		if err != nil {
			st.broken = fmt.Sprintf("%s does not render: %v", repoPath, err)
			return st
		}
		text, st.rendered = out, true
	}
	var items []Item
	switch cp.Extractor() {
	case "bash":
		items, err = BashArray(text, cp.Bash)
	case "python":
		items, err = PythonList(text, cp.Python)
	case "jinja_default":
		items, err = JinjaDefault(text, cp.JinjaDefault)
	case "between":
		items, err = Between(text, cp.Between.Start, cp.Between.End)
	case "yaml":
		items, err = DataList(text, "yaml", cp.YAML)
	case "json":
		items, err = DataList(text, "json", cp.JSON)
	case "toml":
		items, err = DataList(text, "toml", cp.TOML)
	}
	if err != nil {
		if errors.Is(err, errNotFound) {
			st.missing = fmt.Sprintf("%s has %s", repoPath, strings.TrimSuffix(err.Error(), ": "+errNotFound.Error()))
		} else {
			st.broken = fmt.Sprintf("%s: %v", repoPath, err)
		}
		return st
	}
	if st.rendered {
		items = sourceLines(items, text, string(src))
	}
	st.items = items
	return st
}

// render renders one template with its first variable set and vars on top,
// in a render worker. Symbolic links and files past the output limit are
// left out of the loader, as the render check does.
func render(ctx context.Context, r *jinja.Renderer, g *config.Group, rel string, files map[string][]byte, links map[string]string, over map[string]any, lim config.Limits) (string, error) {
	regular := make(map[string][]byte, len(files))
	for p, data := range files {
		if _, isLink := links[p]; !isLink && len(data) <= lim.RenderOutput {
			regular[p] = data
		}
	}
	env, err := jinja.NewSearchEnv(regular, g.Root, g.Search, g.Jinja)
	if err != nil {
		return "", fmt.Errorf("environment: %w", err)
	}
	out, err := r.Render(ctx, env, rel, rendertemplate.FirstVars(g, rel, over))
	if err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	return out, nil
}

// sourceLines moves the line of each item of a rendered template to the
// line of the template source with the same text, when there is exactly
// one; otherwise the line is unknown (0).
func sourceLines(items []Item, rendered, source string) []Item {
	rl := strings.Split(rendered, "\n")
	byText := map[string][]int{}
	for i, l := range strings.Split(source, "\n") {
		t := strings.TrimSpace(l)
		byText[t] = append(byText[t], i+1)
	}
	out := make([]Item, len(items))
	for i, it := range items {
		out[i] = Item{Value: it.Value}
		if it.Line >= 1 && it.Line <= len(rl) {
			if ls := byText[strings.TrimSpace(rl[it.Line-1])]; len(ls) == 1 {
				out[i].Line = ls[0]
			}
		}
	}
	return out
}
