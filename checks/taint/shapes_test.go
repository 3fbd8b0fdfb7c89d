package taint

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// The two shapes of datasmith's history that issue 25 names, written
// small here (not datasmith's files).
const (
	// rebuildShape: the rest of the script assigns FC_REBUILD_CMD before
	// every read (datasmith 1e2909a). The tamper run used to report that
	// a profile file turns it on and off.
	rebuildShape = `#!/bin/bash
set -euo pipefail
source /etc/profile.d/asv_build_vars.sh || true
# ── Capture patch
FC_REBUILD_CMD=""
if grep -q '\.pyx$' <<< "$(ls)"; then
  FC_REBUILD_CMD="bash /tests/rebuild.sh"
  ${FC_REBUILD_CMD}
fi
export FC_REBUILD_CMD
FC_REBUILD_CMD="" python /tests/measure.py
`
	// baselineShape: the diff base comes from ${FC_BASELINE_SHA:-…} read
	// after the source (datasmith 15c80e5). It was one warning among many.
	baselineShape = `#!/bin/bash
set -euo pipefail
source /etc/profile.d/asv_build_vars.sh || true
# ── Capture patch
FC_BASE="${FC_BASELINE_SHA:-$(cat /opt/fc_baseline_sha 2>/dev/null || echo {{ base }})}"
fc_diff() { git diff "${FC_BASE}" "$@"; }
fc_diff > /logs/patch.diff
`
)

// TestRebuildShapeNotProbed: a name the rest assigns before every read is
// not probed, so the tamper run finds no change (it found FC_REBUILD_CMD
// on and off before the flow analysis).
func TestRebuildShapeNotProbed(t *testing.T) {
	t.Parallel()
	st := settingsOf(config.Default(), config.Default())
	an, err := Analyze(rebuildShape, st.writable)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range an.Uses {
		if u.Name == "FC_REBUILD_CMD" {
			t.Errorf("FC_REBUILD_CMD listed as a use: %+v", u)
		}
	}
	head, rest, ok := cutHead(&script{text: rebuildShape, an: an}, st)
	if !ok {
		t.Fatal("no step after the source")
	}
	if probe := restReads(rest, an.Names); slices.Contains(probe, "FC_REBUILD_CMD") {
		t.Errorf("the tamper run probes FC_REBUILD_CMD: %q", probe)
	}
	s := &script{tmpl: plan.Template{Path: "tests/test.sh"}, set: "default", text: rebuildShape, an: an}
	in := &checks.Input{Config: config.Default(), WorkDir: t.TempDir()}
	tr := (&Check{}).tamperAll(context.Background(), in, st, []*script{s}, nil, false)
	if tr.notRun != "" {
		t.Fatalf("not run: %s (head %q)", tr.notRun, head)
	}
	for _, f := range tr.findings {
		t.Errorf("tamper finding: %s", f.Title)
	}
}

const shapeConfig = `version: 1
groups:
  - name: t
    root: tpl
    jinja: {strict_undefined: true, keep_trailing_newline: true}
    vars: {base: abc}
    templates:
      - path: "**"
taint:
  tamper: false
`

