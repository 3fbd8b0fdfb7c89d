package pytest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
)

// These tests play a pull request whose code makes the files the check
// reads afterwards (the runner's result file, pytest's JUnit file) a FIFO,
// a symlink to /dev/zero or to a file outside, or a huge file. The check
// must finish, never show data of a file outside, and report a failure or
// "not run", never a pass.

const secret = "SECRET-FROM-OUTSIDE"

// finishes runs f and fails the test when it has not returned within a
// generous bound: a read that blocks on a FIFO never returns.
func finishes[T any](t *testing.T, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(2 * time.Minute):
		t.Fatal("the check did not finish: a read blocked")
		panic("unreachable")
	}
}

func TestRunnerResultIsReadSafely(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	leak := `{"tests_ran": true, "regression": {"regressed": ["` + secret + `"], "n_regressed": 1}}`
	if err := os.WriteFile(filepath.Join(out, "leak.json"), []byte(leak), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, result, command, want string
	}{
		{"FIFO", "r.json", "mkfifo {result}", "not a regular file"},
		{"symlink to /dev/zero", "r.json", "ln -s /dev/zero {result}", "not a regular file"},
		{"symlink to a file outside", "r.json", "ln -s OUT/leak.json {result}", "not a regular file"},
		{"folder is a symlink outside", "out/leak.json", "ln -s OUT out", "leaves its folder"},
		{"too large", "r.json", "truncate -s 100M {result}", "limit"},
	}
	runner := filepath.Join(t.TempDir(), "runner.py")
	if err := os.WriteFile(runner, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spec := runnerSpec{Python: "/usr/bin/python3", Runner: runner, Result: c.result,
				Command: strings.ReplaceAll(c.command, "OUT", out), Timeout: time.Minute}
			type ran struct {
				r   []scenarioResult
				err error
			}
			got := finishes(t, func() ran {
				r, err := runScenarios(context.Background(), spec, t.TempDir(), scenarios()[:1])
				return ran{r, err}
			})
			results, err := got.r, got.err
			if err != nil {
				t.Fatal(err)
			}
			if len(results) != 1 {
				t.Fatalf("%d results", len(results))
			}
			r := results[0]
			text := strings.Join(r.Problems, "\n") + strings.Join(r.Reported, "\n")
			if r.Passed() {
				t.Errorf("the scenario passes")
			}
			if strings.Contains(text, secret) {
				t.Errorf("the result shows data of a file outside: %q", text)
			}
			if !strings.Contains(text, c.want) {
				t.Errorf("problems %q, want one that says %q", r.Problems, c.want)
			}
		})
	}
}

// junitConftest is a conftest.py whose last session hook replaces the JUnit
// file that pytest just wrote by what make (Python statements on p, the
// file's path) leaves there.
func junitConftest(make string) string {
	return `import os, pytest

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    p = session.config.option.xmlpath
    os.remove(p)
` + make
}

func TestSuiteJUnitIsReadSafely(t *testing.T) {
	t.Parallel()
	needPython(t)
	out := t.TempDir()
	leak := `<testsuite tests="1"><testcase classname="tests.test_calc" name="` + secret + `"/></testsuite>`
	if err := os.WriteFile(filepath.Join(out, "leak.xml"), []byte(leak), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, conftest string
		want           checks.Conclusion
		wantText       string
	}{
		{"FIFO", junitConftest("    os.mkfifo(p)\n"), checks.Failure, "not a regular file"},
		{"symlink to /dev/zero", junitConftest("    os.symlink('/dev/zero', p)\n"), checks.Failure, "not a regular file"},
		{"symlink to a file outside", junitConftest("    os.symlink('" + out + "/leak.xml', p)\n"), checks.Failure, "not a regular file"},
		{"too large", junitConftest("    with open(p, 'wb') as f:\n        f.truncate(100 << 20)\n"), checks.Failure, "limit"},
		{"entity bomb", junitConftest("    open(p, 'w').write('''" + billionLaughs + "''')\n"), checks.Failure, "entity"},
		// A conftest that hides every test and turns pytest's exit code 5
		// into 0 leaves a JUnit file with no test case: not a pass.
		{"no test cases and exit 0", `import pytest

def pytest_collection_modifyitems(session, config, items):
    items[:] = []

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    session.exitstatus = 0
`, checks.NotRun, "no test cases"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := makeRepo(t, calcBase, map[string]string{"conftest.py": c.conftest, "src/calc.py": calcBase["src/calc.py"] + "\n# changed\n"})
			res := finishes(t, func() checks.Result {
				return runCheck(t, dir, suiteConfig([]string{"tests/test_calc.py"}, map[string]string{"PYTHONPATH": "src"}))
			})
			text := res.Title + "\n" + res.Summary + "\n" + strings.Join(res.Notes, "\n")
			for _, f := range res.Findings {
				text += "\n" + f.Title + ": " + f.Message
			}
			for _, tb := range res.Tables {
				for _, row := range tb.Rows {
					text += "\n" + strings.Join(row, " | ")
				}
			}
			for _, f := range res.Figures {
				text += "\n" + f.Label + ": " + f.Value
			}
			if res.Conclusion != c.want {
				t.Errorf("conclusion %s, want %s:\n%s", res.Conclusion, c.want, text)
			}
			if strings.Contains(text, secret) {
				t.Errorf("the result shows data of a file outside:\n%s", text)
			}
			if !strings.Contains(text, c.wantText) {
				t.Errorf("no %q in the result:\n%s", c.wantText, text)
			}
		})
	}
}

