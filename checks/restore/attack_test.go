package restore

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fixture"

	"github.com/formula-code/template-verify/config"
)

// These tests play a pull request whose restore step plants a door for the
// tool's own process: git config that names a command (fsmonitor, hooks,
// filters, pagers, an included config file), a .git that is a file or a
// FIFO, a repository or log folder that is a symlink, and report paths
// that leave the scenario folder. The step runs as the check runs it (in
// bubblewrap where it works). Each door's command would create a marker
// file in a folder outside the scenario; the tests assert that it never
// ran, that nothing outside changed, and that the scenario fails or names
// a clear error instead of passing on data from outside.

// attackRunner is a runner whose step is the good restore section of
// testdata/scripts/good.sh followed by extra, with the report path of the
// test config or report when not empty. The step text uses the config's
// paths (/workspace/repo, /logs/artifacts); they map onto the scenario.
func attackRunner(t *testing.T, extra, report string) *runner {
	t.Helper()
	cfg, err := config.Decode(config.Path, []byte(readTestdata(t, "config.yml")))
	if err != nil {
		t.Fatal(err)
	}
	rc := cfg.Restore
	sec, err := CutSection(readTestdata(t, "scripts/good.sh"), rc.Section.Start, rc.Section.End)
	if err != nil {
		t.Fatal(err)
	}
	if report == "" {
		report = rc.Report
	}
	policy, err := NewPolicy(rc.Patterns)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	built, err := prepare(root, fixture.Project())
	if err != nil {
		t.Fatal(err)
	}
	step := &Step{Template: "tpl/tests/test.sh", Script: sec.Text + extra, Paths: rc.Paths, Report: report}
	return &runner{step: step, policy: policy, base: built.Tree, baseSHA: built.SHA, src: built, root: root,
		opts: Options{Parallel: 1, ScenarioTimeout: 30 * time.Second}.settle()}
}

// snapshot lists the files under dir with their contents, to show that
// nothing outside the scenario changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := info.Mode().String()
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// outsideDir makes the folder outside every scenario that a door would
// write its marker into, with one file in it that must stay as it is.
func outsideDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("unchanged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// door writes an executable script at path (a path of the step, such as
// /workspace/repo/.git/door.sh) that creates OUT/marker-NAME.
func door(path, name string) string {
	return "mkdir -p \"$(dirname " + path + ")\"\n" +
		"printf '#!/bin/sh\\ntouch OUT/marker-" + name + "\\n' > " + path + "\n" +
		"chmod +x " + path + "\n"
}

func TestStepCannotPlantGitDoors(t *testing.T) {
	t.Parallel()
	const repo = "/workspace/repo"
	cases := []struct {
		name  string
		plant string
		// pass is true when the step leaves the work tree exactly as the
		// model expects, so that a pass is the right verdict.
		pass bool
	}{
		{"core.fsmonitor", door(repo+"/.git/door.sh", "fsmonitor") +
			"git -C " + repo + " config core.fsmonitor " + repo + "/.git/door.sh\n", true},
		{"core.hooksPath", door(repo+"/.git/evil-hooks/post-index-change", "hook") +
			"for h in pre-commit post-checkout post-commit reference-transaction pre-auto-gc fsmonitor-watchman; do cp " + repo + "/.git/evil-hooks/post-index-change " + repo + "/.git/evil-hooks/$h; done\n" +
			"git -C " + repo + " config core.hooksPath " + repo + "/.git/evil-hooks\n", true},
		{"include.path", door(repo+"/.git/door.sh", "include") +
			"printf '[core]\\n\\tfsmonitor = " + repo + "/.git/door.sh\\n' > " + repo + "/.git/evil.cfg\n" +
			"git -C " + repo + " config include.path evil.cfg\n", true},
		{"filter, pager, diff and ssh commands", door(repo+"/.git/door.sh", "config") +
			"for k in filter.evil.process filter.evil.smudge filter.evil.clean core.pager diff.external core.sshCommand core.editor core.askPass gpg.program; do git -C " + repo + " config $k " + repo + "/.git/door.sh; done\n" +
			"mkdir -p " + repo + "/.git/info && echo '* filter=evil diff=evil' > " + repo + "/.git/info/attributes\n", true},
		{".git is a file that points elsewhere", door(repo+"/../elsewhere.git/door.sh", "gitfile") +
			"mv " + repo + "/.git/* " + repo + "/../elsewhere.git/ && rmdir " + repo + "/.git\n" +
			"git --git-dir=" + repo + "/../elsewhere.git config core.fsmonitor " + repo + "/../elsewhere.git/door.sh\n" +
			"echo \"gitdir: $(cd " + repo + "/../elsewhere.git && pwd)\" > " + repo + "/.git\n", true},
		{"the repository is a symlink to another repository", door(repo+"/../other/.git/door.sh", "symlinked-repo") +
			"cp -a " + repo + "/. " + repo + "/../other/ && git -C " + repo + "/../other config core.fsmonitor " + repo + "/../other/.git/door.sh\n" +
			"cd / && rm -rf " + repo + " && ln -s other " + repo + "\n", false},
		{"the index is a FIFO", "rm -f " + repo + "/.git/index && mkfifo " + repo + "/.git/index\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := outsideDir(t)
			before := snapshot(t, out)
			r := attackRunner(t, strings.ReplaceAll(c.plant, "OUT", out), "")
			// A read that blocks would hold the test to this deadline.
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			o := r.run(ctx, Scenario{Name: "no-change"})
			if ctx.Err() != nil {
				t.Fatalf("the scenario ran until the deadline: a read blocked (%s: %v)", o.Verdict, o.Err)
			}
			if after := snapshot(t, out); !mapsEqual(before, after) {
				t.Errorf("the door ran outside the sandbox: the folder outside changed to %q", keys(after))
			}
			switch {
			case o.Verdict == Broken:
				t.Errorf("verdict error (%v), want a pass or a failure of the step", o.Err)
			case c.pass && o.Verdict != Pass:
				t.Errorf("verdict %s, diffs %q; the step left the tree as the model expects", o.Verdict, o.Diffs)
			case !c.pass && o.Verdict != Fail:
				t.Errorf("verdict %s, diffs %q, want a failure", o.Verdict, o.Diffs)
			}
			if t.Failed() {
				t.Logf("step stderr: %s", o.Stderr)
			}
		})
	}
}

