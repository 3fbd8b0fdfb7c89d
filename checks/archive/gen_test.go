package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// A datasmith task's test.sh, cut to the lines a dataset edit touches.
const testSHBase = `#!/bin/bash
find_repo() {
  want="$1"
  for d in /workspace/*/.git; do
    r="$(dirname "$d")"
    if [ "$(git -C "$r" rev-parse HEAD 2>/dev/null)" = "$want" ]; then
      echo "$r"; return 0
    fi
  done
  return 1
}
# broken box gets recorded as a wrong fix.
R="$(find_repo %s)" || {
  echo "error=no_repo_at_base_commit" > /logs/verifier/pytest_rc.txt
  exit 0
}
cd "$R"
while IFS= read -r f; do
  [ -z "$f" ] && continue
  git checkout -q HEAD -- "$f" 2>/dev/null || rm -f -- "$f"
done <<'TPFILES'
%s
TPFILES
`

const testSHHead = `#!/bin/bash
find_repo() {
  want="$1"
  for d in /workspace/*/.git; do
    r="$(dirname "$d")"
    if git -C "$r" merge-base --is-ancestor "$want" HEAD 2>/dev/null; then
      echo "$r"; return 0
    fi
  done
  return 1
}
# broken box gets recorded as a wrong fix.
BASE=%s
R="$(find_repo "$BASE")" || {
  echo "error=no_repo_at_base_commit" > /logs/verifier/pytest_rc.txt
  exit 0
}
cd "$R"
while IFS= read -r f; do
  [ -z "$f" ] && continue
  git checkout -q "$BASE" -- "$f" 2>/dev/null || rm -f -- "$f"
done <<'TPFILES'
%s
TPFILES
`

// entry is one member to write.
type entry struct {
	name    string
	body    string
	mode    int64
	mtime   time.Time
	uid     int
	typ     byte
	linkTo  string
	skipped bool
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// makeTar writes entries as a tar (gzipped when gz).
func makeTar(t testing.TB, entries []entry, gz bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	writeTar(t, &buf, entries, gz)
	return buf.Bytes()
}

// writeTar writes entries as a tar to out (gzipped when gz).
func writeTar(t testing.TB, out io.Writer, entries []entry, gz bool) {
	t.Helper()
	var w *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(out)
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(out)
	}
	for _, e := range entries {
		if e.skipped {
			continue
		}
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), ModTime: e.mtime, Uid: e.uid, Typeflag: e.typ, Linkname: e.linkTo, Format: tar.FormatPAX}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if h.ModTime.IsZero() {
			h.ModTime = epoch
		}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := w.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// taskSHA is a task's base commit: 40 hex digits that differ per task.
func taskSHA(i int) string {
	s := sha1.Sum([]byte(fmt.Sprint("task", i)))
	return hex.EncodeToString(s[:])
}

// dataset is a datasmith dataset archive in small: per task a test.sh and
// other members (fill bytes each). head applies one edit to every test.sh.
func dataset(tasks, others, fill int, head bool) []entry {
	var out []entry
	pad := strings.Repeat("x", fill)
	long := pad + strings.Repeat("y", 512) // the first two members of a task are one block longer
	for i := range tasks {
		dir := fmt.Sprintf("tasks/owner__repo-%d/", i)
		files := strings.Repeat(fmt.Sprintf("tests/test_%d.py\n", i), 1+i%5)
		sh := fmt.Sprintf(testSHBase, taskSHA(i), strings.TrimSuffix(files, "\n"))
		if head {
			sh = fmt.Sprintf(testSHHead, taskSHA(i), strings.TrimSuffix(files, "\n"))
		}
		out = append(out, entry{name: dir + "tests/test.sh", body: sh, mode: 0o755})
		for j := range others {
			p := pad
			if j < 2 {
				p = long
			}
			out = append(out, entry{name: fmt.Sprintf("%sfile%d.txt", dir, j), body: fmt.Sprintf("task %d file %d\n%s\n", i, j, p)})
		}
	}
	return out
}
