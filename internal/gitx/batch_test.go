package gitx_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

// batchRepo commits text, binary, executable, symlinked, nested, oddly
// named and large files, and returns the repository and the commit.
func batchRepo(t *testing.T) (*gittest.Repo, string, []byte) {
	r := gittest.New(t)
	big := make([]byte, 3<<20+17) // larger than any pipe or read buffer
	rand.New(rand.NewSource(1)).Read(big)
	r.Write(map[string]string{
		"t/x.sh":          "echo x\n",
		"t/bin":           "\xff\x00bin\x00",
		"t/sub/deep.j2":   "{{ a }}",
		"t/space name.j2": "s",
		"t/big":           string(big),
		"t/empty":         "",
		"other":           "o\n",
		"new\nline":       "n",
	})
	if err := os.Chmod(filepath.Join(r.Dir(), "t/x.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"t/link": "sub/deep.j2", "t/dirlink": "sub", "t/out": "/etc/passwd"} {
		if err := os.Symlink(target, filepath.Join(r.Dir(), link)); err != nil {
			t.Fatal(err)
		}
	}
	return r, r.Commit("c"), big
}

func TestBatchReadsAsGitDoes(t *testing.T) {
	r, sha, big := batchRepo(t)
	ctx := context.Background()
	b := r.Repo.Batch()
	defer b.Close()

	for _, dir := range []string{"", ".", "t", "t/sub", "t/sub/", "t/x.sh", "missing", "t/dirlink", "t/link/x", "t/x.sh/y"} {
		want, err := r.Repo.ListTree(ctx, sha, dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.ListTree(ctx, sha, dir)
		if err != nil {
			t.Fatalf("ListTree %q: %v", dir, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ListTree %q:\n got %v\nwant %v", dir, got, want)
		}
	}
	if _, err := b.ListTree(ctx, "no-such-rev", "t"); err == nil {
		t.Error("ListTree of an unknown revision: no error")
	}

	files, entries, err := b.ReadTree(ctx, sha, "t")
	if err != nil {
		t.Fatal(err)
	}
	want, err := r.Repo.ReadTree(ctx, sha, "t")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("ReadTree differs from Repo.ReadTree: %d files, want %d", len(files), len(want))
	}
	if !bytes.Equal(files["t/big"], big) || string(files["t/bin"]) != "\xff\x00bin\x00" || string(files["t/empty"]) != "" {
		t.Errorf("big, binary or empty file read wrong (%d bytes of big)", len(files["t/big"]))
	}
	modes := map[string]string{}
	for _, e := range entries {
		modes[e.Path] = e.Mode
	}
	if modes["t/x.sh"] != "100755" || modes["t/link"] != "120000" || modes["t/bin"] != "100644" {
		t.Errorf("modes %v", modes)
	}
	if string(files["t/link"]) != "sub/deep.j2" || string(files["t/out"]) != "/etc/passwd" {
		t.Errorf("a symlink is its link text: %q %q", files["t/link"], files["t/out"])
	}

	for _, c := range []struct {
		path string
		want string
		ok   bool
	}{
		{"t/x.sh", "echo x\n", true},
		{"t/bin", "\xff\x00bin\x00", true},
		{"t/link", "sub/deep.j2", true}, // the link text, not followed
		{"t/link/x", "", false},
		{"t/dirlink/deep.j2", "", false}, // no path through a link
		{"missing", "", false},
		{"t/space name.j2", "s", true},
		{"new\nline", "n", true},
		{"new\nmissing", "", false},
	} {
		data, ok, err := b.ReadFile(ctx, sha, c.path)
		if err != nil || ok != c.ok || string(data) != c.want {
			t.Errorf("ReadFile %q = %q %v %v; want %q %v", c.path, data, ok, err, c.want, c.ok)
		}
		rdata, rok, rerr := r.Repo.ReadFile(ctx, sha, c.path)
		if rerr != nil || rok != ok || !bytes.Equal(rdata, data) {
			t.Errorf("Repo.ReadFile %q = %q %v %v; Batch gave %q %v", c.path, rdata, rok, rerr, data, ok)
		}
	}
	if _, ok, err := b.ReadFile(ctx, "no-such-rev", "t/x.sh"); ok || err != nil {
		t.Errorf("unknown revision: ok %v, err %v", ok, err)
	}
	if _, _, err := b.ReadFile(ctx, sha, "t/sub"); err == nil {
		t.Error("a folder read as a file: no error")
	}
	if _, _, err := r.Repo.ReadFile(ctx, sha, "t/sub"); err == nil {
		t.Error("Repo.ReadFile: a folder read as a file: no error")
	}
	if n := b.Starts(); n != 1 {
		t.Errorf("%d git processes for every read; want 1", n)
	}
}

func TestBatchRestartsAfterIdleCancelAndStopsAtClose(t *testing.T) {
	r, sha, _ := batchRepo(t)
	old := gitx.BatchIdle
	gitx.BatchIdle = 50 * time.Millisecond
	defer func() { gitx.BatchIdle = old }()
	b := r.Repo.Batch()
	ctx := context.Background()
	read := func() {
		t.Helper()
		if data, ok, err := b.ReadFile(ctx, sha, "other"); err != nil || !ok || string(data) != "o\n" {
			t.Fatalf("ReadFile = %q %v %v", data, ok, err)
		}
	}
	read()
	// The idle timer stops the process; wait for it, however loaded the
	// machine is.
	for deadline := time.Now().Add(time.Minute); b.Running(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the process still runs a minute after BatchIdle")
		}
	}
	read()
	if n := b.Starts(); n != 2 {
		t.Errorf("%d starts after an idle pause; want 2", n)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := b.ReadFile(cctx, sha, "other"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
	read()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.ReadFile(ctx, sha, "other"); !errors.Is(err, gitx.ErrBatchClosed) {
		t.Errorf("read after Close: %v", err)
	}
}
