package child

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/report"
)

// tail keeps what the child wrote on stderr that is no log line: the
// first line that says why a Go program died ("fatal error: ...",
// "panic: ...", else "runtime: ..."; under the race detector the
// memory limit reads "too many address space collisions") and the last
// few KiB.
type tail struct {
	mu    sync.Mutex
	fatal string
	last  []byte
}

const tailSize = 4 << 10

func newTail() *tail { return &tail{} }

func (t *tail) add(line []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(line)
	switch {
	case t.fatal == "" || strings.HasPrefix(t.fatal, "runtime: "):
		if strings.HasPrefix(s, "fatal error:") || strings.HasPrefix(s, "panic:") {
			t.fatal = cut(s, 300)
		} else if t.fatal == "" && strings.HasPrefix(s, "runtime: ") {
			t.fatal = cut(s, 300)
		}
	}
	t.last = append(t.last, line...)
	t.last = append(t.last, '\n')
	if len(t.last) > tailSize {
		t.last = t.last[len(t.last)-tailSize:]
	}
}

// String is the fatal line, else the last line written.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fatal != "" {
		return t.fatal
	}
	lines := strings.Split(strings.TrimSpace(string(t.last)), "\n")
	return cut(lines[len(lines)-1], 300)
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// relayLog passes the child's JSON log lines on to log, with their level,
// message and attributes, and keeps the other lines in t.
func relayLog(r io.Reader, t *tail, log *slog.Logger) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var rec map[string]any
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &rec) != nil {
			t.add(line)
			continue
		}
		msg, _ := rec["msg"].(string)
		var level slog.Level
		if lv, ok := rec["level"].(string); ok {
			_ = level.UnmarshalText([]byte(lv))
		}
		var attrs []any
		for k, v := range rec {
			if k != "msg" && k != "level" && k != "time" {
				attrs = append(attrs, k, v)
			}
		}
		log.Log(context.Background(), level, msg, attrs...)
	}
	if err := sc.Err(); err != nil {
		// A line past 1 MiB: keep the rest out of the log.
		t.add([]byte("(stderr line too long: " + err.Error() + ")"))
		_, _ = io.Copy(io.Discard, r)
	}
}

// reason says why the child gave no outcome.
func (r *Runner) reason(cmd *exec.Cmd, waitErr, readErr error, timedOut bool, timeout time.Duration, stderr string) string {
	var b strings.Builder
	switch {
	case timedOut:
		fmt.Fprintf(&b, "the verification took longer than its limit of %s and was stopped", timeout)
	case readErr != nil:
		fmt.Fprintf(&b, "the verification process wrote a bad answer (%v)", readErr)
	default:
		b.WriteString("the verification process " + ended(cmd, waitErr))
	}
	low := strings.ToLower(stderr)
	if m := r.maxMemory(); m > 0 && (strings.Contains(low, "out of memory") || strings.Contains(low, "cannot allocate memory") || strings.Contains(low, "address space")) {
		fmt.Fprintf(&b, ": it ran out of memory (its limit is %d MiB more than it held at start)", m>>20)
	}
	if strings.Contains(low, "stack overflow") {
		fmt.Fprintf(&b, ": a goroutine's stack passed its limit of %d MiB (input nested too deeply)", maxStack>>20)
	}
	if stderr != "" && !timedOut {
		fmt.Fprintf(&b, " (%s)", stderr)
	}
	return b.String()
}

// ended says how the process ended: "was killed by signal ..." or "exited
// with status N".
func ended(cmd *exec.Cmd, err error) string {
	var ee *exec.ExitError
	if cmd.ProcessState == nil || (err != nil && !errors.As(err, &ee)) {
		return fmt.Sprintf("failed: %v", err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d without a report", cmd.ProcessState.ExitCode())
}

// notRunReport is the report of a child that gave none: every check not
// run, with why.
func notRunReport(req Request, names []string, why string, took time.Duration) *report.Report {
	rep := &report.Report{Repo: req.RepoName, BaseRev: req.Base, HeadRev: req.Head, Base: req.Base, Head: req.Head, Duration: took}
	sentence := upper(why) + ". Nothing of this head was verified; a new push, or a maintainer's comment, starts a new run."
	for _, n := range names {
		rep.Results = append(rep.Results, checks.Result{
			Check: n, Conclusion: checks.NotRun,
			Title:   "Not run: the verification process stopped",
			Summary: sentence,
		})
	}
	rep.Overall = checks.Overall(rep.Results)
	rep.Notes = append(rep.Notes, sentence)
	return rep
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return string(bytes.ToUpper([]byte(s[:1]))) + s[1:]
}
