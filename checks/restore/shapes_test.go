package restore

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// The shape generator: restore steps written in several styles, each
// clean or with one seeded restore bug, run for real (bash, python3, git)
// in the fixture repositories. Each bug must be caught for its reason and
// each clean step must be quiet, whatever the style: the check judges the
// step by what it does, not by how it is written.

// shapeStyle is one way of writing a restore step.
type shapeStyle string

const (
	styleGrep    shapeStyle = "grep over git diff"
	styleCase    shapeStyle = "case globs over a -z loop"
	styleStatus  shapeStyle = "git status --porcelain"
	stylePython  shapeStyle = "python step"
	styleOwnFile shapeStyle = "own template"
	// stylePythonFound is the Python step with no restore block in the
	// config: the check finds it by what it does and by the line of
	// test.sh that runs it.
	stylePythonFound shapeStyle = "python step, no config"
)

// shapeBug is one seeded restore bug ("" for a clean step).
type shapeBug string

const (
	bugNone       shapeBug = ""
	bugUntracked  shapeBug = "untracked files kept"
	bugSpaces     shapeBug = "names with spaces split"
	bugAgentTree  shapeBug = "policy read from the agent's tree"
	bugGlob       shapeBug = "a glob dropped"
	bugCommitted  shapeBug = "committed edits missed"
	shapeSeedBase          = 42
)

// shapePattern is the datasmith list, as one extended regular expression;
// testDir is the alternative a step that reads its test folder from the
// agent's pyproject.toml replaces.
const (
	shapeTestDir = `(^|/)tests?/`
	shapePattern = `(^|/)benchmarks?/|(^|/)asv\.conf|(^|/)\.snapshots/|(^|/)conftest\.py$|(^|/)\.github/|` + shapeTestDir + `|(^|/)test_[^/]*\.py$|(^|/)[^/]*_test\.py$`
	// shapeReadTestDir reads the test folder from the agent's pyproject.toml.
	shapeReadTestDir = `_rs_tdir="$(sed -n 's/^testpaths = \["\([^"]*\)"\]$/\1/p' pyproject.toml)"` + "\n"
)

// shapeCosmetic are the choices a seed makes that must not change a
// verdict: how a path is put back and the loop variable's name.
type shapeCosmetic struct {
	restoreCmd string
	loopVar    string
}

func cosmeticOf(seed uint64) shapeCosmetic {
	r := rand.New(rand.NewPCG(seed, 7))
	cmds := []string{`git checkout -q "$_rs_base" -- "$1"`, `git restore -q --source="$_rs_base" --staged --worktree -- "$1"`}
	vars := []string{"p", "path", "f", "name"}
	return shapeCosmetic{restoreCmd: cmds[r.IntN(len(cmds))], loopVar: vars[r.IntN(len(vars))]}
}

