package child

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"syscall"
	"time"

	"github.com/formula-code/template-verify/checks/ledger"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// Defaults of a Runner.
const (
	// DefaultMaxMemory is the address space a child may add to what it
	// holds at start: 3 GiB. The readers of one pull request went past
	// 3.4 GB before they were bounded.
	DefaultMaxMemory int64 = 3 << 30
	// DefaultTimeout bounds one verification: a datasmith pull request
	// takes 1 to 7 minutes; the App's rescue waits an hour.
	DefaultTimeout = 45 * time.Minute
)

// Runner starts one child per verification.
type Runner struct {
	// Command is the child's argv: the tool's binary and the hidden
	// subcommand, for example [os.Executable(), "verify-child"].
	Command []string
	// Env is the child's environment; nil: this process's.
	Env []string
	// MaxMemory is Request.MaxMemory; 0: DefaultMaxMemory, negative: no
	// limit.
	MaxMemory int64
	// Timeout bounds one child; 0: DefaultTimeout.
	Timeout time.Duration
	// Checks are the names of the checks a report of a child that died
	// lists as not run.
	Checks []string
	Log    *slog.Logger
}

// Verify runs req in a child. src answers the child's ledger calls (nil
// when req.Ledger is nil). A child that dies, runs out of memory or out
// of time gives a report in which every check is not run with the reason
// (and a nil error); an error is returned for a verification that
// returned one, and for ctx's end, so that the caller can keep the job.
func (r *Runner) Verify(ctx context.Context, req Request, src ledger.Source) (*report.Report, error) {
	if len(r.Command) == 0 {
		return nil, errors.New("verify child: no command")
	}
	log := r.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	req.MaxMemory = r.maxMemory()
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("verify child: encode the request: %w", err)
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, r.Command[0], r.Command[1:]...)
	cmd.Env = r.Env
	// Its own process group, killed whole; and killed with this process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("verify child: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("verify child: %w", err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("verify child: %w", err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("verify child: start %s: %w", r.Command[0], err)
	}
	tail := newTail()
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		relayLog(stderr, tail, log)
	}()
	if _, err := stdin.Write(append(body, '\n')); err != nil {
		log.Warn("verify child: write the request", "error", err)
	}
	msg, readErr := converse(cctx, bufio.NewReaderSize(stdout, 64<<10), stdin, src)
	_ = stdin.Close()
	if readErr != nil {
		// Stop a child that writes what is no message, or too much.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	_, _ = io.Copy(io.Discard, stdout)
	<-logged
	waitErr := cmd.Wait()
	var ru *syscall.Rusage
	if cmd.ProcessState != nil {
		ru, _ = cmd.ProcessState.SysUsage().(*syscall.Rusage)
	}
	if ru != nil {
		log.Debug("verify child ended", "duration", time.Since(start).Round(time.Millisecond), "peak_rss_kib", ru.Maxrss)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("verify child: %w", context.Cause(ctx))
	}
	if msg != nil && waitErr == nil {
		if msg.Error != nil {
			if msg.Error.Usage {
				return nil, &verify.UsageError{Err: errors.New(msg.Error.Message)}
			}
			return nil, errors.New(msg.Error.Message)
		}
		if msg.Report != nil {
			return msg.Report, nil
		}
	}
	why := r.reason(cmd, waitErr, readErr, cctx.Err() != nil, timeout, tail.String())
	log.Error("the verification process stopped; its checks are not run", "reason", why)
	return notRunReport(req, r.Checks, why, time.Since(start)), nil
}

func (r *Runner) maxMemory() int64 {
	switch {
	case r.MaxMemory == 0:
		return DefaultMaxMemory
	case r.MaxMemory < 0:
		return 0
	}
	return r.MaxMemory
}

// converse answers the child's calls until its outcome arrives. It
// returns nil when the child ended without one.
func converse(ctx context.Context, out *bufio.Reader, in io.Writer, src ledger.Source) (*Message, error) {
	for {
		line, err := readLine(out)
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the child's output: %w", err)
		}
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("the child wrote what is no message: %w", err)
		}
		if m.Call == nil {
			return &m, nil
		}
		b, err := json.Marshal(answer(ctx, src, *m.Call))
		if err != nil {
			return nil, fmt.Errorf("encode a reply: %w", err)
		}
		if _, err := in.Write(append(b, '\n')); err != nil {
			return nil, fmt.Errorf("answer the child: %w", err)
		}
	}
}

// answer asks src what the child asked.
func answer(ctx context.Context, src ledger.Source, c Call) Reply {
	rep := Reply{ID: c.ID}
	var err error
	switch {
	case src == nil:
		err = errors.New("the server has no source of check runs")
	case c.Op == OpCheckRuns:
		rep.Runs, err = src.CheckRunsAt(ctx, c.SHA)
	case c.Op == OpPullHead:
		ph, ok := src.(ledger.PullHeads)
		if !ok {
			err = errors.New("the server's source gives no pull request heads")
			break
		}
		rep.Head, err = ph.PullHead(ctx, c.Number)
	default:
		err = fmt.Errorf("unknown call %q", c.Op)
	}
	if err != nil {
		rep.Err = err.Error()
	}
	return rep
}
