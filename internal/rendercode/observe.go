package rendercode

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/sandbox"
	"github.com/formula-code/template-verify/internal/words"
)

//go:embed tv_observe.py
var observePlugin string

// Bounds of one observation (one pytest run of the repository's render
// tests under the recording plugin).
var (
	// ObserveTimeout limits the pytest run.
	ObserveTimeout = 3 * time.Minute
	// ObserveMaxRecords and ObserveMaxBytes bound what the plugin writes.
	ObserveMaxRecords       = 2000
	ObserveMaxBytes   int64 = 8 << 20
)

// ObserveEnv set to "off" turns the observation off: the variable sets
// then come from reading the code alone.
const ObserveEnv = "TEMPLATE_VERIFY_OBSERVE"

// ObservedLoader is a Jinja2 loader as the plugin saw it.
type ObservedLoader struct {
	Kind       string                     `json:"kind"`
	Searchpath []string                   `json:"searchpath"`
	Package    string                     `json:"package"`
	Loaders    []*ObservedLoader          `json:"loaders"`
	Prefixes   map[string]*ObservedLoader `json:"prefixes"`
	Names      []string                   `json:"names"`
}

// searchPath is the loader's whole search path in Jinja's order:
// repository-relative folders only (a folder outside the repository is
// left out).
func (l *ObservedLoader) searchPath() []string {
	if l == nil {
		return nil
	}
	var out []string
	for _, p := range l.Searchpath {
		if p != "" && !filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	for _, sub := range l.Loaders {
		out = append(out, sub.searchPath()...)
	}
	return out
}

// ObservedEnv is the environment of one observed render.
type ObservedEnv struct {
	ID                  int64           `json:"id"`
	Loader              *ObservedLoader `json:"loader"`
	Undefined           string          `json:"undefined"`
	StrictUndefined     bool            `json:"strict_undefined"`
	KeepTrailingNewline bool            `json:"keep_trailing_newline"`
	TrimBlocks          bool            `json:"trim_blocks"`
	LstripBlocks        bool            `json:"lstrip_blocks"`
	Autoescape          any             `json:"autoescape"`
	Delimiters          []string        `json:"delimiters"`
	Filters             []string        `json:"filters"`
	Tests               []string        `json:"tests"`
	Globals             []string        `json:"globals"`
	Created             string          `json:"created"` // file:line of Environment(...)
}

// Jinja returns the options the tool renders with.
func (e ObservedEnv) Jinja() config.Jinja {
	auto, _ := e.Autoescape.(bool)
	return config.Jinja{StrictUndefined: e.StrictUndefined, KeepTrailingNewline: e.KeepTrailingNewline,
		TrimBlocks: e.TrimBlocks, LstripBlocks: e.LstripBlocks, Autoescape: auto || e.Autoescape == "a function"}
}

// TypeInfo is a type hint as the plugin read it: the variants it gives.
type TypeInfo struct {
	Name     string `json:"name"`
	Bool     bool   `json:"bool"`
	Optional bool   `json:"optional"`
	Choices  []any  `json:"choices"`
	Of       string `json:"of"`
}

// ObservedValue is one context value with its Python type.
type ObservedValue struct {
	T       string                   `json:"t"`
	V       any                      `json:"v"`
	Cls     string                   `json:"cls"`
	Items   map[string]ObservedValue `json:"items"`
	List    []ObservedValue          `json:"list"`
	Attrs   map[string]ObservedValue `json:"attrs"`
	Hints   map[string]TypeInfo      `json:"hints"`
	Choices []any                    `json:"choices"`
	Opaque  string                   `json:"opaque"`
	Cut     bool                     `json:"cut"`
}

// Plain returns the value as the renderers take it: objects as maps of
// the attributes they hold (Jinja2 reads x.attr of a map as x["attr"]),
// enums as their value; ok is false for a value that cannot be passed (a
// callable, an object without attributes).
func (v ObservedValue) Plain() (any, bool) {
	switch {
	case v.Opaque != "":
		return nil, false
	case v.T == "dict" || v.T == "object":
		src := v.Items
		if v.T == "object" {
			src = v.Attrs
		}
		m := make(map[string]any, len(src))
		for k, x := range src {
			if p, ok := x.Plain(); ok {
				m[k] = p
			}
		}
		return m, true
	case v.List != nil || v.T == "list" || v.T == "tuple" || v.T == "set" || v.T == "frozenset":
		l := make([]any, 0, len(v.List))
		for _, x := range v.List {
			if p, ok := x.Plain(); ok {
				l = append(l, p)
			}
		}
		return l, true
	}
	return goValue(v.V), true
}

// Observed is one render that the repository's tests made.
type Observed struct {
	Test   string                   `json:"test"`  // pytest node id
	Where  string                   `json:"where"` // file:line of the render call
	How    string                   `json:"how"`   // get_template, select_template, from_string, Template(text)
	Name   string                   `json:"name"`  // the loader name
	File   string                   `json:"file"`  // repository path when the loader read a file
	Blob   string                   `json:"blob"`  // git blob id of a text template
	Env    ObservedEnv              `json:"env"`
	Vars   map[string]ObservedValue `json:"vars"`
	Hints  map[string]TypeInfo      `json:"hints"`
	Error  string                   `json:"error"`
	Note   string                   `json:"note"`
	CutMsg string                   `json:"cut"`
}

// Source names where the render comes from: the test id, else the call.
func (o Observed) Source() string {
	if o.Test != "" && !strings.HasPrefix(o.Test, "collect:") {
		return o.Test
	}
	return o.Where
}

// Observation is what one run of the render tests recorded.
type Observation struct {
	Renders  []Observed
	Tests    []string // the test files run
	Notes    []string
	Duration time.Duration
	Exit     int
	// Incomplete: the run timed out or the recording was cut; such an
	// observation is never kept in the cache.
	Incomplete bool
	// Cached: read from the cache folder (observe_cache.go), not run.
	Cached bool `json:"-"`
}

// Observe runs the test files of the repository at rev with python
// (which must import pytest and jinja2) under the recording plugin, in
// the sandbox, and returns every render they made. env adds variables
// (PYTHONPATH of the suite). A run that fails still returns what it
// recorded, with a note; err is set only when nothing could run.
func Observe(ctx context.Context, repo gitx.Repo, rev, python string, tests []string, env map[string]string) (*Observation, error) {
	work, err := os.MkdirTemp("", "tv-observe-")
	if err != nil {
		return nil, fmt.Errorf("observe renders: %w", err)
	}
	defer os.RemoveAll(work)
	tree, plugin, out, home := filepath.Join(work, "repo"), filepath.Join(work, "plugin"), filepath.Join(work, "out"), filepath.Join(work, "home")
	for _, d := range []string{tree, plugin, out, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("observe renders: %w", err)
		}
	}
	if err := repo.Checkout(ctx, rev, tree); err != nil {
		return nil, fmt.Errorf("observe renders: %w", err)
	}
	if err := os.WriteFile(filepath.Join(plugin, "tv_observe.py"), []byte(observePlugin), 0o644); err != nil {
		return nil, fmt.Errorf("observe renders: %w", err)
	}
	record := filepath.Join(out, "renders.jsonl")
	pyPath := plugin
	if p := env["PYTHONPATH"]; p != "" {
		pyPath += ":" + p
	}
	vars := []string{"PYTHONPATH=" + pyPath, "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0",
		"TV_OBSERVE_OUT=" + record,
		fmt.Sprintf("TV_OBSERVE_MAX_RECORDS=%d", ObserveMaxRecords),
		fmt.Sprintf("TV_OBSERVE_MAX_BYTES=%d", ObserveMaxBytes)}
	for k, v := range env {
		if k != "PYTHONPATH" {
			vars = append(vars, k+"="+v)
		}
	}
	args := append([]string{python, "-m", "pytest", "-p", "tv_observe", "-p", "no:cacheprovider",
		"--continue-on-collection-errors", "--rootdir=.", "-q", "-rfE", "-o", "addopts=", "--tb=line"}, tests...)
	res := sandbox.Run(ctx, sandbox.Spec{
		Args: args, Dir: tree, Home: home, Env: vars,
		ReadOnly: []string{plugin}, Writable: []string{out},
		Timeout: ObserveTimeout, MaxOutput: 64 << 10, Sandbox: true,
	})
	obs := &Observation{Tests: tests, Duration: res.Duration, Exit: res.ExitCode}
	switch {
	case res.Err != nil && res.TimedOut:
		obs.Incomplete = true
		obs.Notes = append(obs.Notes, fmt.Sprintf("The render tests ran past %s and were stopped; the renders recorded before then are used.", ObserveTimeout))
	case res.Err != nil:
		return nil, fmt.Errorf("observe renders: %w (stderr: %s)", res.Err, sandbox.Tail(res.Stderr, 1000))
	case res.ExitCode != 0 && res.ExitCode != 1:
		obs.Notes = append(obs.Notes, fmt.Sprintf("pytest exited with code %d while the renders were recorded: %s", res.ExitCode, lastLine(res.Stderr, res.Stdout)))
	}
	renders, notes, cut, err := readObserved(record, 2*ObserveMaxBytes)
	obs.Incomplete = obs.Incomplete || cut || err != nil
	obs.Renders, obs.Notes = renders, append(obs.Notes, notes...)
	if len(renders) == 0 && res.ExitCode != 0 && res.Err == nil {
		obs.Notes = append(obs.Notes, fmt.Sprintf("The render tests exited with code %d and recorded no render: %s", res.ExitCode, firstError(res.Stdout, res.Stderr)))
	}
	if err != nil {
		obs.Notes = append(obs.Notes, err.Error())
	}
	return obs, nil
}

