package jinja

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A pyenv shim (python3 on PATH under $PYENV_ROOT/shims) is a bash script
// that runs `pyenv exec`, about twenty bash processes that cost a second
// of CPU on a loaded machine, only to pick an interpreter. pyenvTarget
// picks it as pyenv does in the common case, so that the probe runs the
// interpreter itself: the version PYENV_VERSION names, else the first
// .python-version file in PYENV_DIR (or the working folder) or above it,
// else $PYENV_ROOT/version. Anything else (several versions, "system", a
// prefix such as "3.11" that pyenv completes, a version that is not
// installed) gives "", and the shim runs as before.

var shimRootRe = regexp.MustCompile(`(?m)^exec "([^"]+)/libexec/pyenv" exec "\$program" "\$@"$`)

// pyenvTarget returns the interpreter that the pyenv shim at shim would
// run, or "" when it is not a shim or the choice is not a plain one.
// getenv and wd are the process's environment and working folder.
func pyenvTarget(shim string, getenv func(string) string, wd string) string {
	src, err := os.ReadFile(shim)
	if err != nil || len(src) > 4096 || !bytes.HasPrefix(src, []byte("#!")) {
		return ""
	}
	m := shimRootRe.FindSubmatch(src)
	if m == nil {
		return ""
	}
	root := string(m[1])
	if r := getenv("PYENV_ROOT"); r != "" && filepath.Clean(r) != filepath.Clean(root) {
		return ""
	}
	version := getenv("PYENV_VERSION")
	if version == "" {
		version = pyenvVersionFile(root, getenv, wd)
	}
	if version == "" || version == "system" || version == "." || version == ".." ||
		strings.ContainsAny(version, "/: \t\r\n") {
		return ""
	}
	exe := filepath.Join(root, "versions", version, "bin", filepath.Base(shim))
	if st, err := os.Stat(exe); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return ""
	}
	return exe
}

// pyenvVersionFile reads the version that pyenv's version-file and
// version-file-read find; "" when there is none or more than one.
func pyenvVersionFile(root string, getenv func(string) string, wd string) string {
	file := ""
	for _, dir := range []string{getenv("PYENV_DIR"), wd} {
		if dir == "" {
			continue
		}
		if f := findUp(dir, ".python-version"); f != "" {
			file = f
			break
		}
	}
	if file == "" {
		file = filepath.Join(root, "version")
	}
	data, err := os.ReadFile(file)
	if err != nil || len(data) > 4096 {
		return ""
	}
	var versions []string
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r", ""), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		versions = append(versions, f[0])
	}
	if len(versions) != 1 {
		return ""
	}
	return versions[0]
}

// findUp returns the first dir/name, dir/../name, ... that is a regular
// file, or "".
func findUp(dir, name string) string {
	dir = filepath.Clean(dir)
	for {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
