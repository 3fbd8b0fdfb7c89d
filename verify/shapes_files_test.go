package verify

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/synccheck"
	"github.com/formula-code/template-verify/checks/taint"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/internal/jinja"
)

// A protected list kept twice in plain files of a generated repository,
// in one of the formats the sync check reads. Neither file is a template.

// protectedItems is the list both copies hold at the base.
var protectedItems = []string{"tests/", "benchmarks/", "asv.conf.json"}

// listFormats write a list in a plain file: the path and the text.
var listFormats = []struct {
	name  string
	write func(items []string) (string, string)
}{
	{"lines", func(items []string) (string, string) {
		return "data/protected.txt", "# paths the grader restores\n" + strings.Join(items, "\n") + "\n"
	}},
	{"python frozenset", func(items []string) (string, string) {
		return "pkg/gates.py", "PROTECTED: frozenset[str] = frozenset(\n    {\n        \"" + strings.Join(items, "\",\n        \"") + "\",\n    }\n)\n"
	}},
	{"yaml", func(items []string) (string, string) {
		return "ci/protected.yml", "paths:\n  - '" + strings.Join(items, "'\n  - '") + "'\n"
	}},
	{"json", func(items []string) (string, string) {
		return "ci/protected.json", "{\"protected\": [\"" + strings.Join(items, "\", \"") + "\"]}\n"
	}},
	{"toml", func(items []string) (string, string) {
		return "pyproject.toml", "[tool.grader]\nprotected = [\"" + strings.Join(items, "\", \"") + "\"]\n"
	}},
	{"case globs", func(items []string) (string, string) {
		return "scripts/keep.sh", "#!/bin/bash\nwhile read -r f; do\n  case \"$f\" in\n    " + strings.Join(items, "|") + ") git checkout -- \"$f\" ;;\n  esac\ndone\n"
	}},
	{"markers", func(items []string) (string, string) {
		return "docs/GRADER.md", "# Grader\n<!-- BEGIN protected -->\n- `" + strings.Join(items, "`\n- `") + "`\n<!-- END protected -->\n"
	}},
}

// fileBug is a change of the head and the verdict one check must give.
type fileBug struct {
	name  string
	check string
	want  checks.Conclusion
	// reason is a text a failure finding must hold.
	reason string
}

// TestGeneratedShapesFollowRepositoryFiles makes the repositories of
// TestGeneratedShapes (same seed and count) with two plain copies of one
// list in two random formats, and seeds the bugs of the sync and taint
// checks that follow the repository's own files: a copy drift between two
// plain files (and the same change to both, which is clean), and a skip
// flag read after a source of a file under a home folder or of a system
// file (no path is special).
func TestGeneratedShapesFollowRepositoryFiles(t *testing.T) {
	if _, _, ok := jinja.FindPython(context.Background()); !ok {
		t.Skip("no python3 with jinja2")
	}
	rng := rand.New(rand.NewPCG(*shapeSeed, 37))
	shapes := randomShapes(rng, *shapeCount)
	bugs := []fileBug{
		{"copy drift between two plain files", synccheck.Name, checks.Failure, "were equal at the base"},
		{"both plain copies changed alike", synccheck.Name, checks.Success, ""},
		{"flag read after a home-folder source", taint.Name, checks.Failure, "SKIP_GRADE"},
	}
	type row struct{ shape, formats, bug, got, title string }
	rows := make([][]row, len(shapes))
	for i, s := range shapes {
		fa := rng.IntN(len(listFormats))
		fb := (fa + 1 + rng.IntN(len(listFormats)-1)) % len(listFormats)
		a, b := listFormats[fa], listFormats[fb]
		formats := a.name + " + " + b.name
		// A literal path: an unknown one ($HOME) was always the agent's.
		sourced := []string{"/home/agent/.grader_env", "/root/.profile", "/opt/conda/etc/profile.d/conda.sh"}[rng.IntN(3)]
		t.Run(s.String()+"/"+formats, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			base := s.files()
			pa, ta := a.write(protectedItems)
			pb, tb := b.write(protectedItems)
			base[pa], base[pb] = ta, tb
			r.Write(base)
			r.Commit("base")
			grown := append(slices.Clone(protectedItems), "conftest.py")
			for k, bug := range bugs {
				head := fmt.Sprintf("bug-%d", k)
				r.Git("checkout", "-q", "-b", head, "main")
				switch k {
				case 0:
					_, text := a.write(grown)
					r.Write(map[string]string{pa: text})
				case 1:
					_, text := a.write(grown)
					_, other := b.write(grown)
					r.Write(map[string]string{pa: text, pb: other})
				case 2:
					name := "pkg/templates/grade.sh" + s.suffix
					r.Write(map[string]string{name: strings.Replace(base[name], "set -euo pipefail\n",
						"set -euo pipefail\nsource "+sourced+" || true\nif [ \"${SKIP_GRADE:-0}\" = 1 ]; then exit 0; fi\n", 1)})
				}
				r.Commit("head: " + bug.name)
				rep, err := Run(context.Background(), Options{RepoDir: r.Dir(), Base: "main", Head: head, Only: []string{bug.check}})
				if err != nil {
					t.Fatal(err)
				}
				got, ok := find(rep.Results, bug.check)
				if !ok {
					t.Fatalf("%s: no %s result; notes %q", bug.name, bug.check, rep.Notes)
				}
				rows[i] = append(rows[i], row{s.String(), formats + "; " + sourced, bug.name, string(got.Conclusion), got.Title})
				failed := got.Conclusion == checks.Failure
				if failed != (bug.want == checks.Failure) || got.Conclusion == checks.NotRun {
					t.Errorf("%s: %s %s (%s), want %s\n%s", bug.name, bug.check, got.Conclusion, got.Title, bug.want, got.Summary)
				}
				if bug.reason == "" {
					continue
				}
				if !slices.ContainsFunc(got.Findings, func(f checks.Finding) bool {
					text := f.Title + " " + f.Message + " " + f.Details
					return f.Level == checks.LevelFailure && strings.Contains(text, bug.reason) &&
						(bug.check != synccheck.Name || strings.Contains(text, pa) && strings.Contains(text, pb))
				}) {
					t.Errorf("%s: no failure finding names %q (and both files): %+v", bug.name, bug.reason, got.Findings)
				}
			}
		})
	}
	t.Cleanup(func() {
		var b strings.Builder
		counts := map[string]int{}
		for _, rs := range rows {
			for _, r := range rs {
				fmt.Fprintf(&b, "%-28s %-50s %-38s %-8s %s\n", r.shape, r.formats, r.bug, r.got, r.title)
				counts[r.got]++
			}
		}
		t.Logf("%d shapes x %d changes (seed %d): %v\n%s", len(shapes), len(bugs), *shapeSeed, counts, b.String())
	})
}