// readObserved reads the plugin's JSON lines, at most limit bytes: a PR's
// code may have written anything there.
func readObserved(file string, limit int64) (renders []Observed, notes []string, cut bool, err error) {
	fh, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("the recorded renders could not be read: %w", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(io.LimitReader(fh, limit))
	sc.Buffer(make([]byte, 64<<10), int(limit))
	for sc.Scan() {
		var o Observed
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&o); err != nil {
			notes = append(notes, fmt.Sprintf("A recorded render is not readable (%v); it is left out.", err))
			continue
		}
		switch {
		case o.CutMsg != "":
			notes = append(notes, "The render recording was cut: "+o.CutMsg+".")
			cut = true
		case o.Note != "":
			notes = append(notes, "The recording plugin says: "+o.Note+".")
		default:
			renders = append(renders, o)
		}
	}
	if err := sc.Err(); err != nil {
		return renders, notes, cut, fmt.Errorf("the recorded renders could not all be read: %w", err)
	}
	return renders, notes, cut, nil
}

func lastLine(outs ...[]byte) string {
	for _, o := range outs {
		lines := strings.Split(strings.TrimSpace(string(o)), "\n")
		if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
			return l
		}
	}
	return "no output"
}

// observe runs the tests that render with the render code (the derived
// suite's files) under the recording plugin and adds what they rendered
// to found; what happened is a note of found.
func observe(ctx context.Context, repo gitx.Repo, rev, python string, found *Found) {
	if os.Getenv(ObserveEnv) == "off" {
		found.Notes = append(found.Notes, ObserveEnv+"=off: no render of the tests was observed; the variable sets come from reading the code.")
		return
	}
	groups, _ := found.Groups()
	suite, ok := found.Suite(groups)
	if !ok {
		// No render module: the tests that build their own Jinja2
		// environment may still render the templates as production does.
		suite, ok = found.jinjaTests()
	}
	if !ok {
		found.Notes = append(found.Notes, "No test renders with the render code, so no render was observed: the variable sets come from reading the code.")
		return
	}
	py, ok := observePython(ctx, python)
	if !ok {
		found.Notes = append(found.Notes, fmt.Sprintf("No python3 here imports both jinja2 and pytest (tried %s and /usr/bin/python3), so no render of the tests was observed: the variable sets come from reading the code. Install python3-pytest.", python))
		return
	}
	obs, err := cachedObserve(ctx, repo, rev, py, suite.Files, suite.Env)
	if err != nil {
		found.Notes = append(found.Notes, fmt.Sprintf("The render tests could not run (%v): the variable sets come from reading the code.", err))
		return
	}
	found.Observation = obs
	found.Notes = append(found.Notes, obs.Summary(words.Short(rev)))
	found.Notes = append(found.Notes, obs.Notes...)
	found.AddObserved(obs)
}

