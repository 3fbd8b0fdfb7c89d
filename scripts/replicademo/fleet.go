// The three replicas: their processes (start, SIGKILL, restart on the
// same data folder) and each one's own way to the fake GitHub (front),
// which sees every API request of that replica.

package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// fleet is the replicas. Its methods are safe for concurrent use.
type fleet struct {
	self  string // this program
	work  string // the logs are replica-N.log here
	flags []replicaFlags

	mu    sync.Mutex
	procs []*proc
	kills []string // what each kill hit, for the report
}

// start starts replica i and waits until it answers /healthz.
func (f *fleet) start(i int) error {
	logf, err := os.OpenFile(f.log(i), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(f.self, f.flags[i].args()...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(p.done) }()
	f.mu.Lock()
	f.procs[i] = p
	f.mu.Unlock()
	return waitHealthy("http://"+f.flags[i].listen, p)
}

func (f *fleet) log(i int) string { return filepath.Join(f.work, fmt.Sprintf("replica-%d.log", i)) }

// kill SIGKILLs replica i, waits until it is gone and notes what.
func (f *fleet) kill(i int, what string) error {
	f.mu.Lock()
	p := f.procs[i]
	f.mu.Unlock()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill replica %d: %w", i, err)
	}
	<-p.done
	f.mu.Lock()
	f.kills = append(f.kills, fmt.Sprintf("replica %d %s", i, what))
	f.mu.Unlock()
	return nil
}

// restart starts replica i again after a second, on its data folder:
// the same replica id, so it takes up the jobs it held at once.
func (f *fleet) restart(i int) error {
	time.Sleep(time.Second)
	if err := f.start(i); err != nil {
		return fmt.Errorf("restart replica %d: %w", i, err)
	}
	return nil
}

// stop stops every replica with SIGTERM, as a deployment does.
func (f *fleet) stop() {
	f.mu.Lock()
	procs := append([]*proc(nil), f.procs...)
	f.mu.Unlock()
	for _, p := range procs {
		if p != nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	for _, p := range procs {
		if p != nil {
			<-p.done
		}
	}
}

// front is one replica's way to the fake GitHub: it forwards every
// request and, after GitHub answered a write, asks killAfter whether to
// SIGKILL the replica before it gets the answer.
type front struct {
	target string
	client *http.Client
	// killAfter sees each answered write (method, path, body); true: the
	// replica dies now, GitHub having done the write.
	killAfter func(method, path string, body []byte) bool
	kill      func()
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, f.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := f.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && f.killAfter != nil && f.killAfter(r.Method, r.URL.Path, body) {
		f.kill()
		panic(http.ErrAbortHandler) // the answer never arrives
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}