// shapeBash is the body of a bash restore step of the style with the bug.
func shapeBash(style shapeStyle, bug shapeBug, c shapeCosmetic) string {
	pattern := "_rs_pat='" + shapePattern + "'\n"
	if bug == bugGlob {
		pattern = "_rs_pat='" + strings.Replace(shapePattern, `(^|/)benchmarks?/|`, "", 1) + "'\n"
	}
	if bug == bugAgentTree {
		pattern = shapeReadTestDir + `_rs_pat="` + strings.Replace(shapePattern, shapeTestDir, `(^|/)${_rs_tdir}/`, 1) + "\"\n"
	}
	diffBase := `"$_rs_base"`
	if bug == bugCommitted {
		diffBase = "HEAD"
	}
	untracked := "; git ls-files -z --others --exclude-standard"
	if bug == bugUntracked {
		untracked = ""
	}
	v := c.loopVar
	var list, act string
	switch style {
	case styleCase:
		arms := `benchmarks/*|benchmark/*|*/benchmarks/*|*/benchmark/*|asv.conf*|*/asv.conf*|.snapshots/*|*/.snapshots/*|conftest.py|*/conftest.py|.github/*|*/.github/*|tests/*|test/*|*/tests/*|*/test/*|test_*.py|*/test_*.py|*_test.py`
		switch bug {
		case bugGlob:
			arms = strings.Replace(arms, `benchmarks/*|benchmark/*|*/benchmarks/*|*/benchmark/*|`, "", 1)
		case bugAgentTree:
			arms = strings.Replace(arms, `tests/*|test/*|*/tests/*|*/test/*`, `"$_rs_tdir"/*|*/"$_rs_tdir"/*`, 1)
		}
		pattern = ""
		if bug == bugAgentTree {
			pattern = shapeReadTestDir
		}
		list = fmt.Sprintf(`{ git diff --name-only -z --no-renames %s --%s; } | sort -zu`, diffBase, untracked)
		act = fmt.Sprintf("  case \"$%s\" in\n    %s) _rs_restore_one \"$%s\" ;;\n  esac\n", v, arms, v)
	case styleStatus:
		ut := "all"
		if bug == bugUntracked {
			ut = "no"
		}
		committed := `git diff --name-only -z --no-renames "$_rs_base" HEAD --; `
		if bug == bugCommitted {
			committed = ""
		}
		list = fmt.Sprintf(`{ %sgit status --porcelain=v1 -z --untracked-files=%s --no-renames | while IFS= read -r -d '' e; do printf '%%s\0' "${e:3}"; done; } | { grep -zE "$_rs_pat" || true; } | sort -zu`, committed, ut)
		act = fmt.Sprintf("  _rs_restore_one \"$%s\"\n", v)
	default: // grep over git diff
		list = fmt.Sprintf(`{ git diff --name-only -z --no-renames %s --%s; } | { grep -zE "$_rs_pat" || true; } | sort -zu`, diffBase, untracked)
		act = fmt.Sprintf("  _rs_restore_one \"$%s\"\n", v)
	}
	loop := fmt.Sprintf("while IFS= read -r -d '' %s; do\n%sdone < \"$_rs_list\"\n", v, act)
	if bug == bugSpaces {
		loop = fmt.Sprintf("for %s in $(tr '\\0' '\\n' < \"$_rs_list\"); do\n%sdone\n", v, act)
	}
	return `export GIT_LITERAL_PATHSPECS=1
_rs_restore_one() {
  if git cat-file -e "$_rs_base:$1" 2>/dev/null; then
    rm -rf -- "$1"
    ` + c.restoreCmd + `
  else
    git rm -q --cached --ignore-unmatch -- "$1"
    rm -rf -- "$1"
  fi
}
cd /workspace/repo || exit 1
_rs_base="$(tr -d '[:space:]' < /opt/fc_baseline_sha 2>/dev/null || true)"
if [ -n "$_rs_base" ] && git merge-base --is-ancestor "$_rs_base" HEAD 2>/dev/null; then
` + pattern + `  _rs_list="$(mktemp)"
  ` + list + ` > "$_rs_list"
` + loop + `fi
unset GIT_LITERAL_PATHSPECS
`
}

// shapePython is a restore step in Python with the bug.
func shapePython(bug shapeBug) string {
	pattern := shapePattern
	if bug == bugGlob {
		pattern = strings.Replace(pattern, `(^|/)benchmarks?/|`, "", 1)
	}
	compile := "    protected = re.compile(r'" + pattern + "')\n"
	if bug == bugAgentTree {
		compile = `    with open(os.path.join(repo, "pyproject.toml")) as f:
        m = re.search(r'^testpaths = \["([^"]*)"\]$', f.read(), re.M)
    tdir = re.escape(m.group(1)) if m else "tests"
` + "    protected = re.compile(r'" + pattern + "'.replace(r'" + shapeTestDir + "', \"(^|/)\" + tdir + \"/\"))\n"
	}
	diffBase := "base"
	if bug == bugCommitted {
		diffBase = `"HEAD"`
	}
	untracked := `    out += git(repo, "ls-files", "-z", "--others", "--exclude-standard").stdout` + "\n"
	if bug == bugUntracked {
		untracked = ""
	}
	names := `{n.decode("utf-8", "surrogateescape") for n in out.split(b"\0") if n}`
	if bug == bugSpaces {
		names = `set(out.replace(b"\0", b" ").decode("utf-8", "surrogateescape").split())`
	}
	return `"""Restore step of task {{ task_id }}, in Python (shape test)."""
import os
import re
import shutil
import subprocess
import sys


def git(repo, *args, check=True):
    return subprocess.run(["git", "-C", repo, "--literal-pathspecs", *args], capture_output=True, check=check)


def main():
    repo, baseline = sys.argv[1], sys.argv[2]
    try:
        with open(baseline) as f:
            base = f.read().strip()
    except OSError:
        return
    if not base or git(repo, "merge-base", "--is-ancestor", base, "HEAD", check=False).returncode != 0:
        return
` + compile + `    out = git(repo, "diff", "--name-only", "-z", "--no-renames", ` + diffBase + `, "--").stdout
` + untracked + `    for p in sorted(n for n in ` + names + ` if protected.search(n)):
        full = os.path.join(repo, p)
        if os.path.islink(full) or os.path.isfile(full):
            os.unlink(full)
        elif os.path.isdir(full):
            shutil.rmtree(full)
        if git(repo, "cat-file", "-e", f"{base}:{p}", check=False).returncode == 0:
            git(repo, "checkout", "-q", base, "--", p)
        else:
            git(repo, "rm", "-q", "--cached", "--ignore-unmatch", "--", p)


main()
`
}