// Summary says what the observation recorded, for the report's notes.
func (o *Observation) Summary(rev string) string {
	tests := map[string]bool{}
	for _, r := range o.Renders {
		tests[r.Source()] = true
	}
	how := "recorded"
	if o.Cached {
		how = "recorded (read from the cache of an earlier run on the same tree)"
	}
	return fmt.Sprintf("At %s, %s in %s %s %d renders from %d tests in %.1f s (pytest exit %d).",
		rev, words.Count(len(o.Tests), "test file"), strings.Join(o.Tests, ", "), how, len(o.Renders), len(tests), o.Duration.Seconds(), o.Exit)
}

// observePython returns an interpreter that imports jinja2 and pytest:
// the one that renders (python), else Debian's. The answer is kept for the
// life of the process.
func observePython(ctx context.Context, python string) (string, bool) {
	for _, p := range []string{python, "/usr/bin/python3"} {
		v, _ := pythonProbes.LoadOrStore(p, &probeOnce{})
		po := v.(*probeOnce)
		po.once.Do(func() {
			cmd := exec.CommandContext(ctx, p, "-I", "-c", "import jinja2, pytest")
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			po.ok = cmd.Run() == nil
		})
		if po.ok {
			return p, true
		}
	}
	return "", false
}

type probeOnce struct {
	once sync.Once
	ok   bool
}

