package pytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/formula-code/template-verify/internal/nice"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// maxResult is the largest runner result file that is read.
const maxResult = 16 << 20

// defaultScenarioTimeout limits one runner scenario.
const defaultScenarioTimeout = 2 * time.Minute

// runnerSpec says how to run a pytest runner on a fixture project.
type runnerSpec struct {
	Python  string // absolute path of the interpreter
	Runner  string // file of the rendered runner
	Command string // with {python} {runner} {base} {result}
	Result  string // result file, relative to the project
	Timeout time.Duration
}

// scenarioResult is the verdict of one scenario.
type scenarioResult struct {
	Name      string
	Reported  []string // regression ids the runner reported
	Problems  []string // empty when the scenario passes
	Details   string   // the end of the runner's output, for a failure
	Sandboxed bool
}

// Passed reports whether the runner did what the scenario wants.
func (r scenarioResult) Passed() bool { return len(r.Problems) == 0 }

// runnerResult is the part of the result file the scenarios read.
type runnerResult struct {
	TestsRan   *bool `json:"tests_ran"`
	Regression *struct {
		Regressed  *[]string `json:"regressed"`
		NRegressed *int      `json:"n_regressed"`
	} `json:"regression"`
}

// runScenarios builds the fixture project once in dir, copies it for each
// scenario, and runs the scenarios in parallel up to the core count.
func runScenarios(ctx context.Context, spec runnerSpec, dir string, list []scenario) ([]scenarioResult, error) {
	if err := checkResultPath(spec.Result); err != nil {
		return nil, err
	}
	if err := checkPlaceholders(spec.Command); err != nil {
		return nil, err
	}
	baseDir := filepath.Join(dir, "fixture-base")
	base, err := buildFixture(ctx, baseDir)
	if err != nil {
		return nil, err
	}
	results := make([]scenarioResult, len(list))
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runScenario(ctx, spec, filepath.Join(dir, fmt.Sprintf("s%02d-%s", i, s.Name)), baseDir, base, s)
		}()
	}
	wg.Wait()
	return results, nil
}

// checkResultPath refuses a result file outside the fixture project.
func checkResultPath(p string) error {
	if p == "" || filepath.IsAbs(p) || !filepath.IsLocal(p) {
		return fmt.Errorf("pytest.runner.result %q must be a path inside the fixture project", p)
	}
	return nil
}

func runScenario(ctx context.Context, spec runnerSpec, dir, baseDir, base string, s scenario) scenarioResult {
	res := scenarioResult{Name: s.Name}
	fail := func(format string, a ...any) scenarioResult {
		res.Problems = append(res.Problems, fmt.Sprintf(format, a...))
		return res
	}
	project := filepath.Join(dir, "project")
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return fail("could not make the scenario folder: %v", err)
	}
	cp := exec.CommandContext(ctx, "cp", "-a", baseDir, project)
	cp.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"} // explicit, as every child's
	var cpOut bytes.Buffer
	cp.Stdout, cp.Stderr = &cpOut, &cpOut
	if err := nice.Run(cp); err != nil {
		return fail("could not copy the fixture: %v: %s", err, strings.TrimSpace(cpOut.String()))
	}
	if err := s.apply(ctx, project, base); err != nil {
		return fail("could not apply the agent change: %v", err)
	}
	// The runner is copied next to the project: the sandbox shows only the
	// scenario folder under a private /tmp.
	runnerSrc, err := os.ReadFile(spec.Runner)
	if err != nil {
		return fail("cannot read the runner: %v", err)
	}
	runnerFile := filepath.Join(dir, "runner", filepath.Base(spec.Runner))
	if err := os.MkdirAll(filepath.Dir(runnerFile), 0o755); err != nil {
		return fail("could not make the runner folder: %v", err)
	}
	if err := os.WriteFile(runnerFile, runnerSrc, 0o644); err != nil {
		return fail("could not write the runner: %v", err)
	}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"}
	if s.Flaky {
		env = append(env, "FC_FLAKY_MARKER="+filepath.Join(dir, "flaky-marker"))
	}
	cmd := expandCommand(spec.Command, map[string]string{
		"python": spec.Python, "runner": runnerFile, "base": base, "result": spec.Result,
	})
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = defaultScenarioTimeout
	}
	out := sandbox.Run(ctx, sandbox.Spec{
		Args:     []string{"bash", "-c", cmd},
		Dir:      project,
		Env:      env,
		Home:     home,
		Writable: []string{dir},
		Timeout:  timeout,
		Sandbox:  true,
	})
	res.Sandboxed = out.Sandboxed
	res.Details = sandbox.Tail(append(append([]byte{}, out.Stdout...), out.Stderr...), maxDetails)
	switch {
	case out.TimedOut:
		return fail("the runner ran past the time limit of %s", timeout)
	case out.Err != nil:
		return fail("the runner did not finish: %v", out.Err)
	}
	data, err := safefile.ReadIn(project, spec.Result, maxResult)
	if errors.Is(err, os.ErrNotExist) {
		return fail("the runner wrote no %s (exit code %d)", spec.Result, out.ExitCode)
	} else if err != nil {
		return fail("cannot read %s: %v", spec.Result, err)
	}
	var rr runnerResult
	if err := json.Unmarshal(data, &rr); err != nil {
		return fail("%s is not valid JSON: %v", spec.Result, err)
	}
	if rr.Regression == nil || rr.Regression.Regressed == nil {
		return fail("%s has no regression.regressed list", spec.Result)
	}
	res.Reported = slices.Clone(*rr.Regression.Regressed)
	slices.Sort(res.Reported)
	if rr.Regression.NRegressed == nil || *rr.Regression.NRegressed != len(res.Reported) {
		res.Problems = append(res.Problems, fmt.Sprintf("regression.n_regressed is not the length of regression.regressed (%d)", len(res.Reported)))
	}
	if rr.TestsRan == nil || !*rr.TestsRan {
		res.Problems = append(res.Problems, "the runner says that no tests ran (tests_ran is not true)")
	}
	for _, id := range slices.Sorted(maps.Keys(s.Want)) {
		if !slices.Contains(res.Reported, id) {
			res.Problems = append(res.Problems, fmt.Sprintf("the runner did not report %s: %s", id, s.Want[id]))
		}
	}
	for _, id := range res.Reported {
		if _, ok := s.Want[id]; ok {
			continue
		}
		hint := extraHints[id]
		if hint == "" {
			hint = "it is not a regression in this scenario"
		}
		res.Problems = append(res.Problems, fmt.Sprintf("the runner reported %s: %s", id, hint))
	}
	return res
}

var placeholderRe = regexp.MustCompile(`(^|[^$])\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// placeholders are the names pytest.runner.command may use.
var placeholders = []string{"python", "runner", "base", "result"}

// checkPlaceholders refuses an unknown {name} in the command, such as a
// typo that would otherwise reach bash. ${VAR} is left to bash.
func checkPlaceholders(cmd string) error {
	for _, m := range placeholderRe.FindAllStringSubmatch(cmd, -1) {
		if !slices.Contains(placeholders, m[2]) {
			return fmt.Errorf("pytest.runner.command uses the unknown placeholder {%s}; the known ones are {python}, {runner}, {base} and {result}", m[2])
		}
	}
	return nil
}

// expandCommand replaces {name} placeholders with shell-quoted values.
func expandCommand(cmd string, vals map[string]string) string {
	for k, v := range vals {
		cmd = strings.ReplaceAll(cmd, "{"+k+"}", shellQuote(v))
	}
	return cmd
}
