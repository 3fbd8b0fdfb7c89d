package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/sarifcheck"
)

// failingCauses is a run with two causes, as the demo's bad head has: an
// undefined name in two variable sets, and a bash -n error it makes in the
// other two. pytest repeats both in five tests, and sync cannot parse the
// script at the same line.
func failingCauses() *Report {
	r := baseReport()
	const tpl = "src/datasmith/harbor_adapter/template/tests/test.sh"
	render := checks.Result{Check: "render", Conclusion: checks.Failure, Title: "2 render problems in 1 template", Findings: []checks.Finding{
		{Path: tpl, Line: 181, Level: checks.LevelFailure, Title: "Render error at head (in 2 of 4 variable sets)", Message: "'skip_reason' is undefined. Variable sets: rounds=5,run_pytest=false; rounds=null,run_pytest=false."},
		{Path: tpl, Line: 173, Level: checks.LevelFailure, Title: "bash -n rejects the rendered script (in 2 of 4 variable sets)", Message: "bash -n fails at line 172 of the rendered script: syntax error: unexpected end of file."},
	}}
	test := func(id, msg string) checks.Finding {
		return checks.Finding{Path: "tests/test_templates.py", Line: 132, Level: checks.LevelFailure, Title: "Regression: " + id, Message: "This test fails twice at head and passes at the base. FAILED " + id + " " + msg}
	}
	pytest := checks.Result{Check: "pytest", Conclusion: checks.Failure, Title: "5 tests fail at head", Findings: []checks.Finding{
		test("tests/test_templates.py::test_harbor_template_renders[run_pytest=True,rounds=5-tests/test.sh]", "AssertionError: script.sh: line 182: syntax error: unexpected end of file"),
		test("tests/test_templates.py::test_harbor_template_renders[run_pytest=True,rounds=None-tests/test.sh]", "AssertionError: script.sh: line 182: syntax error: unexpected end of file"),
		test("tests/test_templates.py::test_harbor_template_renders[run_pytest=False,rounds=5-tests/test.sh]", "jinja2.exceptions.UndefinedError: 'skip_reason' is undefined"),
		test("tests/test_templates.py::test_pytest_step[False]", "jinja2.exceptions.UndefinedError: 'skip_reason' is undefined"),
		test("tests/test_templates.py::test_other", "AssertionError: assert 1 == 2"),
	}}
	sync := checks.Result{Check: "sync", Conclusion: checks.Failure, Title: "1 problem", Findings: []checks.Finding{
		{Path: tpl, Line: 53, Level: checks.LevelFailure, Title: "A copy cannot be read", Message: "At the head, " + tpl + " cannot be read: bash: 173:1: `if` statement must end with `fi`."},
		{Path: "fcrl/grading/gates.py", Level: checks.LevelWarning, Title: "A copy is missing", Message: "'skip_reason' is undefined"},
	}}
	r.Results = []checks.Result{render, pytest, sync}
	r.Overall = checks.Overall(r.Results)
	return r
}

// TestFailingCausesGrouped: the findings that share a root fold under one
// bullet, test ids read as typed, and a finding with a root of its own
// keeps its own bullet.
func TestFailingCausesGrouped(t *testing.T) {
	t.Parallel()
	md, err := failingCauses().Markdown()
	if err != nil {
		t.Fatal(err)
	}
	lead := md[:strings.Index(md, "\n## Purpose")]
	t.Logf("lead:\n%s", lead)
	var bullets, also []string
	for _, l := range strings.Split(lead, "\n") {
		switch {
		case strings.HasPrefix(l, "- "):
			bullets = append(bullets, l)
		case strings.HasPrefix(l, "  - also seen in: "):
			also = append(also, l)
		}
	}
	if len(bullets) != 3 {
		t.Fatalf("%d bullets, want 3 (the undefined name, the bash error, the other test):\n%s", len(bullets), lead)
	}
	if !strings.Contains(bullets[0], "'skip_reason' is undefined") || !strings.Contains(bullets[1], "unexpected end of file") {
		t.Errorf("the causes are not in check order:\n%s", lead)
	}
	if !strings.HasPrefix(bullets[2], "- ❌ **pytest**:") || !strings.Contains(bullets[2], "test_other") {
		t.Errorf("the test with its own failure has no bullet of its own: %q", bullets[2])
	}
	if len(also) != 2 {
		t.Fatalf("%d also-seen lines, want 2:\n%s", len(also), lead)
	}
	for _, want := range []string{
		"**pytest** `test_templates.py::test_harbor_template_renders[run_pytest=False,rounds=5-tests/test.sh]`, `test_templates.py::test_pytest_step[False]`.",
	} {
		if !strings.Contains(also[0], want) {
			t.Errorf("undefined name: %q lacks %q", also[0], want)
		}
	}
	for _, want := range []string{
		"`test_templates.py::test_harbor_template_renders[run_pytest=True,rounds=5-tests/test.sh]`",
		"`test_templates.py::test_harbor_template_renders[run_pytest=True,rounds=None-tests/test.sh]`",
		"; **sync** `src/datasmith/harbor_adapter/template/tests/test.sh:53`.",
	} {
		if !strings.Contains(also[1], want) {
			t.Errorf("bash error: %q lacks %q", also[1], want)
		}
	}
	if strings.Contains(lead, `\[`) {
		t.Errorf("a test id is escaped:\n%s", lead)
	}
	if strings.Contains(lead, "gates.py") {
		t.Errorf("a warning joins a cause:\n%s", lead)
	}
	// The first cause is within the first 5 visible lines.
	shown := foldedView(md)
	if len(shown) < 2 || !strings.HasPrefix(shown[1].src, "- ❌ **render**") {
		t.Errorf("the second visible line is %q, want the first cause", shown[1].src)
	}
}

