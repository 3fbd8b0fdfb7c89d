package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/formula-code/template-verify/internal/gitx"
)

// ErrLFSMissing is returned when an archive is a Git LFS pointer and the
// object it names is not in the clone.
var ErrLFSMissing = errors.New("the Git LFS object is not in the clone")

// lfsMaxPointer is git-lfs's blobSizeCutoff: a blob of this many bytes or
// more is never a pointer (git-lfs checks the size before it parses).
const lfsMaxPointer = 1024

// lfsVersions are the version values git-lfs accepts, compared as strings
// (its v1Aliases).
var lfsVersions = []string{
	"http://git-media.io/v/2",
	"https://hawser.github.com/spec/v1",
	"https://git-lfs.github.com/spec/v1",
}

var (
	lfsOIDValue = regexp.MustCompile(`\Asha256:[0-9a-f]{64}\z`)
	lfsSizeDigs = regexp.MustCompile(`\A[0-9]+\z`)
	lfsExtKey   = regexp.MustCompile(`\Aext-[0-9]-\w+\z`)
)

// lfsPointer is a parsed Git LFS pointer.
type lfsPointer struct {
	OID  string // 64 lower-case hex digits
	Size int64
}

// parsePointer decides, as git-lfs does, whether blob (all of it) is a
// Git LFS pointer: fewer than lfsMaxPointer bytes; lines of the form
// "key value\n"; version first with a known value; then keys in ascending
// order: extensions (ext-N-name), "oid sha256:<64 hex>", "size <digits>".
// It is stricter than git-lfs in one way: no blank line or space around
// the lines, which git-lfs never writes. Any other blob is content, not a
// pointer: a tar that starts with the pointer's words is read as a tar.
// A pointer with extensions is a pointer the check cannot follow: it
// returns true and an error.
func parsePointer(blob []byte) (lfsPointer, bool, error) {
	var p lfsPointer
	if len(blob) >= lfsMaxPointer || !bytes.HasSuffix(blob, []byte("\n")) {
		return p, false, nil
	}
	lines := strings.Split(string(blob[:len(blob)-1]), "\n")
	if len(lines) < 3 {
		return p, false, nil
	}
	var exts []string
	prev := ""
	for i, line := range lines {
		key, value, ok := strings.Cut(line, " ")
		if !ok || key == "" || value == "" || strings.ContainsAny(value, "\r") {
			return p, false, nil
		}
		switch {
		case i == 0:
			if key != "version" || !oneOf(value, lfsVersions) {
				return p, false, nil
			}
			continue
		case key <= prev: // sorted, no key twice
			return p, false, nil
		case lfsExtKey.MatchString(key) && i < len(lines)-2:
			if !lfsOIDValue.MatchString(value) {
				return p, false, nil
			}
			exts = append(exts, key)
		case key == "oid" && i == len(lines)-2:
			if !lfsOIDValue.MatchString(value) {
				return p, false, nil
			}
			p.OID = strings.TrimPrefix(value, "sha256:")
		case key == "size" && i == len(lines)-1:
			n, err := strconv.ParseInt(value, 10, 64)
			if !lfsSizeDigs.MatchString(value) || err != nil {
				return p, false, nil
			}
			p.Size = n
		default:
			return p, false, nil
		}
		prev = key
	}
	if len(exts) > 0 {
		return p, true, fmt.Errorf("a Git LFS pointer with extensions (%s), which the check does not apply", strings.Join(exts, ", "))
	}
	return p, true, nil
}

func oneOf(s string, list []string) bool {
	for _, v := range list {
		if s == v {
			return true
		}
	}
	return false
}

// openLFS opens the object a Git LFS pointer names, from the clone's
// lfs/objects folder, checked against the pointer's size and sha256.
func openLFS(ctx context.Context, repo string, ptr lfsPointer) (*blobStream, error) {
	oid, size := ptr.OID, ptr.Size
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
