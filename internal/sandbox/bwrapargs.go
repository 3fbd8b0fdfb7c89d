// The bubblewrap command line of a sandbox: the read-only system folders and host entries, the writable run folder, the sized /tmp.

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

func bwrapArgs(spec Spec, home string) []string {
	a := []string{"bwrap",
		"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session",
		"--proc", "/proc",
		"--dev", "/dev",
	}
	if tmpSized {
		a = append(a, "--size", strconv.Itoa(TmpSize))
	}
	a = append(a,
		"--tmpfs", "/tmp",
		"--dir", "/var/tmp",
	)
	for _, d := range systemDirs {
		a = append(a, hostEntry(d, d)...)
	}
	a = append(a, "--dir", "/etc")
	for _, e := range etcEntries() {
		a = append(a, hostEntry(e, e)...)
	}
	seen := map[string]bool{}
	for _, r := range extraReadOnly(spec) {
		seen[r] = true
		a = append(a, "--ro-bind-try", r, r)
	}
	for _, w := range append([]string{spec.Dir, home}, spec.Writable...) {
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		a = append(a, "--bind", w, w)
	}
	if spec.Dir != "" {
		a = append(a, "--chdir", spec.Dir)
	}
	return append(append(a, "--"), spec.Args...)
}

// etcEntries are the paths of /etc that a sandbox reads.
func etcEntries() []string {
	etc, _ := filepath.Glob("/etc/python3.*")
	for _, e := range etcFiles {
		etc = append(etc, "/etc/"+e)
	}
	return etc
}

// extraReadOnly are the folders beyond the system ones that a sandbox
// reads: trusted interpreters, the operator's (ReadOnlyEnv) and the
// spec's, each once and absolute.
func extraReadOnly(spec Spec) []string {
	trustedMu.Lock()
	ro := append(slices.Clone(trusted), filepath.SplitList(os.Getenv(ReadOnlyEnv))...)
	trustedMu.Unlock()
	var out []string
	for _, r := range append(ro, spec.ReadOnly...) {
		if r == "" || !filepath.IsAbs(r) || slices.Contains(out, r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// writableDirs are the folders a sandboxed command writes: Dir, home and
// the spec's Writable, each once.
func writableDirs(spec Spec, home string) []string {
	var out []string
	for _, w := range append([]string{spec.Dir, home}, spec.Writable...) {
		if w == "" || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// hostEntry shows the host's path at dst: the same symlink when it is
// one, else a read-only bind; nothing when it does not exist.
func hostEntry(path, dst string) []string {
	st, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			return nil
		}
		return []string{"--symlink", target, dst}
	}
	return []string{"--ro-bind", path, dst}
}

// TmpSize is the size of the sandbox's own /tmp, a tmpfs: what a command
// writes there is in RAM, so it is capped. The commands get HOME and
// TMPDIR in their own folders, so /tmp is seldom used at all.
const TmpSize = 256 << 20

// tmpSized: this bwrap takes --size (older releases do not); set by the
// bwrap probe before any bwrap sandbox starts.
var tmpSized = true
