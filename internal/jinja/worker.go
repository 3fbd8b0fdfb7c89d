package jinja

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/loadclock"
	"github.com/formula-code/template-verify/internal/nice"
)

// A template from a pull request can crash the Go runtime in ways no
// recover() catches: a deep nesting overflows the stack while gonja parses
// it, 'x' * 100000000000 runs out of memory, and a nested loop never ends
// (gonja takes no context). So no PR template is parsed or rendered in the
// tool's own process: the tool runs itself again as a render worker (the
// environment variable workerVar turns the process into one, see init), and
// the worker renders one job after another that it reads on stdin. The
// worker runs with a memory limit (RLIMIT_AS, set by the worker itself
// before it reads any input, and a watchdog on its resident memory), a
// smaller Go stack, an output cap, and a time limit per render after which
// its process group is killed. A worker that dies is replaced for the next
// render; the render that killed it is an *Error that names the template
// and the limit.

// workerVar holds the worker's memory limit in bytes; when it is set the
// process is a render worker.
const workerVar = "TEMPLATE_VERIFY_INTERNAL_RENDER_WORKER"

// Exit codes of a worker that stops itself.
const (
	exitMemory = 3 // the watchdog saw the memory limit passed
)

func init() {
	for _, v := range []any{[]any{}, map[string]any{}, map[any]any{}, []string{}, []int{}, []float64{}, []bool{},
		map[string]string{}, map[string]int{}, []map[string]any{}, map[string][]any{}, int64(0), uint64(0),
		time.Time{}} { // YAML decodes an unquoted date as a time.Time
		gob.Register(v)
	}
	if v, ok := os.LookupEnv(workerVar); ok {
		mem, err := strconv.ParseInt(v, 10, 64)
		if err != nil || mem <= 0 {
			fmt.Fprintf(os.Stderr, "%s=%q is not a byte count\n", workerVar, v)
			os.Exit(2)
		}
		// syscall.Exit, not os.Exit: the worker writes its answers
		// unbuffered, and under -race os.Exit first sleeps a second.
		syscall.Exit(workerMain(mem))
	}
}

// Limits bound one render.
type Limits struct {
	// Time limits one render; the worker is killed when it passes.
	Time time.Duration
	// Output is the largest output of one render, in bytes.
	Output int
	// Memory is the memory of the worker process, in bytes.
	Memory int64
}

// DefaultLimits are the limits of Env.Render.
var DefaultLimits = Limits{Time: 20 * time.Second, Output: 8 << 20, Memory: 384 << 20}

// LimitsOf returns the render limits of a config's limits block (after
// Effective: defaults and ceilings applied).
func LimitsOf(l config.Limits) Limits {
	l = l.Effective()
	return Limits{Time: l.RenderTime.Duration, Output: l.RenderOutput, Memory: int64(l.RenderMemory) << 20}
}

func (l Limits) settle() Limits {
	if l.Time <= 0 {
		l.Time = DefaultLimits.Time
	}
	if l.Output <= 0 {
		l.Output = DefaultLimits.Output
	}
	if l.Memory <= 0 {
		l.Memory = DefaultLimits.Memory
	}
	return l
}

// wEnv, wJob, wRequest and wResult are the worker's protocol (gob).
type wEnv struct {
	ID    uint64
	Root  string
	Files map[string]string // loader name ("/" + path) -> source
	Opts  config.Jinja
}

type wJob struct {
	Env       uint64
	Name      string
	Vars      map[string]any
	MaxOutput int
}

type wRequest struct {
	Env *wEnv
	Job *wJob
}

type wResult struct {
	// Output is bytes, not a string, so that both ends can reuse one
	// buffer: the worker renders every job into the same one, and the
	// reader decodes every answer into the same one.
	Output []byte
	Err    *Error
	Other  string // an error that is not an *Error
}

// result is an answer of the worker as the reader hands it on.
type result struct {
	output string
	err    *Error
	other  string
}

// keepBuffer is the largest output buffer kept for the next render; a
// larger one (an output of up to limits.render_output) is dropped.
const keepBuffer = 1 << 20

