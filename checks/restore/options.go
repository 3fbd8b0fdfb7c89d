package restore

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Options tune how the check runs the scenarios. The zero value of a field
// means its default.
type Options struct {
	// ScenarioTimeout limits one run of the step; default 20 s.
	ScenarioTimeout time.Duration
	// Parallel is the number of scenarios run at once; default the number
	// of CPUs.
	Parallel int
	// MaxOutput caps the captured stdout and stderr of one run; default
	// 64 KiB each.
	MaxOutput int64
	// NoSandbox runs the step without bubblewrap even where it works.
	NoSandbox bool
	// Path is the PATH of the step; default the system folders plus the
	// folders of git and bash.
	Path string
	// Keep keeps the scenario folders under the work folder.
	Keep bool
	// ShrinkRuns limits the runs spent shrinking one random set; default 48.
	ShrinkRuns int
	// MaxShrunk is the number of failing random sets that are shrunk;
	// default 3.
	MaxShrunk int
	// Catalogue replaces the built-in scenarios when not nil.
	Catalogue []Scenario
	// Consistency adds the consistency scenarios (one per edit kind over
	// every path the probe shows protected) to an explicit Catalogue;
	// the built-in scenarios always have them.
	Consistency bool
	// Cache is the folder of the results cache (see cache.go); default
	// the "restore" folder of the context's cache (resultcache), and no
	// cache when it has none.
	Cache string
}

// settled is Options with every default filled in.
type settled struct {
	Options
	Sandbox bool
}

func (o Options) settle() settled {
	if o.ScenarioTimeout <= 0 {
		o.ScenarioTimeout = 20 * time.Second
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.NumCPU()
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = 64 << 10
	}
	if o.Path == "" {
		o.Path = defaultPath()
	}
	if o.ShrinkRuns <= 0 {
		o.ShrinkRuns = 48
	}
	if o.MaxShrunk <= 0 {
		o.MaxShrunk = 3
	}
	if o.Catalogue == nil {
		o.Catalogue = Catalogue()
	}
	return settled{Options: o, Sandbox: !o.NoSandbox}
}

// defaultPath is the PATH of a plain Debian system, as in a task image,
// plus the folders that hold git and bash here. It leaves out user
// folders such as pyenv shims, which are slow and not in task images.
func defaultPath() string {
	dirs := []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}
	for _, tool := range []string{"git", "bash"} {
		if p, err := exec.LookPath(tool); err == nil {
			if d := filepath.Dir(p); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return strings.Join(dirs, ":")
}