// TestBaselineShapeFails: the PR that reads FC_BASELINE_SHA with a default
// after the source, into git's revision, fails; the finding names the
// template line of the read and says why the name is protected. Before
// the flow analysis it was a warning and the check passed.
func TestBaselineShapeFails(t *testing.T) {
	t.Parallel()
	base := strings.Replace(baselineShape, `"${FC_BASELINE_SHA:-$(cat /opt/fc_baseline_sha 2>/dev/null || echo {{ base }})}"`, `"$(cat /opt/fc_baseline_sha 2>/dev/null || echo {{ base }})"`, 1)
	// The head moves the template lines: a Jinja comment of three lines
	// renders as one empty line, so the read is on rendered line 6 and on
	// template line 8.
	head := strings.Replace(baselineShape, "# ── Capture patch\n", "# ── Capture patch\n{# harbor reads the baseline\nbefore the agent runs;\nthe file can be rewritten. #}\n", 1)
	in := checktest.PR(t, shapeConfig, shapeConfig, map[string]string{"tpl/test.sh": base}, map[string]string{"tpl/test.sh": head})
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s (%s: %s), want failure", res.Conclusion, res.Title, res.Summary)
	}
	wantLine := 1 + slices.IndexFunc(strings.Split(head, "\n"), func(l string) bool { return strings.HasPrefix(l, "FC_BASE=") })
	var found bool
	for _, f := range res.Findings {
		if f.Level != checks.LevelFailure {
			continue
		}
		if !strings.HasPrefix(f.Title, "FC_BASELINE_SHA ") {
			t.Errorf("another failure: %s: %s", f.Title, f.Message)
			continue
		}
		found = true
		if wantLine != 8 {
			t.Fatalf("the test's template moved: the read is on line %d", wantLine)
		}
		if f.Path != "tpl/test.sh" || f.Line != wantLine {
			t.Errorf("finding at %s:%d, want tpl/test.sh:%d", f.Path, f.Line, wantLine)
		}
		for _, part := range []string{"template line " + strconv.Itoa(wantLine), "arguments of git", "through FC_BASE"} {
			if !strings.Contains(f.Message, part) {
				t.Errorf("message %q lacks %q", f.Message, part)
			}
		}
	}
	if !found {
		t.Errorf("no failure for FC_BASELINE_SHA: %+v", res.Findings)
	}
}

// TestOldProtectedReadWarns: the same read at base and head is not the
// PR's fault.
func TestOldProtectedReadWarns(t *testing.T) {
	t.Parallel()
	head := baselineShape + "echo done\n"
	in := checktest.PR(t, shapeConfig, shapeConfig, map[string]string{"tpl/test.sh": baselineShape}, map[string]string{"tpl/test.sh": head})
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		t.Fatalf("conclusion %s (%s), want success", res.Conclusion, res.Title)
	}
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Title, "FC_BASELINE_SHA ") && (f.Level != checks.LevelWarning || !strings.Contains(f.Message, "before this change")) {
			t.Errorf("finding %s %q, want a warning that fails before this change", f.Level, f.Message)
		}
	}
}

// ownBranchConfig renders the template with run_pytest on and off.
const ownBranchConfig = `version: 1
groups:
  - name: t
    root: tpl
    jinja: {strict_undefined: true, keep_trailing_newline: true}
    vars: {base: abc}
    matrix: {run_pytest: [true, false]}
    templates:
      - path: "**"
taint:
  tamper: false
`

// TestOwnNameInAJinjaBranch: datasmith 1e2909a assigns _py_rc inside
// {% if run_pytest %} and reads it with ${_py_rc:-0} after the branch.
// The render with run_pytest false has no assignment, but the name is the
// script's own, not a value it expects from outside: no failure.
func TestOwnNameInAJinjaBranch(t *testing.T) {
	t.Parallel()
	base := "#!/bin/bash\nsource /etc/profile.d/asv_build_vars.sh || true\necho start\n"
	head := base + `{%- if run_pytest %}
if python /tests/pytest_runner.py; then _py_rc=0; else _py_rc=$?; fi
{%- else %}
echo '{"skipped": true}' > /logs/test_results.json
{%- endif %}
if [ "${_py_rc:-0}" -ne 0 ]; then rm -f /logs/test_results.json; fi
`
	in := checktest.PR(t, ownBranchConfig, ownBranchConfig, map[string]string{"tpl/test.sh": base}, map[string]string{"tpl/test.sh": head})
	res := New().Run(context.Background(), in)
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Title, "_py_rc ") && f.Level == checks.LevelFailure {
			t.Errorf("failure for the script's own name: %s: %s", f.Title, f.Message)
		}
	}
	if res.Conclusion == checks.Failure {
		t.Errorf("conclusion %s (%s), want no failure", res.Conclusion, res.Title)
	}
}