// Renderer renders templates in one worker process, one after another, and
// starts a new worker when one dies. A Renderer is safe for concurrent use;
// renders are serialised.
type Renderer struct {
	lim Limits
	mu  sync.Mutex
	w   *worker
}

// NewRenderer returns a Renderer with the given limits (zero fields take
// DefaultLimits).
func NewRenderer(lim Limits) *Renderer { return &Renderer{lim: lim.settle()} }

// Close gives the worker back (or stops it).
func (r *Renderer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil {
		putWorker(r.w)
		r.w = nil
	}
}

// Render renders the template name (relative to the env's root) with vars
// in the worker. The error is an *Error; a render that passes a limit or
// kills the worker is one that names the template and the limit.
func (r *Renderer) Render(ctx context.Context, e *Env, name string, vars map[string]any) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	file := e.file(name)
	if clean, ok := templateName(name); ok {
		file = e.file(clean)
	}
	if err := ctx.Err(); err != nil {
		return "", &Error{File: file, Msg: fmt.Sprintf("render of %s did not start: %v", file, err)}
	}
	if r.w == nil || r.w.dead() {
		if r.w != nil {
			r.w.stop()
		}
		w, err := getWorker(r.lim.Memory)
		if err != nil {
			return "", &Error{File: file, Msg: fmt.Sprintf("render of %s did not start: %v", file, err)}
		}
		r.w = w
	}
	out, err := r.w.render(ctx, e, name, vars, r.lim)
	if err != nil {
		var je *Error
		if errors.As(err, &je) {
			return "", je
		}
		return "", &Error{File: file, Msg: err.Error()}
	}
	return out, nil
}

// RenderContext renders name in a render worker with DefaultLimits. The
// error is an *Error.
func (e *Env) RenderContext(ctx context.Context, name string, vars map[string]any) (string, error) {
	r := NewRenderer(DefaultLimits)
	defer r.Close()
	return r.Render(ctx, e, name, vars)
}

// Render renders name in a render worker with DefaultLimits: see
// RenderContext.
func (e *Env) Render(name string, vars map[string]any) (string, error) {
	return e.RenderContext(context.Background(), name, vars)
}

// worker is one render worker process.
type worker struct {
	cmd     *exec.Cmd
	mem     int64
	in      *bufio.Writer
	stdin   io.Closer
	enc     *gob.Encoder
	results chan result
	exited  chan struct{} // closed when the process has exited
	stderr  *headBuffer
	sent    map[uint64]bool
	bytes   int64 // file bytes sent
	killed  bool
}

func (w *worker) dead() bool {
	select {
	case <-w.exited:
		return true
	default:
		return w.killed
	}
}

func startWorker(mem int64) (*worker, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("render worker: %w", err)
	}
	cmd := exec.Command(exe)
	// Nothing of the tool's environment (tokens, keys) reaches the worker.
	cmd.Env = []string{workerVar + "=" + strconv.FormatInt(mem, 10), "GOMAXPROCS=2", "GOTRACEBACK=single", "LANG=C.UTF-8"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("render worker: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("render worker: %w", err)
	}
	w := &worker{cmd: cmd, mem: mem, stdin: stdin, results: make(chan result), exited: make(chan struct{}),
		stderr: &headBuffer{max: 4096}, sent: map[uint64]bool{}}
	cmd.Stderr = w.stderr
	w.in = bufio.NewWriterSize(stdin, 64<<10)
	w.enc = gob.NewEncoder(w.in)
	if err := nice.Start(cmd); err != nil {
		return nil, fmt.Errorf("render worker: start %s: %w", exe, err)
	}
	running.add(w)
	go func() {
		dec := gob.NewDecoder(bufio.NewReaderSize(stdout, 64<<10))
		var buf []byte
		for {
			// A new wResult each time (gob leaves the fields that an
			// answer does not carry as they were), over the old buffer.
			res := wResult{Output: buf[:0]}
			if err := dec.Decode(&res); err != nil {
				break
			}
			buf = res.Output
			if cap(buf) > keepBuffer {
				buf = nil
			}
			w.results <- result{output: string(res.Output), err: res.Err, other: res.Other}
		}
		_ = cmd.Wait()
		// Out of the set before exited closes: StopWorkers returns on
		// exited, and then no stopped worker may be left in the set.
		running.remove(w)
		close(w.exited)
	}()
	return w, nil
}

