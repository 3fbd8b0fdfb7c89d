package verify

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/render"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/internal/jinja"
)

var (
	shapeCount = flag.Int("shapes", 6, "repository shapes TestGeneratedShapes makes")
	shapeSeed  = flag.Uint64("shape-seed", 41, "seed of TestGeneratedShapes")
)

// shape is one way a repository renders its grader template: the loader,
// how the variables reach the render, the template's suffix, and where
// its tests live.
type shape struct {
	loader string // folder, list, search (two folders), choice, package, text
	vars   string // kwargs, dict, asdict, attrs
	suffix string // "" or ".j2"
	tests  string // tests, test, checks (pytest.ini testpaths), pyproject (python_files check_*.py under spec/)
}

func (s shape) String() string {
	suffix := "none"
	if s.suffix != "" {
		suffix = s.suffix
	}
	return fmt.Sprintf("%s/%s/%s/%s", s.loader, s.vars, suffix, s.tests)
}

// seededBug is a change of the head and the verdict the render check must
// give it.
type seededBug struct {
	name string
	// edit turns the base template into the head's; p is the prefix of a
	// variable ("spec." when the template reads attributes).
	edit func(tmpl, p string) string
	want checks.Conclusion
	// reason is a text a failure finding must hold: the bug is caught
	// for its reason, not by chance.
	reason string
}

var seededBugs = []seededBug{
	{"clean change", func(tmpl, p string) string {
		return strings.Replace(tmpl, `echo "task`, `echo "the task`, 1)
	}, checks.Success, ""},
	// The tests render only run_pytest=True: the other branch is reached
	// only through the variant that the bool's type gives.
	{"undefined name in one branch", func(tmpl, p string) string {
		return strings.Replace(tmpl, "echo skip", "echo skip {{ "+p+"missing_name }}", 1)
	}, checks.Failure, "missing_name"},
	{"bash error for one value", func(tmpl, p string) string {
		return strings.Replace(tmpl, "echo skip", "if then", 1)
	}, checks.Failure, "bash -n"},
	{"Python None in a shell word", func(tmpl, p string) string {
		return strings.Replace(tmpl, `echo "task`, "export ROUNDS={{ "+p+"rounds }}\necho \"task", 1)
	}, checks.Failure, "None"},
}

// files returns the repository of s at the base: render code, the
// template, and a test that renders it with run_pytest=True only.
func (s shape) files() map[string]string {
	p := ""
	if s.vars == "attrs" {
		p = "spec."
	}
	include := ""
	if s.loader == "search" {
		include = "{% include 'common.sh' %}\n"
	}
	tmpl := "#!/usr/bin/env bash\nset -euo pipefail\n" + include + "echo \"task {{ " + p + "task }}\"\n{% if " + p + "run_pytest %}\npython -m pytest -q\n{% else %}\necho skip\n{% endif %}\n"
	name := "grade.sh" + s.suffix
	files := map[string]string{
		"pkg/__init__.py":           "",
		"pkg/templates/" + name:     tmpl,
		"pkg/templates/README.md":   "The grader's templates.\n",
		"README.md":                 "A repository of shape " + s.String() + ".\n",
		s.tests + "/test_render.py": "from pkg.render import Spec, render\n\n\ndef test_grader_renders():\n    assert 'task t-1' in render(Spec(task='t-1'))\n",
		"pkg/render.py":             s.renderCode(name),
	}
	if s.loader == "search" {
		// The include resolves in the second folder of the search path.
		files["pkg/shared/common.sh"] = "cd /workspace/repo\n"
	}
	switch s.tests {
	case "checks":
		files["pytest.ini"] = "[pytest]\ntestpaths = checks\n"
	case "pyproject":
		// Tests named as pytest.ini's python_files says, not test_*.py.
		files["spec/check_render.py"] = files[s.tests+"/test_render.py"]
		delete(files, s.tests+"/test_render.py")
		files["pyproject.toml"] = "[tool.pytest.ini_options]\ntestpaths = [\"spec\"]\npython_files = [\"check_*.py\"]\n"
	}
	return files
}

