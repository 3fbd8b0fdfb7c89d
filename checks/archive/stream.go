package archive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/nice"
	"github.com/formula-code/template-verify/internal/words"
)

// maxZstdWindow bounds the memory of the zstd decoder: a frame that asks
// for a larger window is refused, not allocated.
const maxZstdWindow = 64 << 20

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
	// A blob is a Git LFS pointer only when git sent all of it in fewer
	// than lfsMaxPointer bytes and it follows the pointer grammar exactly.
	head, err := br.Peek(lfsMaxPointer)
	if !errors.Is(err, io.EOF) {
		return &blobStream{Reader: br, close: stop}, nil
	}
	ptr, isPtr, perr := parsePointer(head)
	if !isPtr {
		return &blobStream{Reader: br, close: stop}, nil
	}
	if err := stop(); err != nil {
		return nil, err
	}
	if perr != nil {
		return nil, fmt.Errorf("%s at %s: %w", path, short(rev), perr)
	}
	return openLFS(ctx, repo, ptr)
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

// short is the shared short commit sha.
var short = words.Short

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
