package taint

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/plan"
)

// datasmithHead is shaped like datasmith's tests/test.sh: under set -e it
// runs a command on a named profile file before it sources it.
const datasmithHead = `#!/usr/bin/env bash
set -euo pipefail
chmod 755 /etc/profile.d/asv_build_vars.sh
source /etc/profile.d/asv_build_vars.sh
`

// TestTamperNamedProfileFiles: the hostile content goes into every
// profile file the script names, so a head that runs chmod on its profile
// file under set -e reaches its first step and is analysed (it gave
// "not run ... chmod: cannot access" when only 00-tamper.sh existed).
func TestTamperNamedProfileFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		script  string
		changed bool // whether the tamper run must find a change
	}{
		{"flags read after the source", datasmithHead + `# ── Restore
if [ "${FC_SKIP_PYTEST-}" = 1 ]; then echo skip pytest; fi
if [ "${FC_SKIP_SNAPSHOT-}" = 1 ]; then echo skip snapshot; fi
`, true},
		{"flags read into readonly copies before the source", strings.Replace(datasmithHead, "chmod", `if [ "${FC_SKIP_PYTEST-}" = 1 ]; then _skip=1; else _skip=0; fi
readonly _skip
unset FC_SKIP_PYTEST
chmod`, 1) + `# ── Restore
if [ "$_skip" = 1 ]; then echo skip pytest; fi
`, false},
		// A value that changes between two clean runs proves nothing
		// (datasmith's test.sh reads a start time after the source).
		{"a timestamp read after the source", datasmithHead + `test_start=$(date +%s%N)
sleep 0.01
# ── Restore
echo "$test_start"
`, false},
		{"the profile file named through a variable and in quotes", `#!/usr/bin/env bash
set -euo pipefail
F="/etc/profile.d/asv_build_vars.sh"
test -s '/etc/profile.d/asv_build_vars.sh' || true
chmod 755 "$F"
. "$F"
# ── Restore
echo "${FC_SKIP_PYTEST-}"
`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := settingsOf(config.Default(), config.Default())
			an, err := Analyze(tc.script, st.writable)
			if err != nil {
				t.Fatal(err)
			}
			s := &script{tmpl: plan.Template{Path: "tests/test.sh"}, set: "default", text: tc.script, an: an}
			in := &checks.Input{Config: config.Default(), WorkDir: t.TempDir()}
			tr := (&Check{}).tamperAll(context.Background(), in, st, []*script{s}, nil, false)
			if tr.notRun != "" {
				t.Fatalf("not run: %s", tr.notRun)
			}
			var titles []string
			for _, f := range tr.findings {
				titles = append(titles, f.Title)
			}
			if changed := len(tr.findings) > 0; changed != tc.changed {
				t.Errorf("findings %q, want a change: %v", titles, tc.changed)
			}
		})
	}
}

// TestProfileFiles lists the profile files a head names, without globs or
// paths that leave the folder.
func TestProfileFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, head string
		want       []string
	}{
		{"datasmith", datasmithHead, []string{"asv_build_vars.sh"}},
		{"glob loop", profileLoop, nil},
		{"outside and folder", "cat /etc/profile.d/../passwd /etc/profile.d/ /etc/profile.dx/a.sh\n", nil},
		{"nested, redirect, once each", "echo x > /etc/profile.d/sub/b.sh\n. /etc/profile.d/sub/b.sh\nX='/etc/profile.d/c.sh'\n", []string{"sub/b.sh", "c.sh"}},
		{"expansion", "chmod 755 /etc/profile.d/$NAME.sh\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := profileFiles(tc.head, "/etc/profile.d"); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("profileFiles = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTamperStops: a head that stops before its first step is not run,
// never a pass, and the reason says which run stopped: the clean run (the
// sandbox stops it, and PR code could do that on purpose) or only a run
// with a hostile file.
func TestTamperStops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, after, want string
	}{
		{"the clean run stops too", "test -d /template-verify-no-such-folder\n", "in the clean run"},
		{"only a hostile run stops", "[ \"${FC_SKIP_PYTEST-1}\" = 1 ] || exit 3\n", "hostile file (export, off), while the clean runs reached it (exit 3)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text := datasmithHead + tc.after + "# ── Restore\necho \"${FC_SKIP_PYTEST-}\"\n"
			st := settingsOf(config.Default(), config.Default())
			an, err := Analyze(text, st.writable)
			if err != nil {
				t.Fatal(err)
			}
			s := &script{tmpl: plan.Template{Path: "tests/test.sh"}, set: "default", text: text, an: an}
			in := &checks.Input{Config: config.Default(), WorkDir: t.TempDir()}
			tr := (&Check{}).tamperAll(context.Background(), in, st, []*script{s}, nil, false)
			if !strings.Contains(tr.notRun, tc.want) {
				t.Errorf("not run %q, want it to contain %q", tr.notRun, tc.want)
			}
		})
	}
}
