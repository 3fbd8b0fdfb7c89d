package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
)

func TestParsePointer(t *testing.T) {
	t.Parallel()
	oid := strings.Repeat("ab", 32)
	ptr := func(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
	v1 := "version https://git-lfs.github.com/spec/v1"
	// padded is a pointer with an extension whose name pads it to n bytes.
	padded := func(n int) string {
		short := ptr(v1, "ext-0-x sha256:"+oid, "oid sha256:"+oid, "size 1")
		return ptr(v1, "ext-0-x"+strings.Repeat("x", n-len(short))+" sha256:"+oid, "oid sha256:"+oid, "size 1")
	}
	tests := []struct {
		name    string
		blob    string
		pointer bool
		err     bool
		size    int64
	}{
		{name: "what git-lfs writes", blob: ptr(v1, "oid sha256:"+oid, "size 12345"), pointer: true, size: 12345},
		{name: "the pre-release version", blob: ptr("version https://hawser.github.com/spec/v1", "oid sha256:"+oid, "size 0"), pointer: true},
		{name: "extensions", blob: ptr(v1, "ext-0-foo sha256:"+oid, "oid sha256:"+oid, "size 3"), pointer: true, err: true},
		{name: "no newline at the end", blob: strings.TrimSuffix(ptr(v1, "oid sha256:"+oid, "size 1"), "\n")},
		{name: "CRLF", blob: strings.ReplaceAll(ptr(v1, "oid sha256:"+oid, "size 1"), "\n", "\r\n")},
		{name: "two spaces", blob: ptr(v1, "oid  sha256:"+oid, "size 1")},
		{name: "upper-case hex", blob: ptr(v1, "oid sha256:"+strings.ToUpper(oid), "size 1")},
		{name: "a short oid", blob: ptr(v1, "oid sha256:"+oid[:63], "size 1")},
		{name: "another hash", blob: ptr(v1, "oid sha1:"+oid[:40], "size 1")},
		{name: "keys out of order", blob: ptr(v1, "size 1", "oid sha256:"+oid)},
		{name: "version not first", blob: ptr("oid sha256:"+oid, v1, "size 1")},
		{name: "an unknown version", blob: ptr("version https://git-lfs.github.com/spec/v2", "oid sha256:"+oid, "size 1")},
		{name: "a signed size", blob: ptr(v1, "oid sha256:"+oid, "size +1")},
		{name: "a size past int64", blob: ptr(v1, "oid sha256:"+oid, "size 99999999999999999999")},
		{name: "an extra line", blob: ptr(v1, "oid sha256:"+oid, "size 1", "x y")},
		{name: "a blank line", blob: ptr(v1, "", "oid sha256:"+oid, "size 1")},
		{name: "a NUL after the pointer", blob: ptr(v1, "oid sha256:"+oid, "size 1") + "\x00"},
		{name: "1,023 bytes", blob: padded(1023), pointer: true, err: true},
		{name: "1,024 bytes", blob: padded(1024)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok, err := parsePointer([]byte(tt.blob))
			if ok != tt.pointer || (err != nil) != tt.err {
				t.Fatalf("pointer %v, err %v; want %v, err %v", ok, err, tt.pointer, tt.err)
			}
			if ok && !tt.err && (p.OID != oid || tt.size != 0 && p.Size != tt.size) {
				t.Errorf("pointer %+v", p)
			}
		})
	}
}

// fakePointerTar is a real tar whose first member is named like a pointer's
// first line, so its first 1,024 bytes hold "version ...", then "oid
// sha256:<oid>" and "size <n>" lines of another object.
func fakePointerTar(t *testing.T, oid string, size int, es []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	body := fmt.Sprintf("\noid sha256:%s\nsize %d\n", oid, size)
	h := &tar.Header{Name: "version https://git-lfs.github.com/spec/v1", Mode: 0o644, Size: int64(len(body)), ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
	if err := w.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	rest := makeTar(t, es, false)
	buf.Write(rest) // the rest's members follow; its end blocks end the tar
	return buf.Bytes()
}

// A tar at head that starts with the words of a Git LFS pointer naming the
// base's object is read as the tar it is: the changed test.sh shows.
func TestFakePointerIsReadAsATar(t *testing.T) {
	t.Parallel()
	baseTar := makeTar(t, dataset(3, 1, 10, false), false)
	sum := sha256.Sum256(baseTar)
	oid := hex.EncodeToString(sum[:])
	in := fixture(t, config.Default(), func(r *gittest.Repo, head bool) {
		if !head {
			lfs(t, r, tarPath, baseTar, true)
			return
		}
		fake := fakePointerTar(t, oid, len(baseTar), dataset(3, 1, 10, true))
		if !bytes.Contains(fake[:lfsMaxPointer], []byte("\noid sha256:"+oid+"\n")) {
			t.Fatal("the fake's first 1,024 bytes lack the oid line")
		}
		writeBytes(t, r, tarPath, fake)
	})
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Failure || !strings.Contains(res.Summary, "3 members changed") {
		t.Fatalf("%s %q; want a failure with 3 members changed\nsummary: %s", res.Conclusion, res.Title, res.Summary)
	}
}
