package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The landlock backend's side in the reaper. Landlock, seccomp and
// no_new_privs hold for the thread that sets them and for what it forks,
// so the reaper sets them on one locked OS thread, forks the command from
// it, and lets the thread end (a goroutine that exits while locked takes
// its thread with it). The reaper's other threads stay free to read /proc
// and kill what the command leaves.

// nobodyID is the user and group a command runs as when the tool is root.
const nobodyID = 65534

// Reaper options before "--".
const (
	optLandlock = "--landlock"
	optRead     = "--ro"
	optWrite    = "--rw"
)

// gitSafeDirectory lets git, run as nobody, use the repositories the tool
// (root) made: git refuses a repository of another user otherwise. It is
// command-line config, which git reads for safe.directory.
const gitSafeDirectory = `'safe.directory'='*'`

// landlockOptions are the reaper options that confine spec.
func landlockOptions(spec Spec, home string) []string {
	read := landlockReadPaths(spec)
	opts := []string{optLandlock}
	for _, r := range read {
		opts = append(opts, optRead, r)
	}
	for _, w := range writableDirs(spec, home) {
		if !contains(read, w) { // read-only wins, as under bwrap
			opts = append(opts, optWrite, w)
		}
	}
	return opts
}

// confinedPath keeps in env's PATH only the folders the landlock options
// let the command read, as bwrap shows only those: a shell would stop at
// a program it finds but may not run (a pyenv shim under /root) rather
// than try the next folder.
func confinedPath(env, opts []string) []string {
	var reach []string
	for i := 0; i+1 < len(opts); i++ {
		if opts[i] == optRead || opts[i] == optWrite {
			reach = append(reach, filepath.Clean(opts[i+1]))
			i++
		}
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			var keep []string
			for _, d := range filepath.SplitList(v) {
				if d != "" && beneathAny(filepath.Clean(d), reach) {
					keep = append(keep, d)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(filepath.ListSeparator))
		}
		out = append(out, kv)
	}
	return out
}

// beneathAny reports whether p is one of dirs or inside one. Symlinks are
// not followed: /bin is in the system folders by name.
func beneathAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") || d == "/" {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// reaperOptions splits the reaper's arguments into its options and the
// command after "--".
func reaperOptions(args []string) (confine bool, rules landlockRules, argv []string, err error) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--":
			return confine, rules, args[i+1:], nil
		case optLandlock:
			confine = true
		case optRead, optWrite:
			if i+1 >= len(args) {
				return false, rules, nil, fmt.Errorf("%s needs a path", a)
			}
			i++
			if a == optRead {
				rules.read = append(rules.read, args[i])
			} else {
				rules.write = append(rules.write, args[i])
			}
		default:
			return false, rules, nil, fmt.Errorf("unknown option %q", a)
		}
	}
	return false, rules, nil, fmt.Errorf("no \"--\" before the command")
}

// startConfined starts path with argv under Landlock and seccomp, with
// no_new_privs, in its own session, as nobody when this process is root.
func startConfined(path string, argv []string, rules landlockRules) (int, error) {
	abi := landlockABI()
	if abi < minLandlockABI {
		return 0, fmt.Errorf("landlock ABI %d is below %d", abi, minLandlockABI)
	}
	filter, err := seccompFilter()
	if err != nil {
		return 0, err
	}
	rfd, err := rulesetFD(abi, rules)
	if err != nil {
		return 0, err
	}
	defer unix.Close(rfd)
	sys := &syscall.SysProcAttr{Setsid: true}
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1") // bwrap does not show /etc/gitconfig either
	asNobody := os.Getuid() == 0 && hasCapability(unix.CAP_SETUID) && hasCapability(unix.CAP_SETGID) && hasCapability(unix.CAP_SETPCAP)
	if asNobody {
		// Root in a container holds CAP_SETUID. nobody keeps one
		// capability, CAP_DAC_OVERRIDE, to reach the folders root made
		// (0700 temporary folders among them); Landlock decides which
		// files it reaches. It cannot signal, trace or read the /proc
		// files of the tool's processes, nor chmod or chown its files.
		sys.Credential = &syscall.Credential{Uid: nobodyID, Gid: nobodyID, Groups: []uint32{}}
		if hasCapability(unix.CAP_DAC_OVERRIDE) {
			sys.AmbientCaps = []uintptr{unix.CAP_DAC_OVERRIDE}
		}
		env = withGitSafeDirectory(env)
	}
	attr := &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}, Sys: sys}
	type started struct {
		pid int
		err error
	}
	done := make(chan started, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine.
		runtime.LockOSThread()
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			done <- started{err: fmt.Errorf("no_new_privs: %w", err)}
			return
		}
		if err := dropPrivileges(asNobody); err != nil {
			done <- started{err: err}
			return
		}
		if err := restrictThread(rfd); err != nil {
			done <- started{err: err}
			return
		}
		if err := loadSeccompThread(filter); err != nil {
			done <- started{err: err}
			return
		}
		pid, err := syscall.ForkExec(path, argv, attr)
		done <- started{pid: pid, err: err}
	}()
	s := <-done
	return s.pid, s.err
}

// secbitNoSetuidFixup keeps the capabilities of a thread that changes
// its uid from 0 (linux/securebits.h). Without it access(2), which git
// and Python call, checks with no capability for a real uid other than 0,
// so nobody could not pass a 0700 folder of root on the way to its own.
const secbitNoSetuidFixup = 1 << 2

// dropPrivileges prepares the forking thread. asNobody: the fork becomes
// nobody (Credential) and keeps only its ambient capability, which the
// exec computes from; this thread keeps its capabilities across setuid
// for that. Otherwise a root thread drops every capability, and
// no_new_privs keeps the exec from giving them back.
func dropPrivileges(asNobody bool) error {
	if asNobody {
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, secbitNoSetuidFixup, 0, 0, 0); err != nil {
			return fmt.Errorf("securebits: %w", err)
		}
		// Nothing the command execs can gain a capability beyond that one.
		for c := 0; c <= unix.CAP_LAST_CAP; c++ {
			if c != unix.CAP_DAC_OVERRIDE {
				_ = unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
			}
		}
		return nil
	}
	if os.Getuid() != 0 {
		return nil
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}

// withGitSafeDirectory adds gitSafeDirectory to GIT_CONFIG_PARAMETERS.
func withGitSafeDirectory(env []string) []string {
	out := make([]string, 0, len(env)+1)
	val := gitSafeDirectory
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_PARAMETERS="); ok {
			val = gitSafeDirectory + " " + v
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_PARAMETERS="+val)
}

// hasCapability reports whether this process holds capability c
// (effective set, from /proc/self/status).
func hasCapability(c int) bool {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			bits, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && bits&(1<<uint(c)) != 0
		}
	}
	return false
}

// closeInheritedFDs marks every descriptor above 2 close-on-exec, so that
// the command gets only 0, 1 and 2: the tool may have inherited others
// from its own parent (a runner's pipes) without that flag.
func closeInheritedFDs() {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	// Before Linux 5.11.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}
