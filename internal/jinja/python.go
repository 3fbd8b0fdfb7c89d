package jinja

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/loadclock"
	"github.com/formula-code/template-verify/internal/sandbox"
)

//go:embed render.py
var renderScript string

// PythonEnvironment is the Python source of the Jinja2 environment that
// the Python helpers build (environment.py: the loader with
// FileSystemLoader semantics, the options, the job alarm). A helper runs
// as this source followed by its own.
//
//go:embed environment.py
var PythonEnvironment string

// PythonTimeout limits one RenderPython call; Limits.Time limits one
// render inside it.
var PythonTimeout = 5 * time.Minute

// Job is one render for Python Jinja2.
type Job struct {
	// Files holds every file of the loader root, keyed by its name relative
	// to the root.
	Files map[string]string
	Opts  config.Jinja
	// Name is the template to render, relative to the root.
	Name string
	// Vars are the variables. Go ints reach Python as int, floats as float,
	// nil as None.
	Vars map[string]any
}

// PyResult is what Python Jinja2 made of one Job.
type PyResult struct {
	Output string
	// Err is "ExceptionType: message" when the render failed.
	Err string
	// File (relative to the root) and Line locate Err, when Jinja2 says.
	File string
	Line int
	// Skipped says why the job was not rendered (the outputs of the run
	// passed MaxPythonTotal); Output and Err are then empty.
	Skipped string
}

// MaxPythonTotal is the largest total of the outputs (as JSON) of one
// RenderPython run; the jobs past it are skipped.
const MaxPythonTotal = 48 << 20

type pyFound struct {
	path, version string
	ok            bool
}

var (
	pyMu     sync.Mutex
	pyCached *pyFound
)

// FindPython finds a python3 that can import jinja2: python3 on PATH first
// (a pyenv shim's interpreter without the shim, see pyenvTarget), then
// /usr/bin/python3. It returns the interpreter's real path (not a
// version manager's shim) and the Jinja2 version. The answer is cached.
func FindPython(ctx context.Context) (path string, version string, ok bool) {
	pyMu.Lock()
	defer pyMu.Unlock()
	if pyCached != nil {
		return pyCached.path, pyCached.version, pyCached.ok
	}
	var candidates []string
	if p, err := exec.LookPath("python3"); err == nil {
		// A pyenv shim's interpreter, when it is plain which one it runs,
		// is probed without the shim's bash (see pyenvTarget).
		if wd, err := os.Getwd(); err == nil {
			if t := pyenvTarget(p, os.Getenv, wd); t != "" {
				candidates = append(candidates, t)
			}
		}
		candidates = append(candidates, p)
	}
	candidates = append(candidates, "/usr/bin/python3")
	for _, c := range candidates {
		exe, ver, err := probePython(ctx, c)
		if err == nil {
			sandbox.TrustInterpreter(exe) // found on this process's PATH, not named by a PR
			pyCached = &pyFound{path: exe, version: ver, ok: true}
			return exe, ver, true
		}
	}
	if ctx.Err() != nil {
		return "", "", false // do not cache an answer cut short
	}
	pyCached = &pyFound{}
	return "", "", false
}

// probePython runs python with the caller's environment, so that a version
// manager's shim can find its interpreter, and asks for the interpreter's
// real path and the Jinja2 version. The probe runs no code from a PR.
func probePython(ctx context.Context, python string) (exe, version string, err error) {
	ctx, cancel := loadclock.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-c", "import sys, jinja2; print(sys.executable); print(jinja2.__version__)")
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("%s cannot import jinja2: %w", python, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] == "" {
		return "", "", fmt.Errorf("%s: unexpected answer %q", python, out)
	}
	return strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1]), nil
}

type pyEnvSpec struct {
	Files map[string]string `json:"files"` // base64
	Opts  pyOpts            `json:"opts"`
}

type pyOpts struct {
	StrictUndefined     bool `json:"strict_undefined"`
	KeepTrailingNewline bool `json:"keep_trailing_newline"`
	TrimBlocks          bool `json:"trim_blocks"`
	LstripBlocks        bool `json:"lstrip_blocks"`
	Autoescape          bool `json:"autoescape"`
}

type pyAnswer struct {
	Jinja2  string `json:"jinja2"`
	Results []struct {
		Output  string `json:"output"`
		Error   string `json:"error"`
		File    string `json:"file"`
		Line    int    `json:"line"`
		Skipped string `json:"skipped"`
	} `json:"results"`
}

// RenderPython renders every job with Python Jinja2 with DefaultLimits:
// see RenderPythonLimits.
func RenderPython(ctx context.Context, python string, jobs []Job) ([]PyResult, error) {
	return RenderPythonLimits(ctx, python, jobs, DefaultLimits)
}

