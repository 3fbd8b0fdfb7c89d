package examples

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/jinja"
)

// TestGonjaMatchesJinja2 renders every template of base and every head with
// internal/jinja (gonja) and with Python Jinja2, and compares the bytes. A
// render error must happen in both engines, and gonja's error must name the
// file and line of the undefined variable of the bad head.
func TestGonjaMatchesJinja2(t *testing.T) {
	t.Parallel()
	needPython(t, "jinja2")
	b := example(t)
	for _, r := range revs(b) {
		t.Run(r[0], func(t *testing.T) {
			t.Parallel()
			rr := revRenders(t)[r[0]]
			cfg, py := rr.cfg, rr.results
			files, err := gitx.Repo{Dir: b.Dir}.ReadTree(context.Background(), r[1], "")
			if err != nil {
				t.Fatal(err)
			}
			compared := 0
			for _, g := range cfg.Groups {
				env, err := jinja.NewEnv(files, g.Root, g.Jinja)
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range slices.Sorted(maps.Keys(env.Sources())) {
					entries := g.TemplateFor(name)
					if len(entries) == 0 {
						continue
					}
					for _, vs := range g.VarSets(entries[0]) {
						id := g.Name + ":" + name + "[" + vs.Name + "]"
						out, err := env.Render(name, vs.Vars)
						p, ok := py[id]
						switch {
						case !ok:
							t.Errorf("%s: Python did not render it", id)
						case (err == nil) != p.OK:
							t.Errorf("%s: gonja error %v, Python error %q", id, err, p.Err)
						case err != nil:
							src, _ := env.Source(name)
							before, _, _ := strings.Cut(src, "{{ skip_reason }}")
							line := strings.Count(before, "\n") + 1
							var je *jinja.Error
							if !errors.As(err, &je) || je.File != g.Root+"/"+name || je.Line != line || !strings.Contains(je.Msg, "skip_reason") {
								t.Errorf("%s: gonja error %v, want %s:%d and skip_reason", id, err, g.Root+"/"+name, line)
							}
						default:
							if same, detail := jinja.Compare(out, p.Out); !same {
								t.Errorf("%s: gonja and Jinja2 differ: %s", id, detail)
							}
						}
						compared++
					}
				}
			}
			if compared != len(py) {
				t.Errorf("gonja rendered %d templates and variable sets, Python %d", compared, len(py))
			}
		})
	}
}