// shapeConfig is the config of the shape repositories: the step is the
// section of test.sh, or a command that runs its own template.
func shapeConfig(style shapeStyle) string {
	step := `  section: {start: '^# ── Restore protected paths', end: '^# ── '}`
	template := "harbor:tests/test.sh"
	switch style {
	case stylePython:
		template = "harbor:tests/restore.py"
		step = `  command: /usr/bin/python3 {script} /workspace/repo /opt/fc_baseline_sha`
	case styleOwnFile:
		template = "harbor:tests/restore_step.sh"
		step = `  command: bash {script}`
	case stylePythonFound:
		return shapeGroups
	}
	return shapeGroups + `restore:
  template: ` + template + `
` + step + `
  paths: {repo: /workspace/repo, baseline_sha: /opt/fc_baseline_sha, logs: /logs/artifacts}
  random: {count: 0, seed: 1}
`
}

// shapeGroups is the config's groups: one, harbor, of every template.
const shapeGroups = `version: 1
groups:
  - name: harbor
    root: tpl
    jinja: {strict_undefined: true, keep_trailing_newline: true}
    vars: {task_id: demo-1}
    templates:
      - path: "**"
`

// shapeFiles are the template files of one side: the config, test.sh and
// the step's own template where the style has one. note changes nothing
// the step does (a comment), so that a clean head differs from its base.
func shapeFiles(style shapeStyle, bug shapeBug, seed uint64, note string) map[string]string {
	c := cosmeticOf(seed)
	files := map[string]string{".github/template-verify.yml": shapeConfig(style)}
	head := "#!/bin/bash\n# Grader for task {{ task_id }} (shape test)." + note + "\nset -uo pipefail\n\n"
	tail := "\n# ── Pytest ──\necho \"pytest would run here\"\n"
	switch style {
	case stylePython, stylePythonFound:
		files["tpl/tests/restore.py"] = "# " + note + "\n" + shapePython(bug)
		files["tpl/tests/test.sh"] = head + "# ── Restore protected paths ──\npython3 /tests/restore.py /workspace/repo /opt/fc_baseline_sha\n" + tail
	case styleOwnFile:
		files["tpl/tests/restore_step.sh"] = "#!/bin/bash\n# Restore step of task {{ task_id }}." + note + "\n" + shapeBash(styleGrep, bug, c)
		files["tpl/tests/test.sh"] = head + "# ── Restore protected paths ──\nsource /tests/restore_step.sh\n" + tail
	default:
		files["tpl/tests/test.sh"] = head + "# ── Restore protected paths ──\n" + shapeBash(style, bug, c) + tail
	}
	return files
}

// shapeScenarios are the catalogue scenarios that show the seeded bugs,
// and those every step passes: a clean step runs them all. A step with a
// bug runs the scenario of its reason (and the probes), which keeps the
// 30 checks of the table cheap.
var shapeScenarios = []string{"no-change", "fix-only", "edit-test-file", "untracked-file", "committed-edit", "edit-policy-sources"}

// shapeScenarioOf is the scenario that shows a bug; "" when the probes
// show it.
var shapeScenarioOf = map[shapeBug]string{bugUntracked: "untracked-file", bugAgentTree: "edit-policy-sources", bugCommitted: "committed-edit"}

