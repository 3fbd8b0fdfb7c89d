package githttp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/internal/gitx"
)

// commit makes a repository in dir with one commit and returns its sha.
func commit(t *testing.T, dir, file, content string) string {
	t.Helper()
	ctx := context.Background()
	r := gitx.Repo{Dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, "commit", "-q", "-m", "one"); err != nil {
		t.Fatal(err)
	}
	sha, err := r.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

func TestCloneAndFetchBySHA(t *testing.T) {
	for _, level := range []int{0, 19} {
		t.Run(fmt.Sprintf("nice %d", level), func(t *testing.T) { fetchBySHA(t, level) })
	}
}

func fetchBySHA(t *testing.T, level int) {
	root := t.TempDir()
	sha := commit(t, filepath.Join(root, "demo"), "a.txt", "hello\n")
	// A commit that no branch names: only a fetch by sha gets it.
	r := gitx.Repo{Dir: filepath.Join(root, "demo")}
	ctx := context.Background()
	out, err := r.Run(ctx, "commit-tree", "-p", sha, "-m", "loose", sha+"^{tree}")
	if err != nil {
		t.Fatal(err)
	}
	loose := strings.TrimSpace(string(out))
	s := Start(t, root)
	s.SetNice(level)

	dst := gitx.Repo{Dir: t.TempDir()}
	if _, err := dst.Run(ctx, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Run(ctx, "fetch", "-q", s.URL+"/demo", loose+":refs/x/loose"); err != nil {
		t.Fatalf("fetch by sha: %v", err)
	}
	got, err := dst.Resolve(ctx, "refs/x/loose")
	if err != nil || got != loose {
		t.Fatalf("fetched %q, %v; want %s", got, err, loose)
	}
	if data, ok, err := dst.ReadFile(ctx, got, "a.txt"); err != nil || !ok || string(data) != "hello\n" {
		t.Fatalf("a.txt = %q %v %v", data, ok, err)
	}
	if len(s.Requests()) == 0 {
		t.Fatal("no request recorded")
	}
}

func TestAuthRequired(t *testing.T) {
	root := t.TempDir()
	commit(t, filepath.Join(root, "demo"), "a.txt", "x\n")
	s := Start(t, root)
	s.SetAuth("Basic c2VjcmV0")
	ctx := context.Background()
	dst := gitx.Repo{Dir: t.TempDir()}
	if _, err := dst.Run(ctx, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Run(ctx, "fetch", "-q", s.URL+"/demo", "main"); err == nil {
		t.Fatal("fetch without the header worked; want 401")
	}
	if _, err := dst.Run(ctx, "-c", "http.extraHeader=Authorization: Basic c2VjcmV0", "fetch", "-q", s.URL+"/demo", "main"); err != nil {
		t.Fatalf("fetch with the header: %v", err)
	}
	reqs := s.Requests()
	if reqs[0].Status != 401 || reqs[len(reqs)-1].Status != 200 {
		t.Fatalf("statuses: first %d last %d", reqs[0].Status, reqs[len(reqs)-1].Status)
	}
}
