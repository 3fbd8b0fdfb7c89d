package restore

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestAssembleGolden fixes the result that the report shows: table rows,
// findings with replayable edit lists, figures and notes.
func TestAssembleGolden(t *testing.T) {
	step := &Step{
		Template: "src/datasmith/harbor_adapter/template/tests/test.sh", Line: 39,
		Paths:  config.RestorePaths{Repo: "/workspace/repo", BaselineSHA: "/opt/fc_baseline_sha", Logs: "/logs/artifacts"},
		Report: "/logs/artifacts/protected_restore.json",
		Engine: jinja.Engine{Jinja2: true, Version: "3.1.2"},
	}
	pass := func(name string, discarded ...string) Outcome {
		return Outcome{Scenario: Scenario{Name: name}, Verdict: Pass, Sandboxed: true,
			Expect: Expectation{Ran: true, Discarded: discarded, Remaining: []string{}}}
	}
	spaceEdits := []Edit{write("benchmarks/sp ace.py", "x = 1\n")}
	catalogue := []Outcome{
		pass("no-change"),
		pass("edit-test-file", "tests/test_core.py"),
		{Scenario: Scenario{Name: "add-benchmark-with-space", Edits: spaceEdits}, Verdict: Fail, Sandboxed: true, ExitCode: 0,
			Expect: Expectation{Ran: true, Discarded: []string{"benchmarks/sp ace.py"}, Remaining: []string{}},
			Diffs: []string{"benchmarks/sp ace.py: still present, the model deletes it", "report.discarded misses benchmarks/sp ace.py",
				"report.discarded lists ace.py, the model does not", "report.remaining is not empty: benchmarks/sp ace.py"}},
		{Scenario: Scenario{Name: "no-baseline-file", NoBaseline: true}, Verdict: Pass, Sandboxed: true,
			Expect: Expectation{Reason: "no baseline sha file", Discarded: []string{}, Remaining: []string{}}},
		{Scenario: Scenario{Name: "hang"}, Verdict: TimedOut, Sandboxed: true, ExitCode: -1,
			Diffs: []string{"the step ran past the limit of 20s and was killed"}, Stderr: "sleeping\n"},
		{Scenario: Scenario{Name: "broken"}, Verdict: Broken, Err: errors.New("edit 1 (delete \"x\"): no such file")},
	}
	random := []Outcome{
		pass("random-1", "tests/test_rand_1.py"),
		{Scenario: Scenario{Name: "random-2", Edits: append([]Edit{add("."), commit("c")}, spaceEdits...)}, Verdict: Fail, Sandboxed: true,
			Expect: Expectation{Ran: true, Discarded: []string{"benchmarks/sp ace.py"}, Remaining: []string{}},
			Diffs:  []string{"benchmarks/sp ace.py: still present, the model deletes it"}},
		{Scenario: Scenario{Name: "random-3", Edits: spaceEdits}, Verdict: Fail, Sandboxed: true,
			Diffs: []string{"benchmarks/sp ace.py: still present, the model deletes it"}},
	}
	shrunk := map[int]shrunkSet{1: {Edits: spaceEdits, Outcome: Outcome{Scenario: Scenario{Name: "random-2-shrink", Edits: spaceEdits}, Verdict: Fail,
		Diffs: []string{"benchmarks/sp ace.py: still present, the model deletes it"}}}}
	res := checks.Result{Check: "restore"}
	assemble(&res, resultInput{step: step, seed: 1, count: 3, catalogue: catalogue, random: random, shrunk: shrunk,
		wall: 1234 * time.Millisecond, parallel: 2, command: "template-verify run --repo . --base main --head good"})
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "result.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("result differs from %s (run with -update after checking):\n%s", golden, got)
	}
	if res.Conclusion != checks.Failure {
		t.Errorf("conclusion %s", res.Conclusion)
	}
}
