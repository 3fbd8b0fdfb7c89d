// A pids cgroup per command, where one can be made: the kernel does not
// apply RLIMIT_NPROC to root, so a command that runs as root (the bwrap
// and none backends of a tool run as root) is bounded by the cgroup's
// pids.max instead.

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// pidsGroup is one command's pids cgroup.
type pidsGroup struct{ dir string }

// cgroupSeq numbers the cgroups this process makes.
var cgroupSeq atomic.Int64

// pidsParent is the folder under which this process makes pids cgroups,
// "" when it cannot: the pids hierarchy of cgroup v1, or a cgroup v2
// folder whose subtree has the pids controller, where this process may
// make folders. Found once.
var pidsParent = sync.OnceValue(func() string {
	dir := findPidsParent()
	if dir == "" {
		return ""
	}
	sweepPidsGroups(dir)
	if !pidsGroupsWork(dir) {
		return ""
	}
	return dir
})

// pidsGroupsWork reports whether a command can be moved into a cgroup
// made in parent, by doing it once: a folder that can be made is not
// always one that a process can join (cgroup v2 asks for write access to
// the common ancestor's cgroup.procs), and a command that cannot join
// would fail to start.
func pidsGroupsWork(parent string) bool {
	shell, err := limitShell()
	if err != nil {
		return false
	}
	g := newPidsGroupIn(parent, 8)
	if g == nil {
		return false
	}
	defer g.remove()
	path, args := g.wrap(shell, "/bin/sh", []string{"sh", "-c", "exit 0"})
	cmd := exec.Command(path, args[1:]...)
	cmd.Args[0] = args[0]
	return cmd.Run() == nil
}

// findPidsParent is pidsParent before the sweep.
func findPidsParent() string {
	if os.Getenv("TEMPLATE_VERIFY_NO_CGROUP") == "1" {
		return ""
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var v2 string
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				if dir := filepath.Join("/sys/fs/cgroup/pids", parts[2]); writableDir(dir) {
					return dir
				}
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
		}
	}
	if v2 == "" {
		return ""
	}
	for _, mount := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		dir := filepath.Join(mount, v2)
		ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		if err == nil && hasWord(string(ctl), "pids") && writableDir(dir) {
			return dir
		}
	}
	return ""
}

// sweepPidsGroups removes the cgroups in parent that a process which no
// longer runs made (a tool killed before it removed them), and kills
// what is left in them.
func sweepPidsGroups(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		var pid, seq int
		if !e.IsDir() {
			continue
		}
		if n, _ := fmt.Sscanf(e.Name(), "template-verify-%d-%d", &pid, &seq); n != 2 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // its maker still runs
		}
		(&pidsGroup{dir: filepath.Join(parent, e.Name())}).remove()
	}
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

func writableDir(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir() && syscall.Access(dir, 2 /* W_OK */) == nil
}

// newPidsGroup makes a pids cgroup that allows max processes; nil when
// no cgroup can be made here (the caller keeps RLIMIT_NPROC alone).
func newPidsGroup(max int64) *pidsGroup {
	parent := pidsParent()
	if parent == "" || max <= 0 {
		return nil
	}
	return newPidsGroupIn(parent, max)
}

// newPidsGroupIn makes a pids cgroup in parent that allows max
// processes; nil when it cannot.
func newPidsGroupIn(parent string, max int64) *pidsGroup {
	dir := filepath.Join(parent, fmt.Sprintf("template-verify-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatInt(max, 10)), 0o644); err != nil {
		_ = os.Remove(dir)
		return nil
	}
	return &pidsGroup{dir: dir}
}

// wrap returns path and argv that first move the process into g (a bash
// that writes its own pid to cgroup.procs) and then exec path with argv,
// argv[0] kept: the command and all it starts are in g from their first
// instruction.
func (g *pidsGroup) wrap(shell, path string, argv []string) (string, []string) {
	script := `echo "$$" > "$1" || exit 126
exec -a "$2" "$3" "${@:4}"`
	return shell, append([]string{shell, "-c", script, "template-verify-cgroup", filepath.Join(g.dir, "cgroup.procs"), argv[0], path}, argv[1:]...)
}

// remove kills what is left in g and removes it. The command has ended:
// what is left are processes that outlived it, which the namespace or the
// reaper is ending too.
func (g *pidsGroup) remove() {
	for try := 0; try < 50; try++ {
		err := os.Remove(g.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		data, _ := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}
