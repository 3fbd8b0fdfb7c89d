package names

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/jinja"
	"github.com/formula-code/template-verify/internal/sandbox"
)

//go:embed names.py
var namesScript string // runs after jinja.PythonEnvironment

// Timeout limits one run of the Python helper; JobTimeout one template.
var (
	Timeout    = 5 * time.Minute
	JobTimeout = 20 * time.Second
)

// maxAnswer bounds the helper's output.
const maxAnswer = 16 << 20

// pyEnv is one loader root with its files and options.
type pyEnv struct {
	Files map[string]string `json:"files"` // base64
	Opts  map[string]bool   `json:"opts"`
}

type pyJob struct {
	Env  int    `json:"env"`
	Name string `json:"name"`
}

// Use is one name a template reads, at the file (relative to the loader
// root) and line where it first reads it.
type Use struct {
	Name string `json:"name"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// Found is what the helper found for one template.
type Found struct {
	Names []Use `json:"names"`
	// Dynamic lists files that include a name computed at render time.
	Dynamic []string `json:"dynamic"`
	Error   string   `json:"error"`
}

// request collects environments (one per loader root and commit) and jobs.
type request struct {
	Envs []pyEnv `json:"envs"`
	Jobs []pyJob `json:"jobs"`
	// JobTimeout is in seconds.
	JobTimeout float64 `json:"job_timeout"`
}

// addEnv adds the files of one loader root (keyed by name relative to the
// root) and returns its index.
func (r *request) addEnv(files map[string][]byte, opts config.Jinja) int {
	enc := make(map[string]string, len(files))
	for n, data := range files {
		enc[n] = base64.StdEncoding.EncodeToString(data)
	}
	r.Envs = append(r.Envs, pyEnv{Files: enc, Opts: map[string]bool{
		"autoescape": opts.Autoescape, "keep_trailing_newline": opts.KeepTrailingNewline,
		"trim_blocks": opts.TrimBlocks, "lstrip_blocks": opts.LstripBlocks,
	}})
	return len(r.Envs) - 1
}

// run parses every job's templates with Python Jinja2 in one process with
// a clean environment, in a bubblewrap sandbox without network when one
// works, with the memory limit mem (RLIMIT_AS), JobTimeout per template and
// Timeout in all. Nothing is rendered: a parse runs no template code.
func run(ctx context.Context, python string, req *request, mem int64) ([]Found, error) {
	if len(req.Jobs) == 0 {
		return nil, nil
	}
	req.JobTimeout = JobTimeout.Seconds()
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("names helper request: %w", err)
	}
	dir, err := os.MkdirTemp("", "tv-names-")
	if err != nil {
		return nil, fmt.Errorf("names helper: %w", err)
	}
	defer os.RemoveAll(dir)
	out := sandbox.Run(ctx, sandbox.Spec{
		Args:      []string{python, "-I", "-c", jinja.PythonEnvironment + "\n" + namesScript, strconv.FormatInt(mem, 10)},
		Dir:       dir,
		Env:       []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0"},
		Stdin:     bytes.NewReader(body),
		Timeout:   Timeout,
		MaxOutput: maxAnswer,
		Sandbox:   true,
	})
	switch {
	case out.Err != nil:
		return nil, fmt.Errorf("names helper: %w (stderr: %s)", out.Err, sandbox.Tail(out.Stderr, 2000))
	case out.ExitCode != 0 && bytes.Contains(out.Stderr, []byte("MemoryError")):
		return nil, fmt.Errorf("names helper stopped: it used more than %d MB of memory (limits.render_memory)", mem>>20)
	case out.ExitCode != 0:
		return nil, fmt.Errorf("names helper exited with code %d: %s", out.ExitCode, sandbox.Tail(out.Stderr, 2000))
	case out.Truncated:
		return nil, fmt.Errorf("names helper: the answer is larger than %d MiB", maxAnswer>>20)
	}
	var ans struct {
		Results []Found `json:"results"`
	}
	if err := json.Unmarshal(out.Stdout, &ans); err != nil {
		return nil, fmt.Errorf("names helper: bad answer: %w", err)
	}
	if len(ans.Results) != len(req.Jobs) {
		return nil, fmt.Errorf("names helper: %d results for %d jobs", len(ans.Results), len(req.Jobs))
	}
	return ans.Results, nil
}
