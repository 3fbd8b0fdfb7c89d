package jinja

import (
	"os"
	"path/filepath"
	"testing"
)

// fakePyenv lays out a pyenv root with the shim pyenv writes and the
// versions given, each with an executable bin/python3.
func fakePyenv(t *testing.T, versions ...string) (root, shim string) {
	t.Helper()
	root = t.TempDir()
	shim = filepath.Join(root, "shims", "python3")
	src := "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\nprogram=\"${0##*/}\"\n\n" +
		"export PYENV_ROOT=\"" + root + "\"\nexec \"" + root + "/libexec/pyenv\" exec \"$program\" \"$@\"\n"
	write(t, shim, src, 0o755)
	for _, v := range versions {
		write(t, filepath.Join(root, "versions", v, "bin", "python3"), "#!/bin/sh\n", 0o755)
	}
	return root, shim
}

func write(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func TestPyenvTargetPicksAsPyenvDoes(t *testing.T) {
	root, shim := fakePyenv(t, "3.11.7", "3.12.1", "venv1")
	bin := func(v string) string { return filepath.Join(root, "versions", v, "bin", "python3") }
	write(t, filepath.Join(root, "version"), "# global\n3.11.7\n", 0o644)
	project := t.TempDir()
	write(t, filepath.Join(project, ".python-version"), "3.12.1\n", 0o644)
	deep := filepath.Join(project, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name string
		env  func(string) string
		wd   string
		want string
	}{
		{"global version file", env(), elsewhere, bin("3.11.7")},
		{"PYENV_ROOT agrees", env("PYENV_ROOT", root+"/"), elsewhere, bin("3.11.7")},
		{".python-version above the folder", env(), deep, bin("3.12.1")},
		{"PYENV_VERSION first", env("PYENV_VERSION", "venv1"), deep, bin("venv1")},
		{"PYENV_DIR before the folder", env("PYENV_DIR", project), elsewhere, bin("3.12.1")},
		{"another PYENV_ROOT", env("PYENV_ROOT", t.TempDir()), elsewhere, ""},
		{"several versions", env("PYENV_VERSION", "3.11.7:3.12.1"), elsewhere, ""},
		{"system", env("PYENV_VERSION", "system"), elsewhere, ""},
		{"a prefix pyenv completes", env("PYENV_VERSION", "3.11"), elsewhere, ""},
		{"not installed", env("PYENV_VERSION", "3.9.1"), elsewhere, ""},
		{"out of versions", env("PYENV_VERSION", "../../shims"), elsewhere, ""},
	} {
		if got := pyenvTarget(shim, c.env, c.wd); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}

	two := t.TempDir()
	write(t, filepath.Join(two, ".python-version"), "3.11.7\n3.12.1\n", 0o644)
	if got := pyenvTarget(shim, env(), two); got != "" {
		t.Errorf("a .python-version with two versions: %q, want the shim", got)
	}
	real := filepath.Join(t.TempDir(), "python3")
	write(t, real, "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", 0o755)
	if got := pyenvTarget(real, env(), elsewhere); got != "" {
		t.Errorf("a script that is no pyenv shim: %q", got)
	}
	if got := pyenvTarget("/usr/bin/python3", env(), elsewhere); got != "" {
		t.Errorf("an interpreter: %q", got)
	}
}
