package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/formula-code/template-verify/internal/nice"
)

// BatchIdle is how long a Batch keeps its git process without a request.
var BatchIdle = 15 * time.Second

// Object is one object of a repository as `git cat-file --batch` gives it.
type Object struct {
	OID  string
	Type string // "blob", "tree", "commit" or "tag"
	Data []byte
}

// Batch reads the objects of one repository through one long-running
// `git cat-file --batch` process, so that a revision's reads (its trees,
// every file of a folder, a path that is not there) cost one process in
// all instead of one or two each. It is safe for concurrent use; requests
// are served one at a time. The process stops after BatchIdle without a
// request (the next request starts another one) and at Close.
//
// Names are given to git one per line, so a name with a newline is read
// by rev-parse first (one more process). Nothing follows a symbolic link:
// "rev:link/file" is not there, and a link is a blob with its link text.
type Batch struct {
	repo   Repo
	mu     sync.Mutex
	p      *batchProc
	gen    uint64 // counts requests, so that an old idle timer closes nothing
	closed bool
	// starts counts the git processes started (for tests).
	starts int
}

// ErrBatchClosed is the error of a request to a closed Batch.
var ErrBatchClosed = errors.New("git cat-file batch: closed")

// Batch returns a Batch of the repository; its process starts at the first
// request.
func (r Repo) Batch() *Batch { return &Batch{repo: r} }

type batchProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	done   chan struct{} // closed once Wait returned
}

func (b *Batch) start() (*batchProc, error) {
	args := []string{"cat-file", "--batch"}
	// Not the caller's context: the process serves later requests too. A
	// request's context kills it (see Object).
	cmd := exec.Command("git", withSafeConfig(args)...)
	cmd.Dir = b.repo.Dir
	cmd.Env = Env()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	p := &batchProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := nice.Start(cmd); err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	b.starts++
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// stop ends the process: EOF on its stdin, then a kill if it does not exit.
func (p *batchProc) stop() {
	_ = p.in.Close()
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *batchProc) kill() { _ = p.cmd.Process.Kill() }

// Object reads the object that name names: an object id or any name git
// rev-parse takes ("rev:path", "rev^{tree}"). ok is false when there is no
// such object.
func (b *Batch) Object(ctx context.Context, name string) (Object, bool, error) {
	if strings.ContainsAny(name, "\n\x00") {
		if strings.HasPrefix(name, "-") {
			return Object{}, false, nil
		}
		out, err := b.repo.Run(ctx, "rev-parse", "--verify", "--quiet", name)
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == 1 {
				return Object{}, false, nil
			}
			return Object{}, false, err
		}
		name = strings.TrimSpace(string(out))
	}
	if err := ctx.Err(); err != nil {
		return Object{}, false, fmt.Errorf("git cat-file --batch %s: %w", name, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return Object{}, false, ErrBatchClosed
	}
	b.gen++
	if b.p == nil {
		p, err := b.start()
		if err != nil {
			return Object{}, false, err
		}
		b.p = p
	}
	p := b.p
	stop := context.AfterFunc(ctx, p.kill)
	obj, ok, err := readObject(p.in, p.out, name)
	cancelled := !stop() // the context ended during the request
	if err != nil || cancelled {
		b.p = nil
		p.stop()
		if cancelled {
			return Object{}, false, fmt.Errorf("git cat-file --batch %s: %w", name, ctx.Err())
		}
		if msg := strings.TrimSpace(p.stderr.String()); msg != "" {
			err = fmt.Errorf("%w (%s)", err, msg)
		}
		return Object{}, false, err
	}
	gen := b.gen
	time.AfterFunc(BatchIdle, func() { b.idle(gen) })
	return obj, ok, nil
}

// idle stops the process when no request came since the one numbered gen.
func (b *Batch) idle(gen uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gen == gen && b.p != nil {
		b.p.stop()
		b.p = nil
	}
}

// Close stops the process; later requests get ErrBatchClosed.
func (b *Batch) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.p != nil {
		b.p.stop()
		b.p = nil
	}
	return nil
}

// readObject sends name and reads git's answer: a header "<oid> <type>
// <size>" and the content, or "<name> missing".
func readObject(w io.Writer, rd *bufio.Reader, name string) (Object, bool, error) {
	if _, err := io.WriteString(w, name+"\n"); err != nil {
		return Object{}, false, fmt.Errorf("git cat-file --batch %s: %w", name, err)
	}
	header, err := rd.ReadString('\n')
	if err != nil {
		return Object{}, false, fmt.Errorf("git cat-file --batch %s: %w", name, err)
	}
	header = strings.TrimSuffix(header, "\n")
	switch header {
	case name + " missing":
		return Object{}, false, nil
	case name + " ambiguous":
		return Object{}, false, fmt.Errorf("git cat-file --batch: %s is ambiguous", name)
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return Object{}, false, fmt.Errorf("git cat-file --batch %s: unexpected header %q", name, header)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return Object{}, false, fmt.Errorf("git cat-file --batch %s: bad size in %q", name, header)
	}
	data := make([]byte, size+1) // the content and a newline
	if _, err := io.ReadFull(rd, data); err != nil {
		return Object{}, false, fmt.Errorf("git cat-file --batch %s: short read: %w", name, err)
	}
	if data[size] != '\n' {
		return Object{}, false, fmt.Errorf("git cat-file --batch %s: no newline after %d bytes", name, size)
	}
	return Object{OID: f[0], Type: f[1], Data: data[:size:size]}, true, nil
}
