// The parts of the demonstration: the test helpers outside a test, waiting, free addresses, the deliveries' bodies and the repository the heads come from.

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/gitx"
)

// tb lets the fake GitHub and the git server, made for tests, run here.
type tb struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errs     []string
}

func (t *tb) Helper()          {}
func (t *tb) Cleanup(f func()) { t.mu.Lock(); t.cleanups = append(t.cleanups, f); t.mu.Unlock() }
func (t *tb) Errorf(f string, a ...any) {
	t.mu.Lock()
	t.errs = append(t.errs, fmt.Sprintf(f, a...))
	t.mu.Unlock()
}
func (t *tb) Fatalf(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...); os.Exit(1) }
func (t *tb) Logf(f string, a ...any)   { fmt.Fprintf(os.Stderr, f+"\n", a...) }
func (t *tb) close() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// quiet reports whether no check run is open.
func quiet(gh *fakegithub.AppServer) bool {
	for _, c := range gh.CheckRuns() {
		if c.Status != "completed" {
			return false
		}
	}
	return true
}

func waitFor(d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

func waitHealthy(base string, p *proc) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return errors.New("the replica exited at start (see its log)")
		default:
		}
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer /healthz", base)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// uuid is a delivery id of GitHub's form made from name.
func uuid(name string) string {
	h := sha256.Sum256([]byte(name))
	x := hex.EncodeToString(h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// pullBody is GitHub's synchronize payload for pull request n at head.
func pullBody(raw []byte, action string, n int, head, base, gitURL string, seq int) ([]byte, error) {
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	obj := func(m map[string]any, path ...string) map[string]any {
		for _, k := range path {
			m = m[k].(map[string]any)
		}
		return m
	}
	repo := obj(p, "repository")
	repo["full_name"], repo["name"], repo["clone_url"] = full, repoName, gitURL+"/"+repoName
	obj(repo, "owner")["login"] = owner
	p["installation"] = map[string]any{"id": inst}
	p["action"], p["number"], p["seq"] = action, n, seq
	pr := obj(p, "pull_request")
	pr["number"] = n
	obj(pr, "head")["sha"] = head
	obj(pr, "base")["sha"], obj(pr, "base")["ref"] = base, "main"
	hr := obj(pr, "head", "repo")
	hr["full_name"], hr["fork"] = full, false
	obj(pr, "base", "repo")["full_name"] = full
	obj(pr, "user")["login"] = "dev"
	return json.Marshal(p)
}

// makeRepo makes a repository with a base and n heads, each one commit
// on the base.
func makeRepo(dir string, n int) (string, []string, error) {
	ctx := context.Background()
	r := gitx.Repo{Dir: dir}
	if err := os.MkdirAll(filepath.Join(dir, "templates/a"), 0o755); err != nil {
		return "", nil, err
	}
	run := func(args ...string) error {
		_, err := r.Run(ctx, args...)
		return err
	}
	file := filepath.Join(dir, "templates/a/test.sh")
	if err := run("init", "-q", "-b", "main"); err != nil {
		return "", nil, err
	}
	for _, kv := range [][2]string{{"user.name", "demo"}, {"user.email", "demo@example.com"}} {
		if err := run("config", kv[0], kv[1]); err != nil {
			return "", nil, err
		}
	}
	if err := os.WriteFile(file, []byte("echo base\n"), 0o644); err != nil {
		return "", nil, err
	}
	if err := run("add", "-A"); err != nil {
		return "", nil, err
	}
	if err := run("commit", "-q", "-m", "base"); err != nil {
		return "", nil, err
	}
	base, err := r.Resolve(ctx, "HEAD")
	if err != nil {
		return "", nil, err
	}
	var heads []string
	for i := 0; i < n; i++ {
		if err := os.WriteFile(file, []byte(fmt.Sprintf("echo head %d\n", i)), 0o644); err != nil {
			return "", nil, err
		}
		if err := run("commit", "-q", "-am", fmt.Sprintf("head %d", i)); err != nil {
			return "", nil, err
		}
		sha, err := r.Resolve(ctx, "HEAD")
		if err != nil {
			return "", nil, err
		}
		heads = append(heads, sha)
	}
	return base, heads, nil
}
