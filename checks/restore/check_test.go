package restore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// verdicts maps each catalogue scenario of a result's table to its verdict.
func verdicts(t *testing.T, res checks.Result) map[string]string {
	t.Helper()
	if len(res.Tables) != 1 || res.Tables[0].Title != "Restore scenarios" {
		t.Fatalf("want one table named Restore scenarios, got %+v", res.Tables)
	}
	// The base column is there when a scenario fails at head.
	h := res.Tables[0].Header
	if !slices.Equal(h, []string{"Scenario", "Verdict", "Discarded"}) && !slices.Equal(h, []string{"Scenario", "Verdict", "At base", "Discarded"}) {
		t.Fatalf("header %q", h)
	}
	out := map[string]string{}
	for _, row := range res.Tables[0].Rows {
		out[row[0]] = row[1]
	}
	return out
}

func logFindings(t *testing.T, res checks.Result) {
	t.Helper()
	for _, f := range res.Findings {
		t.Logf("%s:%d %s: %s\n%s", f.Path, f.Line, f.Level, f.Message, f.Details)
	}
}

func TestGoodScriptPassesEveryScenario(t *testing.T) {
	in := scriptInput(t, "good.sh")
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		logFindings(t, res)
		t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
	}
	v := verdicts(t, res)
	for _, sc := range Catalogue() {
		if v[sc.Name] != string(Pass) {
			t.Errorf("scenario %s: verdict %q", sc.Name, v[sc.Name])
		}
	}
	if got := v["random sets (seed 1)"]; got != "40 of 40 pass" {
		t.Errorf("random row: %q", got)
	}
	if len(res.Findings) != 0 {
		t.Errorf("findings on a pass: %+v", res.Findings)
	}
	n := len(Catalogue())
	wantFigures := map[string]string{"Restore scenarios": fmt.Sprintf("%d of %d pass", n, n), "Random restore sets": "40 of 40 pass (seed 1)"}
	for _, f := range res.Figures {
		if w, ok := wantFigures[f.Label]; ok && f.Value != w {
			t.Errorf("figure %s = %q, want %q", f.Label, f.Value, w)
		}
		if f.Label == "Restore scenarios" && f.Command != "template-verify run --repo . --base base --head HEAD --only restore" {
			t.Errorf("figure %s: command %q", f.Label, f.Command)
		}
	}
	wantNote := "without a sandbox"
	if sandbox.Available() {
		wantNote = "in a bubblewrap sandbox"
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, wantNote) }) {
		t.Errorf("no note says %q: %q", wantNote, res.Notes)
	}
}

// TestWrongScriptsFail runs restore steps with one bug each and checks
// that the scenarios that expose the bug fail and the others pass.
func TestWrongScriptsFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole catalogue five times")
	}
	cases := []struct {
		script     string
		fail, pass []string
	}{
		{
			script: "from-head.sh",
			fail:   []string{"committed-edit", "committed-add", "several-commits"},
			pass:   []string{"unstaged-edit", "staged-edit", "untracked-file", "add-test-file", "no-change", "no-baseline-file"},
		},
		{
			script: "spaces.sh",
			fail:   []string{"add-benchmark-with-space", "quotes-and-backslash-in-name", "fix-plus-tampering"},
			pass:   []string{"edit-test-file", "committed-edit", "non-ascii-name", "delete-benchmark"},
		},
		{
			script: "keeps-added.sh",
			fail:   []string{"add-test-file", "add-github-workflow", "add-benchmark-with-space", "untracked-file", "committed-add", "rename-test-file"},
			pass:   []string{"edit-test-file", "delete-test-file", "mode-change", "file-to-symlink", "committed-edit"},
		},
		{
			script: "no-baseline.sh",
			fail:   []string{"no-baseline-file"},
			pass:   []string{"committed-edit", "unrelated-checkout", "fix-plus-tampering"},
		},
		{
			script: "glob.sh",
			fail:   []string{"glob-characters-in-name"},
			pass:   []string{"add-benchmark-with-space", "edit-test-file"},
		},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			in := scriptInput(t, c.script)
			in.Config.Restore.Random.Count = 0 // the catalogue is enough here
			// Only the scenarios the case names, to keep the test short;
			// TestGoodScriptPassesEveryScenario runs them all.
			res := New().WithOptions(Options{Catalogue: scenarios(t, append(c.fail, c.pass...)...)}).Run(context.Background(), in)
			if res.Conclusion != checks.Failure {
				t.Fatalf("conclusion %s, want failure: %s", res.Conclusion, res.Title)
			}
			v := verdicts(t, res)
			for _, name := range c.fail {
				if v[name] != string(Fail) {
					t.Errorf("scenario %s: verdict %q, want fail", name, v[name])
				}
				if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
					return strings.HasPrefix(f.Message, "Scenario "+name+": ") && f.Level == checks.LevelFailure &&
						f.Path == "tpl/tests/test.sh" && f.Line == 10
				}) {
					t.Errorf("no failure finding at tpl/tests/test.sh:10 for %s", name)
				}
			}
			for _, name := range c.pass {
				if v[name] != string(Pass) {
					t.Errorf("scenario %s: verdict %q, want pass", name, v[name])
				}
			}
			if t.Failed() {
				logFindings(t, res)
			}
		})
	}
}

