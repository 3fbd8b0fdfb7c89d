package report

import (
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/plan"
)

// The fixtures are synthetic reports built by hand: no git, no checks.

const (
	baseSha  = "1111111111111111111111111111111111111111"
	headSha  = "2222222222222222222222222222222222222222"
	mergeSha = "3333333333333333333333333333333333333333"
	root     = "src/datasmith/harbor_adapter/template/"
)

func baseReport() *Report {
	return &Report{
		Repo:    "datasmith-mini",
		BaseRev: "main", HeadRev: "pr",
		Base: baseSha, Head: headSha, MergeBase: mergeSha,
		Templates: []plan.Template{
			{Group: "harbor", Path: root + "tests/test.sh", OldPath: root + "tests/test.sh", Rel: "tests/test.sh", OldRel: "tests/test.sh", Status: plan.Modified},
			{Group: "harbor", Path: root + "environment/Dockerfile", OldPath: root + "environment/Dockerfile", Rel: "environment/Dockerfile", OldRel: "environment/Dockerfile", Status: plan.Included, Via: []string{"environment/restore_paths.inc"}},
			{Group: "prompts", Path: "src/datasmith/github/templates/final.md.j2", OldPath: "src/datasmith/github/templates/final.md.j2", Rel: "final.md.j2", OldRel: "final.md.j2", Status: plan.Modified},
		},
		Command:      "template-verify run --repo . --base main --head pr",
		ConfigSource: ".github/template-verify.yml",
		Duration:     4200 * time.Millisecond,
	}
}

const testShDiff = `--- a/src/datasmith/harbor_adapter/template/tests/test.sh (run_pytest=true)
+++ b/src/datasmith/harbor_adapter/template/tests/test.sh (run_pytest=true)
@@ -40,3 +40,4 @@
 PATTERNS=(
   '(^|/)benchmarks?/'
+  '(^|/)tests?/'
 )
`

func renderPass() checks.Result {
	return checks.Result{
		Check: "render", Conclusion: checks.Success,
		Title:    "3 templates render at base and head",
		Summary:  "The check renders 3 templates at base and head for 6 variable sets. Every render at head works, and bash accepts every rendered script.",
		Duration: 1200 * time.Millisecond,
		Figures: []checks.Figure{
			{Label: "Templates", Value: "3 templates, 6 variable sets, 12 renders"},
			{Label: "bash -n", Value: "4 distinct rendered scripts"},
			{Label: "Jinja2 cross-check", Value: "12 renders compared, 0 differ (Jinja2 3.1.2)"},
		},
		Changes: []checks.Change{
			{Path: root + "tests/test.sh", Status: "modified", Sets: 2, AddedPerSet: []int{2, 2}, RemovedPerSet: []int{0, 0},
				FirstAdded: "'(^|/)tests?/'", Added: 2, Removed: 0, Diff: testShDiff},
			{Path: root + "environment/Dockerfile", Status: "included", Via: []string{"environment/restore_paths.inc"}, Sets: 2, SameSets: 2},
			{Path: "src/datasmith/github/templates/final.md.j2", Status: "modified", Sets: 1, AddedPerSet: []int{1}, RemovedPerSet: []int{1},
				FirstAdded: "Do not edit benchmarks or tests.", FirstRemoved: "Do not edit benchmarks.", Added: 1, Removed: 1,
				Diff: "--- a/final.md.j2 (default)\n+++ b/final.md.j2 (default)\n@@ -3 +3 @@\n-Do not edit benchmarks.\n+Do not edit benchmarks or tests.\n"},
		},
	}
}

func restorePass() checks.Result {
	return checks.Result{
		Check: "restore", Conclusion: checks.Success,
		Title:    "12 of 12 scenarios match the model",
		Duration: 2300 * time.Millisecond,
		Figures: []checks.Figure{
			{Label: "Scenarios", Value: "12 of 12 match", Command: "template-verify run --repo . --base main --head pr"},
			{Label: "Random edit sets", Value: "50 of 50 match"},
		},
		Tables: []checks.Table{{
			Title:  "Restore scenarios",
			Header: []string{"Scenario", "Verdict", "Discarded"},
			Rows: [][]string{
				{"edit a test file", "match", "tests/test_a.py"},
				{"add a benchmark with a space", "match", "benchmarks/sp ace.py"},
				{"no change", "match", "none"},
				{"pipe | in a name", "match", "a|b.py"},
			},
		}},
	}
}

func pytestPass() checks.Result {
	return checks.Result{
		Check: "pytest", Conclusion: checks.Success,
		Title:    "22 passed, 1 skipped",
		Duration: 3100 * time.Millisecond,
		Figures: []checks.Figure{{
			Label:   "pytest tests/test_templates.py",
			Value:   "22 passed, 1 skipped",
			Command: "PYTHONPATH=src python3 -m pytest -p no:cacheprovider tests/test_templates.py",
		}},
	}
}

func pytestNotRun() checks.Result {
	return checks.Result{
		Check: "pytest", Conclusion: checks.NotRun,
		Title: "no pytest suite matches the changed paths",
		Notes: []string{"The suite tests/docker runs only when a file under tests/docker changes."},
	}
}

// allPass: every check passes.
func allPass() *Report {
	r := baseReport()
	r.Results = []checks.Result{renderPass(), restorePass(), pytestPass()}
	r.Overall = checks.Overall(r.Results)
	return r
}

