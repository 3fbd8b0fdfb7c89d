package archive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/klauspost/compress/zstd"

	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/nice"
)

// ErrLFSMissing is returned when an archive is a Git LFS pointer and the
// object it names is not in the clone.
var ErrLFSMissing = errors.New("the Git LFS object is not in the clone")

// maxZstdWindow bounds the memory of the zstd decoder: a frame that asks
// for a larger window is refused, not allocated.
const maxZstdWindow = 64 << 20

const lfsPrefix = "version https://git-lfs.github.com/spec/v1"

var (
	lfsOID  = regexp.MustCompile(`(?m)^oid sha256:([0-9a-f]{64})$`)
	lfsSize = regexp.MustCompile(`(?m)^size ([0-9]+)$`)
)

// blobStream is the content of one archive at one commit, as a stream.
type blobStream struct {
	io.Reader
	close func() error
	// LFS is the oid of the Git LFS object the blob points to, or "".
	LFS string
}

// Close stops the git process or closes the LFS object.
func (s *blobStream) Close() error { return s.close() }

// openBlob streams the blob path at rev with git cat-file (no filters, no
// textconv, so no driver of the repository's config runs). A Git LFS
// pointer is replaced by the object it names, from the clone's
// lfs/objects folder, checked against the pointer's size and sha256.
func openBlob(ctx context.Context, repo, rev, path string) (*blobStream, error) {
	cctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(cctx, "git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "safe.directory=*",
		"cat-file", "blob", rev+":"+path)
	cmd.Dir = repo
	cmd.Env = gitx.Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("git cat-file %s:%s: %w", short(rev), path, err)
	}
	if err := nice.Start(cmd); err != nil {
		cancel()
		return nil, fmt.Errorf("git cat-file %s:%s: %w", short(rev), path, err)
	}
	stop := func() error {
		cancel()
		err := cmd.Wait()
		if err != nil && cctx.Err() == nil {
			return fmt.Errorf("git cat-file %s:%s: %s: %w", short(rev), path, strings.TrimSpace(stderr.String()), err)
		}
		return nil
	}
	br := bufio.NewReaderSize(out, 64<<10)
	head, _ := br.Peek(len(lfsPrefix))
	if string(head) != lfsPrefix {
		return &blobStream{Reader: br, close: stop}, nil
	}
	ptr, _ := io.ReadAll(io.LimitReader(br, 1024))
	if err := stop(); err != nil {
		return nil, err
	}
	return openLFS(ctx, repo, ptr)
}

// openLFS opens the object a Git LFS pointer names.
func openLFS(ctx context.Context, repo string, ptr []byte) (*blobStream, error) {
	m, sm := lfsOID.FindSubmatch(ptr), lfsSize.FindSubmatch(ptr)
	if m == nil || sm == nil {
		return nil, fmt.Errorf("a Git LFS pointer without oid or size: %q", ptr)
	}
	oid := string(m[1])
	size, err := strconv.ParseInt(string(sm[1]), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("the Git LFS pointer size %q: %w", sm[1], err)
	}
	out, err := gitx.Repo{Dir: repo}.Run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("find the git folder: %w", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "lfs", "objects", oid[:2], oid[2:4], oid)
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("object %s (%d bytes): %w", oid[:12], size, ErrLFSMissing)
		}
		return nil, fmt.Errorf("open the Git LFS object %s: %w", oid[:12], err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != size {
		f.Close()
		return nil, fmt.Errorf("the Git LFS object %s is not a regular file of %d bytes", oid[:12], size)
	}
	h := sha256.New()
	return &blobStream{Reader: &verifying{r: io.TeeReader(f, h), h: h, want: oid}, close: f.Close, LFS: oid}, nil
}

// verifying checks the sha256 of what it read at EOF.
type verifying struct {
	r    io.Reader
	h    hash.Hash
	want string
}

func (v *verifying) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	if err == io.EOF && hex.EncodeToString(v.h.Sum(nil)) != v.want {
		return n, fmt.Errorf("the Git LFS object %s does not match its sha256", v.want[:12])
	}
	return n, err
}

// decompress wraps r by its magic bytes: gzip, zstd or a plain tar. It
// returns the format's name.
func decompress(r io.Reader) (io.Reader, string, func() error, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", nil, fmt.Errorf("gzip: %w", err)
		}
		zr.Multistream(true)
		return zr, "tar.gz", zr.Close, nil
	case bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return nil, "", nil, fmt.Errorf("zstd: %w", err)
		}
		return zr, "tar.zst", func() error { zr.Close(); return nil }, nil
	}
	return br, "tar", func() error { return nil }, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// ctxReader ends a read when ctx ends: a decompression bomb stops at the
// check's time limit even after git has sent all its bytes.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