// RenderPythonLimits renders every job with Python Jinja2 in one python
// process (JSON on stdin, JSON on stdout). The process gets a clean
// environment, a bubblewrap sandbox without network when one works (a
// template from a pull request can run Python code in Jinja2), the memory
// limit lim.Memory (RLIMIT_AS), lim.Time per render, lim.Output per render
// and MaxPythonTotal for all outputs. The error is for the run as a whole;
// a failed render is a PyResult.Err.
func RenderPythonLimits(ctx context.Context, python string, jobs []Job, lim Limits) ([]PyResult, error) {
	lim = lim.settle()
	if len(jobs) == 0 {
		return nil, nil
	}
	req, err := buildRequest(jobs, lim.Time)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tv-jinja2-")
	if err != nil {
		return nil, fmt.Errorf("python jinja2: %w", err)
	}
	defer os.RemoveAll(dir)
	out := sandbox.Run(ctx, sandbox.Spec{
		Args: []string{python, "-I", "-c", PythonEnvironment + "\n" + renderScript,
			strconv.FormatInt(lim.Memory, 10), strconv.Itoa(lim.Output), strconv.Itoa(MaxPythonTotal)},
		Dir:       dir,
		Env:       []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0"},
		Stdin:     bytes.NewReader(req),
		Timeout:   PythonTimeout,
		MaxOutput: MaxPythonTotal + 1<<20,
		Sandbox:   true,
	})
	if out.Err != nil {
		return nil, fmt.Errorf("python jinja2: %w (stderr: %s)", out.Err, sandbox.Tail(out.Stderr, 2000))
	}
	if out.ExitCode != 0 && bytes.Contains(out.Stderr, []byte("MemoryError")) {
		return nil, fmt.Errorf("python jinja2 stopped: it used more than %d MB of memory (limits.render_memory)", lim.Memory>>20)
	}
	if out.ExitCode != 0 {
		return nil, fmt.Errorf("python jinja2 exited with code %d: %s", out.ExitCode, sandbox.Tail(out.Stderr, 2000))
	}
	if out.Truncated {
		return nil, fmt.Errorf("python jinja2: the answer is larger than %d MiB", (MaxPythonTotal+1<<20)>>20)
	}
	var ans pyAnswer
	if err := json.Unmarshal(out.Stdout, &ans); err != nil {
		return nil, fmt.Errorf("python jinja2: bad answer: %w (stderr: %s)", err, sandbox.Tail(out.Stderr, 2000))
	}
	if len(ans.Results) != len(jobs) {
		return nil, fmt.Errorf("python jinja2: %d results for %d jobs", len(ans.Results), len(jobs))
	}
	res := make([]PyResult, len(jobs))
	for i, r := range ans.Results {
		res[i] = PyResult{Output: r.Output, Err: r.Error, File: r.File, Line: r.Line, Skipped: r.Skipped}
	}
	return res, nil
}

// buildRequest writes the request JSON. Jobs that share the same files and
// options share one Jinja2 environment, so files go over once and Jinja2
// parses each template once, as datasmith's one environment does.
func buildRequest(jobs []Job, jobTimeout time.Duration) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"job_timeout":`)
	b.WriteString(fmt.Sprint(jobTimeout.Seconds()))
	envIndex := map[string]int{}
	byMap := map[uintptr]string{}
	var envs []pyEnvSpec
	idx := make([]int, len(jobs))
	for i, j := range jobs {
		key := ""
		p := reflect.ValueOf(j.Files).Pointer()
		if k, ok := byMap[p]; ok && p != 0 {
			key = k
		} else {
			key = envKey(j.Files)
			byMap[p] = key
		}
		key += fmt.Sprintf("|%+v", j.Opts)
		n, ok := envIndex[key]
		if !ok {
			n = len(envs)
			envIndex[key] = n
			files := make(map[string]string, len(j.Files))
			for name, src := range j.Files {
				files[name] = base64.StdEncoding.EncodeToString([]byte(src))
			}
			envs = append(envs, pyEnvSpec{Files: files, Opts: pyOpts{
				StrictUndefined:     j.Opts.StrictUndefined,
				KeepTrailingNewline: j.Opts.KeepTrailingNewline,
				TrimBlocks:          j.Opts.TrimBlocks,
				LstripBlocks:        j.Opts.LstripBlocks,
				Autoescape:          j.Opts.Autoescape,
			}})
		}
		idx[i] = n
	}
	envJSON, err := json.Marshal(envs)
	if err != nil {
		return nil, fmt.Errorf("python jinja2 request: %w", err)
	}
	b.WriteString(`,"envs":`)
	b.Write(envJSON)
	b.WriteString(`,"jobs":[`)
	for i, j := range jobs {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(j.Name)
		fmt.Fprintf(&b, `{"env":%d,"name":%s,"vars":`, idx[i], name)
		vars := j.Vars
		if vars == nil {
			vars = map[string]any{}
		}
		if err := writeValue(&b, vars, 0); err != nil {
			return nil, fmt.Errorf("python jinja2 request: job %d (%s): %w", i, j.Name, err)
		}
		b.WriteByte('}')
	}
	b.WriteString("]}")
	return b.Bytes(), nil
}

// envKey identifies a set of files by content.
func envKey(files map[string]string) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := newHasher()
	for _, n := range names {
		h.add(n)
		h.add(files[n])
	}
	return h.sum()
}