// billionLaughs is the classic XML entity bomb: ten levels of ten
// references, 10^9 "lol"s if a parser expanded them.
const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<testsuite tests="1"><testcase classname="tests.test_calc" name="test_add"><failure message="&lol9;">&lol9;</failure></testcase></testsuite>`

// TestHeadCannotChangeTheBaseRun: the head's tests write a usercustomize
// module into HOME that puts a broken calc.py first on sys.path. If the
// base run shared the head's HOME, the regression in calc.add would fail
// at the base too and be excused as "failing before the change".
func TestHeadCannotChangeTheBaseRun(t *testing.T) {
	t.Parallel()
	needPython(t)
	conftest := `import os, site, sys

evil = os.path.join(os.environ["HOME"], "evil")
os.makedirs(evil, exist_ok=True)
with open(os.path.join(evil, "calc.py"), "w") as f:
    f.write("def add(a, b):\n    return 0\n\n\ndef mul(a, b):\n    return a * b\n")
user = site.getusersitepackages()
os.makedirs(user, exist_ok=True)
with open(os.path.join(user, "usercustomize.py"), "w") as f:
    f.write("import sys\nsys.path.insert(0, %r)\n" % evil)
`
	dir := makeRepo(t, calcBase, map[string]string{
		"tests/conftest.py": conftest,
		"src/calc.py":       "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
	})
	res := runCheck(t, dir, suiteConfig([]string{"tests/test_calc.py"}, map[string]string{"PYTHONPATH": "src"}))
	if res.Conclusion != checks.Failure {
		t.Errorf("conclusion %s, want failure: %s\n%s", res.Conclusion, res.Title, res.Summary)
	}
	f, ok := findingsByTitle(res)["Regression: tests/test_calc.py::test_add"]
	if !ok || f.Level != checks.LevelFailure {
		for _, f := range res.Findings {
			t.Logf("%s: %s", f.Title, f.Message)
		}
		t.Errorf("no regression finding for test_add")
	}
}

// TestHeadCannotHideTestsFromTheCheckout: a .gitattributes at head that
// marks the failing test file export-ignore must not take it out of the
// tree the suite runs in; a checkout has every file of the commit.
func TestHeadCannotHideTestsFromTheCheckout(t *testing.T) {
	t.Parallel()
	needPython(t)
	dir := makeRepo(t, calcBase, map[string]string{
		".gitattributes": "tests/test_calc.py export-ignore\n",
		"src/calc.py":    "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
	})
	res := runCheck(t, dir, suiteConfig([]string{"tests"}, map[string]string{"PYTHONPATH": "src"}))
	if res.Conclusion != checks.Failure {
		t.Errorf("conclusion %s, want failure: %s\n%s", res.Conclusion, res.Title, res.Summary)
	}
	if f, ok := findingsByTitle(res)["Regression: tests/test_calc.py::test_add"]; !ok || f.Level != checks.LevelFailure {
		t.Errorf("no regression finding for test_add: %+v", res.Findings)
	}
}