func TestFailingRandomSetIsShrunk(t *testing.T) {
	in := scriptInput(t, "keeps-added.sh")
	in.Config.Restore.Random.Count = 8
	res := New().WithOptions(Options{Catalogue: []Scenario{{Name: "no-change"}}, MaxShrunk: 2}).Run(context.Background(), in)
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s", res.Conclusion)
	}
	base := fixture.Project()
	shrunk := 0
	for _, f := range res.Findings {
		if !strings.HasPrefix(f.Title, "Random restore set") {
			continue
		}
		shrunk++
		// The details start with the replayable edit list.
		_, list, ok := strings.Cut(f.Details, "(restore.ParseEdits reads them):\n")
		list, _, ok2 := strings.Cut(list, "\nDifferences:\n")
		if !ok || !ok2 {
			t.Fatalf("details have no edit list:\n%s", f.Details)
		}
		edits, err := ParseEdits(list)
		if err != nil {
			t.Fatalf("the printed edits do not parse: %v\n%s", err, list)
		}
		// keeps-added fails only when the agent adds a protected file; a
		// minimal list is that one write (or a move to a protected path).
		if len(edits) != 1 || (edits[0].Op != OpWrite && edits[0].Op != OpMove) {
			t.Errorf("not minimal: %q", FormatEdits(edits))
		}
		added := edits[0].Path
		if edits[0].Op == OpMove {
			added = edits[0].Arg
		}
		if _, inBase := base[added]; inBase {
			t.Errorf("the minimal edit touches %s, which is in the base", added)
		}
		if !strings.Contains(f.Message, added+": still present, the model deletes it") {
			t.Errorf("message does not name %s: %s", added, f.Message)
		}
		// Replaying the printed list gives the same failure.
		o, err := New().Replay(context.Background(), in, Scenario{Name: "replay", Edits: edits})
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != Fail || !slices.Contains(o.Diffs, added+": still present, the model deletes it") {
			t.Errorf("the replay gives %s: %q", o.Verdict, o.Diffs)
		}
	}
	if shrunk != 2 {
		t.Errorf("%d random findings with a shrunk list, want 2 (MaxShrunk)", shrunk)
		logFindings(t, res)
	}
}

func TestHangingStepTimesOut(t *testing.T) {
	in := scriptInput(t, "hang.sh")
	in.Config.Restore.Random.Count = 5
	start := time.Now()
	res := New().WithOptions(Options{ScenarioTimeout: time.Second, Catalogue: Catalogue()[:2]}).Run(context.Background(), in)
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the check took %s; the step was not killed at its limit", took)
	}
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s", res.Conclusion)
	}
	v := verdicts(t, res)
	for _, sc := range Catalogue()[:2] {
		if v[sc.Name] != string(TimedOut) {
			t.Errorf("%s: verdict %q, want timed out", sc.Name, v[sc.Name])
		}
	}
	if got := v["random sets (seed 1)"]; got != "not run" {
		t.Errorf("random row %q, want not run", got)
	}
	if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
		return strings.Contains(f.Message, "the step ran past the limit of 1s and was killed")
	}) {
		logFindings(t, res)
		t.Error("no finding says the step was killed at the limit")
	}
}