// TestBashErrorJoinsOnlyOtherChecks: two templates of one check with the
// same bash error are two causes; only another check's finding folds
// under one of them by that text.
func TestBashErrorJoinsOnlyOtherChecks(t *testing.T) {
	t.Parallel()
	r := baseReport()
	r.Results = []checks.Result{{Check: "render", Conclusion: checks.Failure, Findings: []checks.Finding{
		{Path: "a.sh", Line: 3, Level: checks.LevelFailure, Message: "syntax error: unexpected end of file"},
		{Path: "b.sh", Line: 9, Level: checks.LevelFailure, Message: "syntax error: unexpected end of file"},
	}}}
	if got := len(causesOf(r)); got != 2 {
		t.Errorf("%d causes, want 2", got)
	}
}

// TestAlsoSeenLabels: findings at the line of their cause are named by
// their title, and equal labels show once with their count.
func TestAlsoSeenLabels(t *testing.T) {
	t.Parallel()
	r := baseReport()
	f := func(title string) checks.Finding {
		return checks.Finding{Path: "t.sh", Line: 45, Level: checks.LevelFailure, Title: title, Message: "cannot be set up"}
	}
	r.Results = []checks.Result{{Check: "restore", Conclusion: checks.Failure, Findings: []checks.Finding{
		f("Scenario a cannot be set up"), f("Scenario b cannot be set up"), f("Scenario b cannot be set up"),
	}}}
	r.Overall = checks.Overall(r.Results)
	items, _ := leadFailures(r)
	if len(items) != 1 || !strings.HasSuffix(items[0], "also seen in: **restore** `Scenario b cannot be set up` (2 findings).") {
		t.Errorf("lead: %q", items)
	}
}

// TestTextAndSARIFGroupCauses: the text and SARIF outputs group the
// failures by cause as the comment does. The findings that fold under a
// cause are listed under it in the text ("same cause"), and in SARIF they
// are the cause's related locations, linked from its message, not results
// of their own; the log still passes code scanning's rules.
func TestTextAndSARIFGroupCauses(t *testing.T) {
	t.Parallel()
	r := failingCauses()
	text := r.Text()
	block := text[strings.Index(text, "findings:\n"):]
	block = block[:strings.Index(block, "\n\n")]
	lines := strings.Split(block, "\n")[1:]
	var top, under []string
	for _, l := range lines {
		if strings.HasPrefix(l, "    same cause (") {
			under = append(under, l)
		} else {
			top = append(top, l)
		}
	}
	if len(top) != 4 || len(under) != 5 {
		t.Fatalf("%d findings and %d under a cause, want 4 (2 render causes, test_other, the warning) and 5:\n%s", len(top), len(under), block)
	}
	if !strings.Contains(lines[1], "same cause (pytest)") || !strings.Contains(lines[1], "test_harbor_template_renders[run_pytest=False,rounds=5") {
		t.Errorf("the first pytest test with the undefined name is not under its cause:\n%s", block)
	}
	if !strings.Contains(block, "    same cause (sync): src/datasmith/harbor_adapter/template/tests/test.sh:53: failure:") {
		t.Errorf("the sync finding is not under the bash error:\n%s", block)
	}

	b, err := r.SARIF(SARIFOptions{ToolVersion: "v1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(b); err != nil {
		t.Errorf("code scanning would refuse the grouped log: %v", err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
				Related []struct {
					ID int `json:"id"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	var errors, related int
	for _, res := range log.Runs[0].Results {
		if res.Level == "error" {
			errors++
		}
		related += len(res.Related)
		for _, rl := range res.Related {
			if !strings.Contains(res.Message.Text, fmt.Sprintf("](%d)", rl.ID)) {
				t.Errorf("the message of a %s result does not link related location %d: %s", res.RuleID, rl.ID, res.Message.Text)
			}
		}
	}
	if errors != 3 || related != 5 {
		t.Errorf("%d error results with %d related locations, want 3 causes with 5", errors, related)
	}
	first := log.Runs[0].Results[0]
	if want := `Also seen in: [pytest: test_templates.py::test_harbor_template_renders\[run_pytest=False,rounds=5-tests/test.sh\]](1)`; !strings.Contains(first.Message.Text, want) {
		t.Errorf("the first cause's message %q lacks %q", first.Message.Text, want)
	}
}