func (s shape) renderCode(name string) string {
	var b strings.Builder
	b.WriteString("from dataclasses import asdict, dataclass\nfrom pathlib import Path\nfrom typing import Optional\n\nimport jinja2\n\nHERE = Path(__file__).parent\n")
	b.WriteString("\n\n@dataclass\nclass Spec:\n    task: str\n    run_pytest: bool = True\n    rounds: Optional[int] = None\n\n\n")
	opts := "undefined=jinja2.StrictUndefined, keep_trailing_newline=True"
	switch s.loader {
	case "folder":
		fmt.Fprintf(&b, "ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / 'templates')), %s)\n", opts)
	case "list":
		fmt.Fprintf(&b, "ENV = jinja2.Environment(loader=jinja2.FileSystemLoader([HERE / 'templates']), %s)\n", opts)
	case "search":
		fmt.Fprintf(&b, "ENV = jinja2.Environment(loader=jinja2.FileSystemLoader([HERE / 'templates', HERE / 'shared']), %s)\n", opts)
	case "choice":
		fmt.Fprintf(&b, "ENV = jinja2.Environment(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(HERE / 'templates'))]), %s)\n", opts)
	case "package":
		fmt.Fprintf(&b, "ENV = jinja2.Environment(loader=jinja2.PackageLoader('pkg', 'templates'), %s)\n", opts)
	case "text":
		fmt.Fprintf(&b, "ENV = jinja2.Environment(%s)\n", opts)
	}
	load := fmt.Sprintf("ENV.get_template(%q)", name)
	if s.loader == "text" {
		load = fmt.Sprintf("ENV.from_string((HERE / 'templates' / %q).read_text())", name)
	}
	b.WriteString("\n\ndef render(spec: Spec) -> str:\n")
	switch s.vars {
	case "kwargs":
		fmt.Fprintf(&b, "    return %s.render(task=spec.task, run_pytest=spec.run_pytest, rounds=spec.rounds)\n", load)
	case "dict":
		fmt.Fprintf(&b, "    ctx = {'task': spec.task, 'run_pytest': spec.run_pytest, 'rounds': spec.rounds}\n    return %s.render(**ctx)\n", load)
	case "asdict":
		fmt.Fprintf(&b, "    return %s.render(**asdict(spec))\n", load)
	case "attrs":
		fmt.Fprintf(&b, "    return %s.render(spec=spec)\n", load)
	}
	return b.String()
}

// randomShapes draws n different shapes.
func randomShapes(rng *rand.Rand, n int) []shape {
	var shapes []shape
	for len(shapes) < n {
		if s := randomShape(rng); !slices.Contains(shapes, s) {
			shapes = append(shapes, s)
		}
	}
	return shapes
}

func randomShape(rng *rand.Rand) shape {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	return shape{
		loader: pick("folder", "list", "search", "choice", "package", "text"),
		vars:   pick("kwargs", "dict", "asdict", "attrs"),
		suffix: pick("", ".j2"),
		tests:  pick("tests", "test", "checks", "pyproject"),
	}
}

// TestGeneratedShapes makes repositories of random shapes (a fixed seed;
// -shapes and -shape-seed make more), with no config file, and seeds each
// bug into the head of each: the render check must catch every bug for
// its reason, stay quiet on the clean change, and never be "not run" on a
// shape whose tests render the template. The variables come from the
// renders the repository's own test makes, and the other branch of the
// bool from its type.
func TestGeneratedShapes(t *testing.T) {
	if _, _, ok := jinja.FindPython(context.Background()); !ok {
		t.Skip("no python3 with jinja2")
	}
	shapes := randomShapes(rand.New(rand.NewPCG(*shapeSeed, 0)), *shapeCount)
	type row struct {
		shape, bug string
		got        checks.Conclusion
		title      string
	}
	rows := make([][]row, len(shapes))
	for i, s := range shapes {
		t.Run(s.String(), func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			base := s.files()
			r.Write(base)
			r.Commit("base")
			for k, bug := range seededBugs {
				got := runShape(t, r, s, base, k)
				rows[i] = append(rows[i], row{s.String(), bug.name, got.Conclusion, got.Title})
				if got.Conclusion != bug.want {
					t.Errorf("%s: render %s (%s), want %s\n%s", bug.name, got.Conclusion, got.Title, bug.want, got.Summary)
				}
				if bug.reason != "" && !slices.ContainsFunc(got.Findings, func(f checks.Finding) bool {
					return f.Level == checks.LevelFailure && strings.Contains(f.Title+" "+f.Message+" "+f.Details, bug.reason)
				}) {
					t.Errorf("%s: no failure finding names %q: %+v", bug.name, bug.reason, got.Findings)
				}
			}
		})
	}
	t.Cleanup(func() {
		var b strings.Builder
		counts := map[string]int{}
		for _, rs := range rows {
			for _, r := range rs {
				fmt.Fprintf(&b, "%-32s %-30s %-8s %s\n", r.shape, r.bug, r.got, r.title)
				counts[string(r.got)]++
			}
		}
		t.Logf("%d shapes x %d changes (seed %d): %v\n%s", len(shapes), len(seededBugs), *shapeSeed, counts, b.String())
	})
}

// runShape commits bug k's head on a branch of its own from main (the
// shape's base, observed once for all bugs) and returns the render
// check's result of the change.
func runShape(t *testing.T, r *gittest.Repo, s shape, base map[string]string, k int) checks.Result {
	t.Helper()
	bug := seededBugs[k]
	head := fmt.Sprintf("bug-%d", k)
	r.Git("checkout", "-q", "-b", head, "main")
	p := ""
	if s.vars == "attrs" {
		p = "spec."
	}
	name := "pkg/templates/grade.sh" + s.suffix
	r.Write(map[string]string{name: bug.edit(base[name], p)})
	r.Commit("head: " + bug.name)
	rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: head, Only: []string{render.Name}})
	if err != nil {
		t.Fatal(err)
	}
	res, ok := find(rep.Results, render.Name)
	if !ok {
		t.Fatalf("no render result; notes %q", rep.Notes)
	}
	return res
}
