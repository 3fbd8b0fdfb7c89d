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
		{[]string{"help", "serve"}, []string{"-app-id string", "Example:"}},
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
		{[]string{"demo", "--format", "jsn"}, `unknown format "jsn": --format is one of markdown, json, text (did you mean "json"?)`},
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
		{"go install of a tag", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}}, "template-verify v1.2.0 (revision unknown (built without VCS information), go1.26.8)"},
		{"checkout build", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs}, "template-verify devel (revision 70b91c4a1b2c of 2026-12-01T10:00:00Z, with uncommitted changes, go1.26.8)"},
		{"docker build default", "dev", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs[:1]}, "template-verify devel (revision 70b91c4a1b2c, go1.26.8)"},
		{"release ldflags", "v1.3.0", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "template-verify v1.3.0 (revision unknown (built without VCS information), go1.26.8)"},
		{"no build info", "", nil, "template-verify unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := versionString(tc.ldflags, tc.info); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	code, stdout, _ := invoke(t, "version")
	if code != exitPass || !strings.HasPrefix(stdout, "template-verify ") || strings.Contains(stdout, "template-verify dev\n") {
		t.Errorf("version: exit %d %q", code, stdout)
	}
}
