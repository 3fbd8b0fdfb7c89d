package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestHelpOfEveryCommand: --help, -h and `help CMD` print the command's
// one-line summary, its flags and an example on stdout, with exit 0
// (issue 11.5).
func TestHelpOfEveryCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--help"}, []string{"Verify the template changes", "Flags:", "-base string", "Example:\n  template-verify run"}},
		{[]string{"run", "-h"}, []string{"Flags:", "-format string"}},
		{[]string{"help", "run"}, []string{"Verify the template changes", "-only string", "Example:"}},
		{[]string{"demo", "--help"}, []string{"bundled example", "-bad", "Example:\n  template-verify demo"}},
		{[]string{"serve", "--help"}, []string{"GitHub App", "-register", "-public-url string", "Example:\n  template-verify serve"}},
		{[]string{"help", "serve"}, []string{"-app-id string", "Example:", `(default "127.0.0.1:9090")`}},
		{[]string{"action", "--help"}, []string{"GitHub Action", "INPUT_", "Example:"}},
		{[]string{"help", "version"}, []string{"VCS revision", "Example:\n  template-verify version"}},
		{[]string{"help"}, []string{"Commands:", "run ", "serve ", "help COMMAND"}},
		{[]string{"--help"}, []string{"Commands:"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invoke(t, tc.args...)
			if code != exitPass {
				t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestEnumeratedFlagsAreValidated: a value outside an enumeration is a
// usage error that lists the valid values, with "did you mean" for a
// near miss.
func TestEnumeratedFlagsAreValidated(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"demo", "--progress", "sometimes"}, `unknown progress mode "sometimes": --progress is one of auto, always, never`},
		{[]string{"run", "--base", "main", "--progress", "alwys"}, `(did you mean "always"?)`},
		{[]string{"demo", "--format", "jsn"}, `unknown format "jsn": --format is one of markdown, json, text, sarif (did you mean "json"?)`},
		{[]string{"demo", "--only", "render,restor"}, `unknown check "restor" (did you mean "restore"?) (checks: render, restore`},
		{[]string{"run", "--base", "main", "--only", "spelling"}, `unknown check "spelling" (checks: render`},
		{[]string{"rnu"}, `unknown command "rnu" (did you mean "run"?)`},
		{[]string{"help", "serv"}, `unknown command "serv" (did you mean "serve"?)`},
		{[]string{"version", "now"}, `unexpected argument "now"`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			code, _, stderr := invoke(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
		})
	}
}

// TestVersionString: version prints the module version and the VCS
// revision from the build info; -ldflags wins over the module version.
func TestVersionString(t *testing.T) {
	t.Parallel()
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "70b91c4a1b2c3d4e5f60718293a4b5c6d7e8f901"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	cases := []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		want    string
	}{
		{"go install of a tag", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}}, "template-verify v1.2.0 (go1.26.8)"},
		{"checkout build", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs}, "template-verify devel (revision 70b91c4a1b2c of 2026-12-01T10:00:00Z, with uncommitted changes, go1.26.8)"},
		{"docker build default", "dev", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs[:1]}, "template-verify devel (revision 70b91c4a1b2c, go1.26.8)"},
		{"release ldflags", "v1.3.0", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "template-verify v1.3.0 (" + revisionUnknown + ", go1.26.8)"},
		{"worktree build with the ldflags revision", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "template-verify devel (revision 5a33fb3eff97, go1.26.8)"},
		{"no build info", "", nil, "template-verify unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ldRevision := ""
			if strings.Contains(tc.name, "ldflags revision") {
				ldRevision = "5a33fb3eff97aa11bb22cc33dd44ee55ff667788"
			}
			if got := versionString(tc.ldflags, ldRevision, tc.info); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	code, stdout, _ := invoke(t, "version")
	if code != exitPass || !strings.HasPrefix(stdout, "template-verify ") || strings.Contains(stdout, "template-verify dev\n") {
		t.Errorf("version: exit %d %q", code, stdout)
	}
}

// TestFlagTypos: a flag the command does not have gets "did you mean" for
// a near miss, then the command's own usage line, not the flag package's
// message and dump of every flag; -h still lists the flags.
func TestFlagTypos(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
		not  string
	}{
		{[]string{"run", "--bse", "main"}, "template-verify run: unknown flag --bse (did you mean --base?)\nUsage: template-verify run --base REV [--head REV] [--repo DIR] [flags]\nRun \"template-verify help run\" for all its flags.\n", ""},
		{[]string{"demo", "-formt=json"}, "unknown flag --formt (did you mean --format?)\nUsage: template-verify demo [--bad | --head NAME] [flags]\n", ""},
		{[]string{"demo", "--bda"}, "template-verify demo: unknown flag --bda (did you mean --bad?)\n", ""},
		{[]string{"ledger", "--hed", "release"}, "unknown flag --hed (did you mean --head?)\nUsage: template-verify ledger --head BRANCH", ""},
		{[]string{"serve", "--app-di", "1"}, "unknown flag --app-di (did you mean --app-id?)", ""},
		{[]string{"run", "--x"}, "template-verify run: unknown flag --x\nUsage:", "did you mean"},
		{[]string{"run", "--totally-different"}, "unknown flag --totally-different\n", "did you mean"},
		{[]string{"run", "--v=maybe"}, `template-verify run: invalid boolean value "maybe" for -v`, ""},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invoke(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if tc.not != "" && strings.Contains(stderr, tc.not) {
				t.Errorf("stderr has %q:\n%s", tc.not, stderr)
			}
			for _, dump := range []string{"flag provided but not defined", "Usage of ", "  -repo string"} {
				if strings.Contains(stderr, dump) {
					t.Errorf("stderr has the flag package's %q:\n%s", dump, stderr)
				}
			}
			if n := strings.Count(stderr, "\n"); n > 4 { // serve's usage has two lines
				t.Errorf("%d lines on stderr, want at most 4:\n%s", n, stderr)
			}
		})
	}
}

// TestHelpOfHelp: `help --help` and `help -h` print the help of help, exit 0.
func TestHelpOfHelp(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--help", "-h", "-help"} {
		code, stdout, stderr := invoke(t, "help", flag)
		if code != exitPass || !strings.Contains(stdout, "Usage:\n  template-verify help [COMMAND]") || stderr != "" {
			t.Errorf("help %s: exit %d\nstdout:\n%s\nstderr:\n%s", flag, code, stdout, stderr)
		}
	}
}
