package pytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/nice"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// defaultScenarioTimeout limits one runner scenario.
const defaultScenarioTimeout = 2 * time.Minute

// runnerSpec says how to run a pytest runner on a fixture project.
type runnerSpec struct {
	Python  string // absolute path of the interpreter
	Runner  string // file of the rendered runner
	Command string // with {python} {runner} {base} {result} {logs}
	// Result is the result file, relative to the project, or to the
	// scenario's log folder when it starts with "{logs}/".
	Result string
	// Env is the runner's extra environment; {logs} in a value is the
	// scenario's log folder.
	Env map[string]string
	// Regressed and TestsRan are dotted JSON paths in the result file: the
	// list of regressed test ids, and what says that tests ran. Empty:
	// datasmith's (config.DefaultRunnerRegressed, DefaultRunnerTestsRan).
	Regressed, TestsRan string
	Timeout             time.Duration
}

// maxResult is the largest runner result file that is read.
const maxResult = 16 << 20

// scenarioResult is the verdict of one scenario.
type scenarioResult struct {
	Name      string
	Reported  []string // regression ids the runner reported
	Problems  []string // empty when the scenario passes
	Details   string   // the end of the runner's output, for a failure
	Sandboxed bool
	// Base is the verdict of the base's runner on a scenario that fails at
	// head ("pass", "fail", "same runner"); empty when it did not run.
	// PreExisting is true when the base fails with every problem of the head.
	Base        string
	PreExisting bool
	// Keys are the key paths of the result file the runner wrote
	// (jsonKeys), for the comparison of keys.go.
	Keys []string
}

// Passed reports whether the runner did what the scenario wants.
func (r scenarioResult) Passed() bool { return len(r.Problems) == 0 }

// runScenarios builds the fixture project once in dir, copies it for each
// scenario, and runs the scenarios in parallel up to the core count.
func runScenarios(ctx context.Context, spec runnerSpec, dir string, list []scenario) ([]scenarioResult, error) {
	if _, rel := resultRoot(spec.Result); checkResultPath(rel) != nil {
		return nil, fmt.Errorf("pytest.runner.result %q must be a path inside the fixture project or under {logs}/", spec.Result)
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
	checks.AddWork(ctx, len(list), "runner scenarios")
	for i, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runScenario(ctx, spec, filepath.Join(dir, fmt.Sprintf("s%02d-%s", i, s.Name)), baseDir, base, s)
			checks.WorkDone(ctx, 1)
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

// runScenario runs one runner scenario in a fresh copy of the fixture
// project and judges what the runner reported. It is long (about 135
// lines): set up, run, read the result file and compare are one
// sequence over the same folders; left for a later split.
func runScenario(ctx context.Context, spec runnerSpec, dir, baseDir, base string, s scenario) scenarioResult {
	res := scenarioResult{Name: s.Name}
	fail := func(format string, a ...any) scenarioResult {
		res.Problems = append(res.Problems, fmt.Sprintf(format, a...))
		return res
	}
	project := filepath.Join(dir, "project")
	home := filepath.Join(dir, "home")
	logs := filepath.Join(dir, "logs")
	for _, d := range []string{home, logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fail("could not make the scenario folder: %v", err)
		}
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
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		env = append(env, k+"="+strings.ReplaceAll(spec.Env[k], config.LogsPlaceholder, logs))
	}
	if s.Flaky {
		env = append(env, "FC_FLAKY_MARKER="+filepath.Join(dir, "flaky-marker"))
	}
	inLogs, rel := resultRoot(spec.Result)
	resultDir := project
	if inLogs {
		resultDir = logs
	}
	cmd := expandCommand(spec.Command, map[string]string{
		"python": spec.Python, "runner": runnerFile, "base": base, "logs": logs,
		"result": filepath.Join(resultDir, filepath.FromSlash(rel)),
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
	data, err := safefile.ReadIn(resultDir, rel, maxResult)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("the runner wrote no %s (exit code %d)", spec.Result, out.ExitCode)
	case errors.Is(err, safefile.ErrNotRegular):
		return fail("%s is not a regular file", spec.Result)
	case errors.Is(err, safefile.ErrOutside):
		return fail("%s leaves its folder", spec.Result)
	case errors.Is(err, safefile.ErrTooLarge):
		return fail("%s is larger than the limit of %d bytes", spec.Result, maxResult)
	case err != nil:
		return fail("cannot read %s", spec.Result)
	}
	regressedKey, ranKey := spec.Regressed, spec.TestsRan
	if regressedKey == "" {
		regressedKey = config.DefaultRunnerRegressed
	}
	if ranKey == "" {
		ranKey = config.DefaultRunnerTestsRan
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fail("%s is not valid JSON: %v", spec.Result, err)
	}
	res.Keys = jsonKeys(doc)
	ids, ok := stringList(lookup(doc, regressedKey))
	if !ok {
		return fail("%s has no %s list", spec.Result, regressedKey)
	}
	res.Reported = ids
	slices.Sort(res.Reported)
	// A count next to the list (n_regressed beside regressed) must agree.
	if parent, last := splitKey(regressedKey); last != "" {
		if n, found := lookupFound(doc, joinKey(parent, "n_"+last)); found {
			if num, isNum := n.(json.Number); !isNum || num.String() != strconv.Itoa(len(res.Reported)) {
				res.Problems = append(res.Problems, fmt.Sprintf("%s is not the length of %s (%d)", joinKey(parent, "n_"+last), regressedKey, len(res.Reported)))
			}
		}
	}
	if !truthy(lookup(doc, ranKey)) {
		res.Problems = append(res.Problems, fmt.Sprintf("the runner says that no tests ran (%s is missing, false, 0 or empty)", ranKey))
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
var placeholders = []string{"python", "runner", "base", "result", "logs"}

// checkPlaceholders refuses an unknown {name} in the command, such as a
// typo that would otherwise reach bash. ${VAR} is left to bash.
func checkPlaceholders(cmd string) error {
	for _, m := range placeholderRe.FindAllStringSubmatch(cmd, -1) {
		if !slices.Contains(placeholders, m[2]) {
			return fmt.Errorf("pytest.runner.command uses the unknown placeholder {%s}; the known ones are {python}, {runner}, {base}, {result} and {logs}", m[2])
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

// resultRoot splits the result setting: inLogs is true for "{logs}/rel".
func resultRoot(result string) (inLogs bool, rel string) {
	if rest, ok := strings.CutPrefix(result, config.LogsPlaceholder+"/"); ok {
		return true, rest
	}
	return false, result
}

// lookup follows a dotted path of object keys; nil when a key is missing.
func lookup(doc any, key string) any {
	v, _ := lookupFound(doc, key)
	return v
}

func lookupFound(doc any, key string) (any, bool) {
	v := doc
	for _, k := range strings.Split(key, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func splitKey(key string) (parent, last string) {
	if i := strings.LastIndex(key, "."); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

func joinKey(parent, last string) string {
	if parent == "" {
		return last
	}
	return parent + "." + last
}

// stringList is a JSON list of strings.
func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// truthy says whether a "did tests run" value means yes: true, a number
// above 0, or a non-empty list.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f > 0
	case []any:
		return len(x) > 0
	}
	return false
}