// render sends one job and waits for its result, the time limit or ctx.
func (w *worker) render(ctx context.Context, e *Env, name string, vars map[string]any, lim Limits) (string, error) {
	file := e.file(name)
	if clean, ok := templateName(name); ok {
		file = e.file(clean)
	}
	if !w.sent[e.id] {
		if err := w.enc.Encode(wRequest{Env: &wEnv{ID: e.id, Root: e.root, Files: e.files, Opts: e.opts}}); err != nil {
			return "", w.failed(file, fmt.Errorf("send the templates: %w", err))
		}
		w.sent[e.id] = true
		for _, s := range e.files {
			w.bytes += int64(len(s))
		}
	}
	if err := w.enc.Encode(wRequest{Job: &wJob{Env: e.id, Name: name, Vars: vars, MaxOutput: lim.Output}}); err != nil {
		if strings.Contains(err.Error(), "gob") && !w.dead() {
			// The variables cannot be encoded: the worker is fine.
			w.kill()
			return "", &Error{File: file, Msg: fmt.Sprintf("render of %s did not start: the variables cannot be sent to the render worker: %v", file, err)}
		}
		return "", w.failed(file, err)
	}
	if err := w.in.Flush(); err != nil {
		return "", w.failed(file, err)
	}
	renderStart := time.Now()
	timer := loadclock.NewTimer(lim.Time)
	defer timer.Stop()
	select {
	case res := <-w.results:
		if res.err != nil {
			return "", res.err
		}
		if res.other != "" {
			return "", &Error{File: file, Msg: res.other}
		}
		return res.output, nil
	case <-w.exited:
		return "", w.failed(file, nil)
	case <-timer.C:
		w.kill()
		return "", &Error{File: file, Stopped: true, Msg: fmt.Sprintf("render of %s stopped: it took longer than the time limit of %s (limits.render_time)%s", file, lim.Time, loadclock.Wall(lim.Time, time.Since(renderStart)))}
	case <-ctx.Done():
		w.kill()
		return "", &Error{File: file, Stopped: true, Msg: fmt.Sprintf("render of %s stopped: the check's time limit ran out (%v)", file, ctx.Err())}
	}
}

// failed waits for a worker that is dying and says why it died.
func (w *worker) failed(file string, sendErr error) error {
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.kill()
	}
	stderr := w.stderr.String()
	code := -1
	if ps := w.cmd.ProcessState; ps != nil {
		code = ps.ExitCode()
	}
	mb := w.mem >> 20
	switch {
	case strings.Contains(stderr, "stack overflow") || strings.Contains(stderr, "stack exceeds"):
		return &Error{File: file, Stopped: true, Msg: fmt.Sprintf("render of %s stopped: the template nests too deep (the render worker's stack passed its limit of %d MB)", file, maxStackOf(w.mem)>>20)}
	case code == exitMemory || strings.Contains(stderr, "out of memory"):
		return &Error{File: file, Stopped: true, Msg: fmt.Sprintf("render of %s stopped: it used more than %d MB of memory (limits.render_memory)", file, mb)}
	}
	why := firstLine(stderr)
	if why == "" && sendErr != nil {
		why = sendErr.Error()
	}
	return &Error{File: file, Stopped: true, Msg: fmt.Sprintf("render of %s stopped: the render worker died (exit code %d): %s", file, code, why)}
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// kill kills the worker's process group and waits for it.
func (w *worker) kill() {
	w.killed = true
	if w.cmd.Process != nil {
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	}
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
	}
}

// stop ends a healthy worker: it exits when its stdin closes.
func (w *worker) stop() {
	_ = w.stdin.Close()
	go func() {
		select {
		case <-w.exited:
		case <-time.After(5 * time.Second):
			w.kill()
		}
	}()
}

// The pool keeps a few idle workers so that a Render call does not start a
// process each time. An idle worker stops after poolIdle.
const (
	poolSize  = 2
	poolIdle  = 20 * time.Second
	poolBytes = 32 << 20 // a worker that holds more template bytes is not kept
)

var pool struct {
	mu   sync.Mutex
	idle []*worker
}
