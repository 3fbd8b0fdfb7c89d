package taint

import (
	"context"
	"fmt"
	"maps"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
)

// renderScripts renders every changed shell template for every variable
// set, at head and at the merge base, in one render worker, and analyses
// each. It is long (about 100 lines): it builds the one render request
// for every side and set, then reads the answers back in the same order;
// the two halves share the index bookkeeping.
func renderScripts(ctx context.Context, in *checks.Input, st settings) (heads, bases []*script, notes []string, unanalysed []checks.Finding, err error) {
	lim := in.Config.Limits.Effective()
	r := jinja.NewRenderer(jinja.LimitsOf(lim))
	defer r.Close()
	envs := map[[2]string]*jinja.Env{}
	envFor := func(rev string, g *config.Group) (*jinja.Env, error) {
		k := [2]string{rev, g.Name}
		if e, ok := envs[k]; ok {
			return e, nil
		}
		files, err := in.Plan.Trees.GroupFiles(ctx, rev, g)
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", g.Root, rev, err)
		}
		links, err := in.Plan.Trees.Symlinks(ctx, rev, g.Root)
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", g.Root, rev, err)
		}
		regular := make(map[string][]byte, len(files))
		for p, data := range files {
			if _, isLink := links[p]; !isLink && len(data) <= lim.RenderOutput {
				regular[p] = data
			}
		}
		e, err := jinja.NewSearchEnv(regular, g.Root, g.Search, g.Jinja)
		if err != nil {
			return nil, err
		}
		envs[k] = e
		return e, nil
	}
	failed := 0
	templates := in.Plan.Templates
	if len(templates) > lim.Templates {
		templates = templates[:lim.Templates]
		notes = append(notes, fmt.Sprintf("Only the first %d templates were analysed (limits.templates).", lim.Templates))
	}
	for _, t := range templates {
		g, ok := in.Config.Group(t.Group)
		if !ok {
			continue
		}
		entries := g.TemplateFor(t.Rel)
		if len(entries) == 0 {
			entries = g.TemplateFor(t.OldRel)
		}
		if len(entries) == 0 {
			continue
		}
		entry := entries[0]
		sets, _ := g.VarSetsUpTo(entry, lim.VarSets)
		for _, side := range []struct {
			at  bool
			rev string
			rel string
			out *[]*script
		}{{t.AtHead(), in.Plan.Head, t.Rel, &heads}, {t.AtBase(), in.Plan.MergeBase, t.OldRel, &bases}} {
			if !side.at {
				continue
			}
			e, err := envFor(side.rev, g)
			if err != nil {
				return nil, nil, notes, unanalysed, err
			}
			// Render every set first: a name that one render assigns is
			// the script's own in all of them (a Jinja branch may leave
			// the assignment out of another render).
			type rendered struct {
				set config.VarSet
				out string
			}
			var outs []rendered
			own := map[string]bool{}
			for _, set := range sets {
				out, err := r.Render(ctx, e, side.rel, set.Vars)
				if err != nil {
					failed++
					continue
				}
				if !checks.IsShell(entry, side.rel, out) {
					break
				}
				outs = append(outs, rendered{set, out})
				maps.Copy(own, OwnNames(out))
			}
			for _, ro := range outs {
				set, out := ro.set, ro.out
				an, err := AnalyzeOwn(out, st.writable, own)
				if err != nil {
					if an == nil {
						if side.rev == in.Plan.Head {
							unanalysed = append(unanalysed, checks.Finding{Path: t.Path, Level: checks.LevelWarning,
								Title:   "The script was not analysed",
								Message: fmt.Sprintf("Variable set %s: %v.", set.Name, err)})
						}
						continue
					}
					notes = append(notes, fmt.Sprintf("%s (%s): %v", t.Path, set.Name, err))
				}
				src, _ := e.Source(side.rel)
				*side.out = append(*side.out, &script{tmpl: t, set: set.Name, text: out, src: src, an: an})
			}
		}
		if err := ctx.Err(); err != nil {
			return heads, bases, notes, unanalysed, err
		}
	}
	if failed > 0 {
		notes = append(notes, fmt.Sprintf("%s did not render or parse as bash; the render check reports them, and this check did not analyse them.", plural(failed, "script")))
	}
	return heads, bases, notes, unanalysed, nil
}