// shapeCaught reports whether a check result shows the bug for its
// reason, and says what it shows.
func shapeCaught(bug shapeBug, res checks.Result, ri *resultInput) (bool, string) {
	failedScenario := func(name string) bool {
		if ri == nil {
			return false
		}
		for i, o := range ri.catalogue {
			if o.Scenario.Name == name && o.Verdict == Fail && !cmpAt(ri.cmp.Catalogue, i).PreExisting {
				return true
			}
		}
		return false
	}
	finding := func(sub string) bool {
		return slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
			return f.Level == checks.LevelFailure && strings.Contains(f.Title+" "+f.Message, sub)
		})
	}
	switch bug {
	case bugUntracked:
		// The probe adds a file next to files: the base's step deletes
		// it, the head's keeps it. The scenario fails where the model
		// still expects the added file gone.
		added := slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
			p, ok := strings.CutPrefix(f.Title, "The head stops protecting ")
			return ok && f.Level == checks.LevelFailure && strings.Contains(p, "_added")
		})
		return failedScenario(shapeScenarioOf[bug]) || added, "untracked-file fails or the head stops protecting an added file"
	case bugSpaces:
		// A name with a space the step does not put back: beside the same
		// name without one, or where the base's step puts it back.
		spaced := slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
			if f.Level != checks.LevelFailure {
				return false
			}
			if p, ok := strings.CutPrefix(f.Title, "The head stops protecting "); ok {
				return strings.Contains(p, " ")
			}
			return strings.Contains(f.Message, "the same name with a space")
		})
		return spaced, "a name with a space is not protected"
	case bugAgentTree:
		return failedScenario("edit-policy-sources"), "scenario edit-policy-sources fails"
	case bugGlob:
		return finding("The head stops protecting benchmarks/"), "the head stops protecting benchmarks/"
	case bugCommitted:
		return failedScenario("committed-edit"), "scenario committed-edit fails"
	}
	return false, ""
}

// TestShapes: every style of step, clean or with each seeded bug. The
// base is the clean step of the style, the head the step with the bug (a
// clean head differs from the base by a comment). A bug must fail the
// check for its reason; a clean step must pass with no failure finding.
// allShapes runs every cell of TestShapes; by default each style runs
// clean and with one seeded bug, and each bug runs in one style (a
// rotation), which keeps CI's restore package near its old time.
var allShapes = flag.Bool("restore-shapes-all", false, "TestShapes runs every style with every seeded bug (36 restore checks) instead of a rotation (12)")

func TestShapes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs 36 restore checks; skipped with -short")
	}
	styles := []shapeStyle{styleGrep, styleCase, styleStatus, stylePython, styleOwnFile, stylePythonFound}
	bugs := []shapeBug{bugNone, bugUntracked, bugSpaces, bugAgentTree, bugGlob, bugCommitted}
	table := make([][]string, len(styles))
	for i := range table {
		table[i] = make([]string, len(bugs))
	}
	t.Cleanup(func() {
		var b strings.Builder
		fmt.Fprintf(&b, "%-28s", "style \\ bug")
		for _, bug := range bugs {
			name := string(bug)
			if name == "" {
				name = "clean"
			}
			fmt.Fprintf(&b, " | %-34s", name)
		}
		b.WriteString("\n")
		for i, s := range styles {
			fmt.Fprintf(&b, "%-28s", s)
			for j := range bugs {
				fmt.Fprintf(&b, " | %-34s", table[i][j])
			}
			b.WriteString("\n")
		}
		t.Log("\n" + b.String())
	})
	for i, style := range styles {
		for j, bug := range bugs {
			if !*allShapes && j != 0 && j != 1+i%(len(bugs)-1) {
				table[i][j] = "(not run: -restore-shapes-all)"
				continue
			}
			name := string(style) + "/" + string(bug)
			if bug == bugNone {
				name = string(style) + "/clean"
			}
			seed := uint64(shapeSeedBase + 10*i + j)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				v := makeVerified(t, shapeFiles(style, bugNone, seed, ""), shapeFiles(style, bug, seed, " A harmless change."))
				in := inputFor(t, v)
				if style == stylePythonFound {
					// The defaults' 16 random sets are not what the table tests.
					in.Config.Restore.Random.Count = 0
					in.BaseConfig.Restore.Random.Count = 0
				}
				list := shapeScenarios
				if bug != bugNone {
					list = []string{"no-change"}
					if sc := shapeScenarioOf[bug]; sc != "" {
						list = []string{sc}
					}
				}
				res, ri := New().WithOptions(Options{Catalogue: scenarios(t, list...)}).run(context.Background(), in)
				if bug == bugNone {
					quiet := res.Conclusion == checks.Success && !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool { return f.Level == checks.LevelFailure })
					table[i][j] = "quiet"
					if !quiet {
						table[i][j] = "NOT QUIET"
						logFindings(t, res)
						t.Errorf("clean step (seed %d): conclusion %s: %s", seed, res.Conclusion, res.Title)
					}
					return
				}
				caught, why := shapeCaught(bug, res, ri)
				table[i][j] = "caught: " + why
				if !caught || res.Conclusion != checks.Failure {
					table[i][j] = "MISSED: " + why
					logFindings(t, res)
					t.Errorf("seeded bug %q (seed %d) not caught for its reason (%s): conclusion %s: %s", bug, seed, why, res.Conclusion, res.Title)
				}
			})
		}
	}
}