// failingRender: render fails with findings at file and line; pytest does
// not run.
func failingRender() *Report {
	r := baseReport()
	render := renderPass()
	render.Conclusion = checks.Failure
	render.Title = "2 problems in 3 templates"
	render.Summary = "The check renders 3 templates at base and head for 6 variable sets. It finds 2 problems."
	render.Findings = []checks.Finding{
		{Path: root + "tests/test.sh", Line: 57, Level: checks.LevelFailure, Title: "bash -n",
			Message: "The rendered script is not valid bash for run_pytest=false: syntax error near unexpected token fi.",
			Details: "test.sh: line 57: syntax error near unexpected token `fi'\ntest.sh: line 57: `fi'\n"},
		{Path: root + "tests/test.sh", Line: 12, Level: checks.LevelFailure, Title: "Undefined variable",
			Message: "The variable rounds is undefined for the variable set run_pytest=false."},
	}
	r.Results = []checks.Result{render, restorePass(), pytestNotRun()}
	r.Overall = checks.Overall(r.Results)
	return r
}

// notRun: every check that ran passes, but two did not run.
func notRun() *Report {
	r := baseReport()
	restore := checks.Result{Check: "restore", Conclusion: checks.NotRun,
		Title: "the rendered test.sh has no restore section and the config names none"}
	r.Results = []checks.Result{renderPass(), restore, pytestNotRun()}
	r.Overall = checks.Overall(r.Results)
	r.Notes = []string{"The run does not use bubblewrap, because bwrap cannot create a namespace here."}
	return r
}

// skipped: render and restore pass; pytest has nothing to verify.
func skipped() *Report {
	r := baseReport()
	py := checks.Result{Check: "pytest", Conclusion: checks.Skipped,
		Title: "no pytest suite is triggered by the changed paths"}
	r.Results = []checks.Result{renderPass(), restorePass(), py}
	r.Overall = checks.Overall(r.Results)
	return r
}

// emptyPlan: the PR changes no template.
func emptyPlan() *Report {
	r := baseReport()
	r.Templates = nil
	r.ConfigSource = DefaultsSource
	r.Overall = checks.Success
	return r
}

// backticks: details and diffs hold fences and non-ASCII text.
func backticks() *Report {
	r := baseReport()
	r.Templates = []plan.Template{
		{Group: "prompts", Path: "src/datasmith/github/templates/naïve/fïnal.md.j2", OldPath: "src/datasmith/github/templates/old/final.md.j2", Status: plan.Renamed},
		{Group: "prompts", Path: "src/datasmith/github/templates/règles.md.j2", OldPath: "src/datasmith/github/templates/règles.md.j2", Status: plan.Added},
		{Group: "prompts", Path: "src/datasmith/github/templates/gone.md.j2", OldPath: "src/datasmith/github/templates/gone.md.j2", Status: plan.Deleted},
	}
	render := checks.Result{
		Check: "render", Conclusion: checks.Failure,
		Title:    "Jinja2 gives different bytes for 1 render",
		Duration: 800 * time.Millisecond,
		Findings: []checks.Finding{{
			Path: "src/datasmith/github/templates/naïve/fïnal.md.j2", Line: 3, Level: checks.LevelFailure,
			Title:   "Jinja2 cross-check",
			Message: "gonja and Jinja2 differ at byte 42 (line 3): « café » in gonja, « cafe » in Jinja2.",
			Details: "gonja:\n```python\nprint('日本語')\n```\n````\nJinja2:\n```python\nprint('日本')\n```\n",
		}, {
			Path: "src/datasmith/github/templates/règles.md.j2", Level: checks.LevelWarning,
			Message: "The template uses `{{ x | tojson }}`, and gonja spaces tojson output differently.",
		}},
		Changes: []checks.Change{{
			Path: "src/datasmith/github/templates/naïve/fïnal.md.j2", Status: "renamed", OldPath: "src/datasmith/github/templates/old/final.md.j2",
			Sets: 1, AddedPerSet: []int{3}, RemovedPerSet: []int{0}, FirstAdded: "```sh", Added: 3, Removed: 0,
			Diff: "--- a/final.md.j2\n+++ b/fïnal.md.j2\n@@ -1 +1,4 @@\n Règles :\n+```sh\n+echo ünïcode ✓\n+```\n",
		}},
	}
	r.Results = []checks.Result{render}
	r.Overall = checks.Overall(r.Results)
	return r
}

var fixtures = []struct {
	name string
	make func() *Report
}{
	{"all-pass", allPass},
	{"failing-render", failingRender},
	{"not-run", notRun},
	{"skipped", skipped},
	{"empty-plan", emptyPlan},
	{"backticks", backticks},
	{"linked-pass", linkedPass},
	{"linked-fail", linkedFail},
}

// links are the pages an Action run knows: the repository, the check
// runs and the workflow run.
func links() Links {
	return Links{
		Repo: "https://github.com/formula-code/datasmith",
		CheckRuns: map[string]string{
			"render":  "https://github.com/formula-code/datasmith/runs/101",
			"restore": "https://github.com/formula-code/datasmith/runs/102",
			"pytest":  "https://github.com/formula-code/datasmith/runs/103",
		},
		Run: "https://github.com/formula-code/datasmith/actions/runs/7",
	}
}

// linkedPass is allPass as the Action renders it, with its links.
func linkedPass() *Report {
	r := allPass()
	r.Links = links()
	return r
}

// linkedFail is failingRender as the Action renders it, with its links.
func linkedFail() *Report {
	r := failingRender()
	r.Links = links()
	return r
}

// bigDiff returns a diff of n lines with multi-byte text.
func bigDiff(n int) string {
	var b strings.Builder
	b.WriteString("--- a/test.sh\n+++ b/test.sh\n@@ -1 +1 @@\n")
	for i := range n {
		b.WriteString("+echo 'ligne ünïcode ✓ 日本' " + itoa(i) + "\n")
	}
	return b.String()
}