func TestStepCannotChangeAnythingOutsideItsFolder(t *testing.T) {
	if !sandbox.Available() {
		t.Skip("bubblewrap is not usable here; without it the step could delete the test's folders")
	}
	// The sandbox puts an empty /tmp over the host's; a work folder
	// outside /tmp shows that the rest of the file system is read-only.
	for _, parent := range []string{os.TempDir(), "/var/tmp"} {
		t.Run(parent, func(t *testing.T) {
			_ = os.Remove("/tmp/template-verify-escape-test")
			in := scriptInput(t, "escape.sh")
			in.Config.Restore.Random.Count = 0
			work, err := os.MkdirTemp(parent, "restore-escape-")
			if err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(work) })
			in.WorkDir = filepath.Join(work, "work")
			if err := os.Mkdir(in.WorkDir, 0o755); err != nil {
				t.Fatal(err)
			}
			canary := filepath.Join(work, "canary")
			if err := os.WriteFile(canary, []byte("still here\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := New().WithOptions(Options{Keep: true, Catalogue: Catalogue()[:3]}).Run(context.Background(), in)
			if b, err := os.ReadFile(canary); err != nil || string(b) != "still here\n" {
				t.Errorf("the canary next to the work folder changed: %q, %v", b, err)
			}
			if _, err := os.Stat("/tmp/template-verify-escape-test"); err == nil {
				t.Error("the step wrote /tmp/template-verify-escape-test on the host")
			}
			// The step deletes the check's folder, which holds the base
			// fixture and the other scenarios. The base fixture must be whole.
			roots, _ := filepath.Glob(filepath.Join(in.WorkDir, "restore-*", "base"))
			if len(roots) != 1 {
				t.Fatalf("base fixture folders: %q", roots)
			}
			got, err := fixture.ReadWork(context.Background(), roots[0])
			if err != nil {
				t.Fatal(err)
			}
			if d := treeDiff(fixture.Project(), got); d != "" {
				t.Errorf("the base fixture changed: %s", d)
			}
			if m, _ := filepath.Glob(filepath.Join(in.WorkDir, "restore-*", "escape-test")); len(m) > 0 {
				t.Errorf("the step wrote %q", m)
			}
			// Inside its own folder the step did delete its repository, so
			// every scenario fails: the check shows what happened.
			if res.Conclusion != checks.Failure {
				t.Errorf("conclusion %s, want failure", res.Conclusion)
			}
		})
	}
}

func TestCommandModeRunsAPythonRestore(t *testing.T) {
	cfg := readTestdata(t, "config-command.yml")
	v := makeVerified(t,
		map[string]string{"tpl/tests/restore.py": readTestdata(t, "scripts/restore.py")},
		map[string]string{".github/template-verify.yml": cfg})
	in := inputFor(t, v)
	in.Config.Restore.Random.Count = 10
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		logFindings(t, res)
		t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "The step is the configured command.") }) {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestStopsBeforeScenarios(t *testing.T) {
	cases := []struct {
		name   string
		script string
		edit   func(in *checks.Input)
		want   checks.Conclusion
		title  string
		// A failure finding at path:line whose message holds msg.
		path string
		line int
		msg  string
	}{
		{name: "section missing, config names it", script: "no-section.sh",
			want: checks.Failure, path: "tpl/tests/test.sh",
			msg: "The rendered tpl/tests/test.sh has no line that matches the section start ^# ── Restore protected paths."},
		{name: "section missing, defaults", script: "no-section.sh", edit: func(in *checks.Input) { in.Config.Restore.Explicit = false },
			want: checks.Failure, path: "tpl/tests/test.sh", msg: "The base's script has it, so this change removes the restore step."},
		{name: "render error", script: "render-error.sh",
			want: checks.Failure, path: "tpl/tests/test.sh", line: 2, msg: "tpl/tests/test.sh:2 does not render"},
		{name: "template missing, config names it", script: "good.sh", edit: func(in *checks.Input) { in.Config.Restore.Template = "harbor:tests/other.sh" },
			want: checks.Failure, path: ".github/template-verify.yml", msg: "The head has no file tpl/tests/other.sh."},
		{name: "template missing, defaults", script: "good.sh", edit: func(in *checks.Input) {
			in.Config.Restore.Template = "harbor:tests/other.sh"
			in.Config.Restore.Explicit = false
		}, want: checks.NotRun, title: "The head has no file tpl/tests/other.sh. The default restore check does not apply."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := scriptInput(t, c.script)
			if c.edit != nil {
				c.edit(in)
			}
			res := New().Run(context.Background(), in)
			if res.Conclusion != c.want {
				t.Fatalf("conclusion %s, want %s (%s)", res.Conclusion, c.want, res.Title)
			}
			if c.title != "" && res.Title != c.title {
				t.Errorf("title %q\nwant  %q", res.Title, c.title)
			}
			if c.msg != "" && !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
				return f.Level == checks.LevelFailure && f.Path == c.path && f.Line == c.line && strings.Contains(f.Message, c.msg)
			}) {
				logFindings(t, res)
				t.Errorf("no failure finding at %s:%d with %q", c.path, c.line, c.msg)
			}
			if len(res.Tables) != 0 {
				t.Errorf("scenarios ran: %+v", res.Tables)
			}
		})
	}
}
