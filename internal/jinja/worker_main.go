package jinja

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// workerMain is the render worker: it sets its limits, then renders the
// jobs it reads on stdin until stdin ends. It returns the exit code.
func workerMain(mem int64) int {
	if err := limitMemory(mem); err != nil {
		// Without /proc the watchdog cannot run either; the time limit
		// and the output cap still hold.
		fmt.Fprintf(os.Stderr, "render worker: no address space limit: %v\n", err)
	}
	debug.SetMaxStack(int(maxStackOf(mem)))
	debug.SetMemoryLimit(mem / 2)
	debug.SetGCPercent(workerGCPercent)
	go watchdog(mem)
	if err := serveWorker(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "render worker: %v\n", err)
		return 2
	}
	return 0
}

// workerGCPercent is the worker's GOGC. What a render allocates dies when
// its answer is sent; the live heap is the parsed templates and little
// else, so at Go's default of 100 the collector runs often for nothing. On
// the 1,317 renders of BenchmarkGonja1317 (parsed-once, output buffer
// reused) the worker's way of rendering used 3.9 to 4.4 ms of CPU at 100
// and 3.0 to 3.1 ms at 400 (three runs each, one binary per setting). The
// memory limits stay as they are: the soft limit of SetMemoryLimit makes
// the collector run as often as it must to stay under mem/2 whatever GOGC
// says, and RLIMIT_AS and the watchdog still end the worker at mem.
const workerGCPercent = 400

// maxStackOf is the Go stack limit of a worker with mem bytes of memory: a
// stack that grows is copied, so the old and new stacks must both fit.
func maxStackOf(mem int64) int64 { return min(mem/4, 256<<20) }

// limitMemory sets RLIMIT_AS to the address space in use now plus mem: the
// Go runtime reserves address space it does not use, so a plain mem would
// fail at once. Under the race detector, which maps terabytes of shadow
// memory, only the watchdog applies.
func limitMemory(mem int64) error {
	if raceEnabled {
		return nil
	}
	vsz, err := vmSize()
	if err != nil {
		return err
	}
	lim := uint64(vsz + mem)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}

// vmSize is the process's address space in bytes.
func vmSize() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read the address space size: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("bad VmSize line %q: %w", l, err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmSize in /proc/self/status")
}

// watchdog ends the worker when its resident memory passes mem.
func watchdog(mem int64) {
	page := int64(os.Getpagesize())
	buf := make([]byte, 128)
	for {
		time.Sleep(5 * time.Millisecond)
		f, err := os.Open("/proc/self/statm")
		if err != nil {
			continue
		}
		n, _ := f.Read(buf)
		_ = f.Close()
		fields := bytes.Fields(buf[:n])
		if len(fields) < 2 {
			continue
		}
		pages, _ := strconv.ParseInt(string(fields[1]), 10, 64)
		if pages*page > mem {
			fmt.Fprintf(os.Stderr, "render worker: out of memory: %d MB resident\n", pages*page>>20)
			os.Exit(exitMemory)
		}
	}
}

// serveWorker renders the jobs of in and writes one result for each to out.
func serveWorker(in io.Reader, out io.Writer) error {
	dec := gob.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := gob.NewEncoder(bw)
	type wenv struct {
		env    *Env
		parsed map[string]*parseResult
	}
	envs := map[uint64]*wenv{}
	var output bytes.Buffer // every render's output, one after another
	for {
		var req wRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read a request: %w", err)
		}
		if r := req.Env; r != nil {
			e := newEnv(r.Files, r.Root, r.Opts)
			e.id = r.ID
			envs[r.ID] = &wenv{env: e, parsed: map[string]*parseResult{}}
			continue
		}
		j := req.Job
		if j == nil {
			continue
		}
		var res wResult
		we, ok := envs[j.Env]
		if !ok {
			res.Other = fmt.Sprintf("render worker: unknown environment %d", j.Env)
		} else {
			p, ok := we.parsed[j.Name]
			if !ok {
				t, err := we.env.parseLocal(j.Name)
				p = &parseResult{err: err}
				if t != nil {
					p.t = t.t
				}
				we.parsed[j.Name] = p
			}
			var err error
			if p.err == nil {
				clean, _ := templateName(j.Name)
				if output.Cap() > keepBuffer {
					output = bytes.Buffer{}
				}
				if err = (&local{env: we.env, name: clean, t: p.t}).renderTo(&output, j.Vars, j.MaxOutput); err == nil {
					res.Output = output.Bytes()
				}
			} else {
				err = p.err
			}
			var je *Error
			switch {
			case errors.As(err, &je):
				res.Err = je
			case err != nil:
				res.Other = err.Error()
			}
		}
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("write a result: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write a result: %w", err)
		}
	}
}
