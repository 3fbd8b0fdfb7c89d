package benchgen

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// row is what one head's pull request must conclude, and why: the check
// whose result decides, and a part of its title (or summary).
type row struct {
	head    string
	overall checks.Conclusion
	check   string
	reason  string
}

// table has one row per head (heads/NAME.patch). Keep it in name order.
var table = []row{
	{"grader-bash-syntax-error", checks.Failure, "render", "bash -n"},
	{"grader-comment-only", checks.Success, "render", ""},
	{"grader-drops-score-line", checks.Failure, "pytest", "test_grader_writes_the_score_file"},
	{"grader-undefined-variable", checks.Failure, "render", "bench_name"},
	{"grader-warmup-unguarded", checks.Failure, "render", "warmup=null"},
	{"helper-copied-change", checks.Success, "pytest", ""},
	{"jinja-next-to-render-module", checks.NotRun, "render", verify.UncoveredTitle},
	{"prompt-goal-optional", checks.Failure, "render", "goal=null"},
	{"prompt-wording", checks.Success, "render", ""},
	// The restore step has its own names, keys, paths and pattern list,
	// and no config names it: the restore check finds and learns it.
	{"restore-breaks-spaces", checks.Failure, "restore", "do not match the model"},
	{"restore-grader-only-pattern", checks.Failure, "sync", "Copies differ"},
	{"restore-keeps-added", checks.Failure, "restore", "report.put_back misses"},
	{"restore-protects-data", checks.Success, "restore", "adds 1 and removes 0 restore patterns"},
	{"template-outside-root", checks.NotRun, "render", verify.UncoveredTitle},
	{"templates-moved", checks.Success, "render", ""},
}

var (
	buildOnce sync.Once
	built     *Built
	buildErr  error
)

// repo builds the repository once for every test of the package.
func repo(t *testing.T) *Built {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "benchgen-")
		if err != nil {
			buildErr = err
			return
		}
		built, buildErr = Build(context.Background(), dir)
	})
	if buildErr != nil {
		t.Fatalf("build benchgen: %v", buildErr)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != nil {
		_ = os.RemoveAll(built.Dir)
	}
	os.Exit(code)
}

// needPython skips the test when Debian's python3 cannot run the helpers
// and the suite (jinja2 and pytest).
func needPython(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import jinja2, pytest").Run(); err != nil {
		t.Skipf("/usr/bin/python3 cannot import jinja2 and pytest: %v", err)
	}
}

func TestEveryHeadHasARow(t *testing.T) {
	var names []string
	for _, r := range table {
		names = append(names, r.head)
	}
	if heads := HeadNames(); !slices.Equal(heads, names) {
		t.Fatalf("heads/ holds %v, the table rows %v: add a row per head, in name order", heads, names)
	}
}

// TestVerdicts verifies each head as a pull request against main, without
// a config file, and checks the overall verdict and the result that
// decides it.
func TestVerdicts(t *testing.T) {
	needPython(t)
	b := repo(t)
	for _, r := range table {
		t.Run(r.head, func(t *testing.T) {
			t.Parallel()
			opts := verify.Options{RepoDir: b.Dir, Base: BaseBranch, Head: r.head}
			// A prompt head leaves the restore step as it was: the restore
			// check runs too, and must skip without running a scenario.
			prompt := strings.HasPrefix(r.head, "prompt-")
			if r.check != "restore" && !prompt {
				// The rows that restore decides verify the restore step; the
				// other heads run every other check (a restore run of each
				// would cost the table minutes of CPU, and its result would
				// not be asserted: restore-grader-only-pattern fails by sync,
				// with the grader change that restore-protects-data verifies).
				for _, c := range verify.DefaultChecks() {
					if c.Name() != "restore" {
						opts.Only = append(opts.Only, c.Name())
					}
				}
			}
			rep, err := verify.Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(summary(rep))
			if rep.Overall != r.overall {
				t.Errorf("overall %s, want %s\n%s", rep.Overall, r.overall, summary(rep))
			}
			res, ok := result(rep, r.check)
			if !ok {
				t.Fatalf("no %s result\n%s", r.check, summary(rep))
			}
			if r.overall != checks.Success && res.Conclusion != r.overall {
				t.Errorf("%s: %s, want %s\n%s", r.check, res.Conclusion, r.overall, summary(rep))
			}
			if r.overall == checks.Success && res.Conclusion != checks.Success {
				t.Errorf("%s: %s, want it to run and pass\n%s", r.check, res.Conclusion, summary(rep))
			}
			if !strings.Contains(text(res), r.reason) {
				t.Errorf("%s does not say %q\n%s", r.check, r.reason, summary(rep))
			}
			if prompt {
				if res, ok := result(rep, "restore"); !ok || res.Conclusion != checks.Skipped || !strings.Contains(res.Summary, "No scenario ran") {
					t.Errorf("restore: %s, want skipped for a step the PR does not change\n%s", res.Conclusion, summary(rep))
				}
			}
		})
	}
}

func result(rep *report.Report, check string) (checks.Result, bool) {
	for _, r := range rep.Results {
		if r.Check == check {
			return r, true
		}
	}
	return checks.Result{}, false
}

// text is everything a result says: title, summary and findings.
func text(r checks.Result) string {
	parts := []string{r.Title, r.Summary, r.Details}
	for _, f := range r.Findings {
		parts = append(parts, f.Title, f.Message, f.Details)
	}
	return strings.Join(parts, "\n")
}

func summary(rep *report.Report) string {
	var b strings.Builder
	for _, r := range rep.Results {
		b.WriteString(string(r.Check) + ": " + string(r.Conclusion) + ": " + r.Title + "\n")
		for _, f := range r.Findings {
			if f.Level == checks.LevelFailure {
				b.WriteString("  - " + f.Path + ": " + firstLine(f.Message) + "\n")
			}
		}
	}
	for _, n := range rep.Notes {
		b.WriteString("note: " + n + "\n")
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
