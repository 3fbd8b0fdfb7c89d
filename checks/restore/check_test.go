package restore

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/sandbox"
)

func logFindings(t *testing.T, res checks.Result) {
	t.Helper()
	for _, f := range res.Findings {
		t.Logf("%s:%d %s: %s\n%s", f.Path, f.Line, f.Level, f.Message, f.Details)
	}
}

func TestFailingRandomSetIsShrunk(t *testing.T) {
	t.Parallel()
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
	res, ri := New().WithOptions(Options{ScenarioTimeout: time.Second, Catalogue: Catalogue()[:2]}).run(context.Background(), in)
	// The step sleeps 600 s (hang.patch). Half of that is the line: a
	// check that waited for the sleep, or for an orphan holding its
	// output, takes 600 s or more, while a loaded machine (57 s seen at
	// load 60) stays far below it.
	if took := time.Since(start); took > 300*time.Second {
		t.Errorf("the check took %s; the step was not killed at its limit", took)
	}
	if res.Conclusion != checks.Failure {
		t.Fatalf("conclusion %s", res.Conclusion)
	}
	got := outcomesOf(t, ri)
	for _, sc := range Catalogue()[:2] {
		if got[sc.Name].Verdict != TimedOut {
			t.Errorf("%s: %+v, want timed out", sc.Name, got[sc.Name])
		}
	}
	// A step that hangs in the catalogue would hang in every random set.
	if len(ri.random) != 0 || ri.skipReason == "" {
		t.Errorf("%d random sets ran (skip reason %q), want none", len(ri.random), ri.skipReason)
	}
	if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
		return strings.Contains(f.Message, "the step ran past the limit of 1s and was killed")
	}) {
		logFindings(t, res)
		t.Error("no finding says the step was killed at the limit")
	}
}

func TestStepCannotChangeAnythingOutsideItsFolder(t *testing.T) {
	if !sandbox.Available(context.Background()) {
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
			// The fixture is the project plus the files generated from the
			// policy ("protected sample ...") and the probe's own names
			// ("probe sample ...").
			want := fixture.Project()
			for p, e := range got {
				if _, ok := want[p]; !ok && (strings.HasPrefix(string(e.Data), "protected sample ") || strings.HasPrefix(string(e.Data), "probe sample ")) {
					want[p] = e
				}
			}
			if d := treeDiff(want, got); d != "" {
				t.Errorf("the base fixture changed: %s", d)
			}
			if m, _ := filepath.Glob(filepath.Join(in.WorkDir, "restore-*", "escape-test")); len(m) > 0 {
				t.Errorf("the step wrote %q", m)
			}
			// Inside its own folder the step did delete its repository, so
			// every scenario fails: the check shows what happened.
			if res.Conclusion != checks.Failure && sandbox.Backend(context.Background()) == sandbox.BackendBwrap { // landlock keeps it from listing the parent it deletes
				t.Errorf("conclusion %s, want failure", res.Conclusion)
			}
		})
	}
}

func TestCommandModeRunsAPythonRestore(t *testing.T) {
	t.Parallel()
	cfg := readTestdata(t, "config-command.yml")
	v := makeVerified(t,
		map[string]string{"tpl/tests/restore.py": readTestdata(t, "scripts/restore.py")},
		map[string]string{".github/template-verify.yml": cfg})
	in := inputFor(t, v)
	// A few scenarios of each kind (work tree, index, commits, names,
	// links, no baseline file) and random sets: the command runs and the
	// Python restore passes them. A Python start per scenario made the
	// whole catalogue one of the package's slowest tests.
	in.Config.Restore.Random.Count = 2
	res := New().WithOptions(Options{Catalogue: scenarios(t, "no-change", "edit-test-file", "add-test-file", "delete-test-file",
		"staged-edit", "untracked-file", "committed-edit", "add-benchmark-with-space", "file-to-symlink", "no-baseline-file")}).Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		logFindings(t, res)
		t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "The step is the configured command.") }) {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestStopsBeforeScenarios(t *testing.T) {
	t.Parallel()
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
		note string // a note that holds it
	}{
		{name: "section missing, config names it", script: "no-section.sh",
			want: checks.Failure, path: "tpl/tests/test.sh",
			msg: "The rendered tpl/tests/test.sh has no line that matches the section start ^# ── Restore protected paths."},
		{name: "step missing, defaults", script: "no-step.sh", edit: func(in *checks.Input) { in.Config.Restore.Explicit = false },
			want: checks.Failure, path: "tpl/tests/test.sh", msg: "The base's script has it, so this change removes the restore step."},
		{name: "render error", script: "render-error.sh",
			want: checks.Failure, path: "tpl/tests/test.sh", line: 2, msg: "tpl/tests/test.sh:2 does not render"},
		{name: "template missing, config names it", script: "good.sh", edit: func(in *checks.Input) { in.Config.Restore.Template = "harbor:tests/other.sh" },
			want: checks.Failure, path: ".github/template-verify.yml", msg: "The head has no file tpl/tests/other.sh."},
		{name: "template and step missing, defaults", script: "no-step.sh", edit: func(in *checks.Input) {
			in.Config.Restore.Template = "harbor:tests/other.sh"
			in.Config.Restore.Explicit = false
		}, want: checks.NotRun, title: "The restore check does not run: no template of the config's groups holds a restore step.",
			// The note names the template that was searched, never the
			// default's path that this repository does not have.
			note: "The check searched `tpl/tests/test.sh` for a restore step"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
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
			if c.note != "" && !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, c.note) && !strings.Contains(n, "other.sh") }) {
				t.Errorf("no note says %q: %q", c.note, res.Notes)
			}
			if len(res.Tables) != 0 {
				t.Errorf("scenarios ran: %+v", res.Tables)
			}
		})
	}
}

// TestStepThatRendersAtNeitherSideIsNotRun: when the variable set lacks a
// name at base and at head, the tool has no step to run; that is "not
// run", never a failure of the PR (the head alone lacking it fails, see
// TestStopsBeforeScenarios).
func TestStepThatRendersAtNeitherSideIsNotRun(t *testing.T) {
	t.Parallel()
	bad := script(t, "render-error.sh")
	v := makeVerified(t,
		map[string]string{config.Path: readTestdata(t, "config.yml"), "tpl/tests/test.sh": bad},
		map[string]string{"tpl/tests/test.sh": bad + "# a comment the head adds\n"})
	res := New().Run(context.Background(), inputFor(t, v))
	if res.Conclusion != checks.NotRun {
		logFindings(t, res)
		t.Fatalf("conclusion %s (%s), want not run", res.Conclusion, res.Title)
	}
	if !slices.ContainsFunc(res.Findings, func(f checks.Finding) bool {
		return f.Level == checks.LevelWarning && f.Line == 2 && strings.Contains(f.Message, "does not render either")
	}) {
		logFindings(t, res)
		t.Error("no warning says the base does not render either")
	}
}
