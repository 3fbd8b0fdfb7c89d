package child

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/formula-code/template-verify/checks/ledger"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// VerifyFunc is verify.Run; tests give one that crashes.
type VerifyFunc func(ctx context.Context, opts verify.Options) (*report.Report, error)

// Serve is the child: it reads the Request from stdin, limits its own
// memory, runs verify with it and writes the outcome to stdout as one
// Message. Logs go to stderr as JSON lines, which the parent passes on.
// It returns the process's exit status: 0 once the outcome is written.
func Serve(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, run VerifyFunc) int {
	in := bufio.NewReaderSize(stdin, 64<<10)
	line, err := readLine(in)
	if err != nil {
		fmt.Fprintf(stderr, "verify-child: read the request: %v\n", err)
		return 2
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		fmt.Fprintf(stderr, "verify-child: bad request: %v\n", err)
		return 2
	}
	level := slog.LevelInfo
	if req.Debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	if req.MaxMemory > 0 {
		if err := limitMemory(req.MaxMemory); err != nil {
			log.Warn("the verification runs without a memory limit", "error", err)
		}
		// The collector works harder before the limit is reached, and a
		// deep recursion ends as a stack overflow, not at the limit.
		debug.SetMemoryLimit(req.MaxMemory / 10 * 8)
		debug.SetMaxStack(maxStack)
	}
	w := &writer{out: stdout}
	opts := verify.Options{
		RepoDir: req.RepoDir, Base: req.Base, Head: req.Head, RepoName: req.RepoName,
		Description: req.Description, Sandbox: req.Sandbox, CacheDir: req.CacheDir, Only: req.Only, Log: log,
	}
	if req.Ledger != nil {
		src := &remote{w: w, pending: map[int64]chan Reply{}}
		go src.readReplies(in)
		opts.Checks = verify.ChecksWithLedger(src, req.Ledger.BaseRef, req.Ledger.HeadRef)
	}
	rep, err := run(ctx, opts)
	msg := Message{Report: rep}
	if err != nil {
		var usage *verify.UsageError
		msg = Message{Error: &Failure{Message: err.Error(), Usage: errors.As(err, &usage)}}
	} else if rep == nil {
		msg = Message{Error: &Failure{Message: "the verification gave no report"}}
	}
	if err := w.write(msg); err != nil {
		fmt.Fprintf(stderr, "verify-child: write the report: %v\n", err)
		return 1
	}
	return 0
}

// maxStack is the largest stack of a goroutine of a child with a memory
// limit (Go's own default is 1 GB): a verification needs a few MiB.
const maxStack = 128 << 20

// readLine reads one line of at most maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a line longer than %d MiB", maxLine>>20)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// writer writes whole Messages, one per line, from any goroutine.
type writer struct {
	mu  sync.Mutex
	out io.Writer
}

func (w *writer) write(m Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// remote is the ledger's source in the child: each question goes to the
// parent as a Call and waits for its Reply.
type remote struct {
	w       *writer
	mu      sync.Mutex
	next    int64
	pending map[int64]chan Reply
	// gone is set once stdin ended: no reply comes any more.
	gone error
}

var (
	_ ledger.Source    = (*remote)(nil)
	_ ledger.PullHeads = (*remote)(nil)
)

// CheckRunsAt implements ledger.Source.
func (r *remote) CheckRunsAt(ctx context.Context, sha string) ([]ledger.Run, error) {
	rep, err := r.call(ctx, Call{Op: OpCheckRuns, SHA: sha})
	if err != nil {
		return nil, err
	}
	return rep.Runs, nil
}

// PullHead implements ledger.PullHeads.
func (r *remote) PullHead(ctx context.Context, number int) (string, error) {
	rep, err := r.call(ctx, Call{Op: OpPullHead, Number: number})
	if err != nil {
		return "", err
	}
	return rep.Head, nil
}

func (r *remote) call(ctx context.Context, c Call) (Reply, error) {
	ch := make(chan Reply, 1)
	r.mu.Lock()
	if r.gone != nil {
		r.mu.Unlock()
		return Reply{}, r.gone
	}
	r.next++
	c.ID = r.next
	r.pending[c.ID] = ch
	r.mu.Unlock()
	if err := r.w.write(Message{Call: &c}); err != nil {
		return Reply{}, err
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return Reply{}, errors.New("the server stopped answering")
		}
		if rep.Err != "" {
			return Reply{}, errors.New(rep.Err)
		}
		return rep, nil
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

// readReplies hands each reply on in to its call, until in ends.
func (r *remote) readReplies(in *bufio.Reader) {
	for {
		line, err := readLine(in)
		if err != nil {
			r.mu.Lock()
			r.gone = fmt.Errorf("the server stopped answering: %w", err)
			for id, ch := range r.pending {
				close(ch)
				delete(r.pending, id)
			}
			r.mu.Unlock()
			return
		}
		var rep Reply
		if json.Unmarshal(line, &rep) != nil {
			continue
		}
		r.mu.Lock()
		ch := r.pending[rep.ID]
		delete(r.pending, rep.ID)
		r.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
}