var pythonProbes sync.Map // interpreter path -> *probeOnce

// jinjaTests is the suite of the tracked test files that import jinja2,
// for a repository whose render code the reading does not find; their
// import root is the top and src/ when it holds a package.
func (f *Found) jinjaTests() (config.Suite, bool) {
	var files []string
	src := false
	for _, p := range f.pyPaths() {
		if strings.HasPrefix(p, "src/") && strings.Count(p, "/") == 2 && strings.HasSuffix(p, "/__init__.py") {
			src = true
		}
		if f.Pytest.isTest(p) && jinjaImport.Match(f.Sources[p]) {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return config.Suite{}, false
	}
	if len(files) > maxSuiteFiles {
		files = files[:maxSuiteFiles]
	}
	pp := "."
	if src {
		pp += ":src"
	}
	return config.Suite{Name: SuiteName, Files: files, Env: map[string]string{"PYTHONPATH": pp}}, true
}

// testFiles returns the test files whose tests rendered a template, in
// path order.
func (o *Observation) testFiles() []string {
	var out []string
	for _, r := range o.Renders {
		file, _, ok := strings.Cut(r.Test, "::")
		if ok && !strings.HasPrefix(file, "collect:") && !slices.Contains(out, file) {
			out = append(out, file)
		}
	}
	slices.Sort(out)
	return out
}

// firstError is the first line of pytest's output that names an error (a
// collection error's ModuleNotFoundError), else the last line.
func firstError(outs ...[]byte) string {
	for _, o := range outs {
		for _, l := range strings.Split(string(o), "\n") {
			if strings.HasPrefix(l, "E ") && strings.Contains(l, "Error") {
				return strings.TrimSpace(strings.TrimPrefix(l, "E "))
			}
		}
	}
	for _, o := range outs {
		for _, l := range strings.Split(string(o), "\n") {
			if strings.Contains(l, "Error") {
				l = strings.TrimSpace(l)
				if len(l) > 300 {
					l = l[:300] + "..."
				}
				return l
			}
		}
	}
	return lastLine(outs...)
}