// TestReportStaysInsideTheScenario gives restore.report paths that leave
// the scenario folder, and a step that makes the report or its folder a
// symlink to a file outside. The file outside holds JSON whose values must
// never reach the result.
func TestReportStaysInsideTheScenario(t *testing.T) {
	t.Parallel()
	const secret = "SECRET-FROM-OUTSIDE"
	const leaked = `{"ran": true, "base": "` + secret + `", "discarded": ["` + secret + `"], "remaining": []}`
	up := strings.Repeat("../", 30)
	cases := []struct {
		name   string
		report string // restore.report; "" keeps the config's
		plant  string // step lines; OUT is the folder outside
		// atRoot writes the leaked JSON at this path relative to the
		// runner's root (outside every scenario folder).
		atRoot string
		// made is a folder relative to the root that must not be made.
		made string
	}{
		{name: "dot-dot", report: "/logs/artifacts/../../x.json", atRoot: "x.json"},
		{name: "dot-dot into a new folder", report: "/logs/artifacts/../../made-by-tool/x.json", made: "made-by-tool"},
		{name: "/proc/self/environ", report: "/logs/artifacts/" + up + "proc/self/environ"},
		{name: "report is a symlink outside", plant: "rm -f /logs/artifacts/protected_restore.json && ln -s OUT/leak.json /logs/artifacts/protected_restore.json\n"},
		{name: "log folder is a symlink outside", plant: "rm -rf /logs/artifacts && ln -s OUT /logs/artifacts\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := outsideDir(t)
			if err := os.WriteFile(filepath.Join(out, "leak.json"), []byte(leaked), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, "protected_restore.json"), []byte(leaked), 0o644); err != nil {
				t.Fatal(err)
			}
			r := attackRunner(t, strings.ReplaceAll(c.plant, "OUT", out), c.report)
			if c.atRoot != "" {
				if err := os.WriteFile(filepath.Join(r.root, c.atRoot), []byte(leaked), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before, rootBefore := snapshot(t, out), topNames(t, r.root)
			o := r.run(context.Background(), Scenario{Name: "edit-test-file", Edits: []Edit{{Op: OpWrite, Path: "tests/test_core.py", Arg: "x\n"}}})
			text := strings.Join(o.Diffs, "\n")
			if o.Err != nil {
				text += "\n" + o.Err.Error()
			}
			if strings.Contains(text, secret) || strings.Contains(text, "invalid character") {
				t.Errorf("the result shows data of a file outside the scenario:\n%s", text)
			}
			if o.Verdict == Pass {
				t.Errorf("verdict pass; a report outside the scenario must not be read")
			}
			if !strings.Contains(text, "outside") && !strings.Contains(text, "not a regular file") && !strings.Contains(text, "leaves") {
				t.Errorf("no clear error about the report path:\n%s", text)
			}
			if c.made != "" {
				if _, err := os.Lstat(filepath.Join(r.root, c.made)); err == nil {
					t.Errorf("the check made the folder %s outside the scenario", c.made)
				}
			}
			if after := snapshot(t, out); !mapsEqual(before, after) {
				t.Errorf("the folder outside changed")
			}
			// The scenario folder itself is removed; nothing else appears
			// next to it.
			if rootAfter := topNames(t, r.root); !slices.Equal(rootBefore, rootAfter) {
				t.Errorf("the runner's folder changed from %q to %q", rootBefore, rootAfter)
			}
		})
	}
}

func topNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestStepCannotHideFilesWithGitignore: a step that leaves a file the
// policy deletes, and writes a .gitignore that ignores that file and
// itself, must not pass: which untracked files count as ignored is
// decided by the .gitignore files before the step, not after.
func TestStepCannotHideFilesWithGitignore(t *testing.T) {
	t.Parallel()
	const repo = "/workspace/repo"
	r := attackRunner(t, "echo 'def test_sneaky(): pass' > "+repo+"/tests/test_sneaky.py\n"+
		"printf '*\\n' > "+repo+"/tests/.gitignore\n"+
		"printf 'sneaky/\\n' >> "+repo+"/.git/info/exclude 2>/dev/null || { mkdir -p "+repo+"/.git/info && printf 'sneaky/\\n' > "+repo+"/.git/info/exclude; }\n"+
		"mkdir -p "+repo+"/sneaky && echo x > "+repo+"/sneaky/test_more.py\n", "")
	o := r.run(context.Background(), Scenario{Name: "no-change"})
	if o.Verdict != Fail {
		t.Fatalf("verdict %s (%v), diffs %q; want a failure", o.Verdict, o.Err, o.Diffs)
	}
	for _, want := range []string{
		"tests/test_sneaky.py: present, but the model expects no such file",
		"tests/.gitignore: present, but the model expects no such file",
		"sneaky/test_more.py: present, but the model expects no such file",
	} {
		if !slices.Contains(o.Diffs, want) {
			t.Errorf("no diff %q in %q", want, o.Diffs)
		}
	}
}

func TestCheckLayout(t *testing.T) {
	paths := config.RestorePaths{Repo: "/workspace/repo", BaselineSHA: "/opt/fc_baseline_sha", Logs: "/logs/artifacts"}
	cases := []struct {
		name     string
		baseline string
		report   string
		ok       bool
	}{
		{"defaults", "/opt/fc_baseline_sha", "/logs/artifacts/protected_restore.json", true},
		{"no report", "/opt/fc_baseline_sha", "", true},
		{"report in a sub folder", "/opt/fc_baseline_sha", "/logs/artifacts/a/b.json", true},
		{"report elsewhere keeps its base name", "/opt/fc_baseline_sha", "/var/log/r.json", true},
		{"report leaves", "/opt/fc_baseline_sha", "/logs/artifacts/../../r.json", false},
		{"report is the log folder's parent", "/opt/fc_baseline_sha", "/logs/artifacts/..", false},
		{"report is the scenario folder", "/opt/fc_baseline_sha", "/x/..", false},
		{"baseline is ..", "/opt/..", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := paths
			p.BaselineSHA = c.baseline
			err := checkLayout(NewLayout("/s/0001-x", p, c.report))
			if (err == nil) != c.ok {
				t.Errorf("checkLayout: %v, want ok=%v", err, c.ok)
			}
		})
	}
}
