package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatal(a ...any)            { r.errs = append(r.errs, "fatal") }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "testdata", "x.md")

	// Missing: a failure that names -update.
	r := &recorder{TB: t}
	Check(r, path, "a\n")
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "-update") {
		t.Fatalf("missing file: %v", r.errs)
	}

	// -update writes it, folders included.
	*update = true
	Check(t, path, "a\nb\n")
	*update = false
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("after -update: %q, %v", b, err)
	}

	// Equal: no failure. Different: one failure.
	r = &recorder{TB: t}
	Check(r, path, "a\nb\n")
	if len(r.errs) != 0 {
		t.Fatalf("equal: %v", r.errs)
	}
	Check(r, path, "a\nc\n")
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "\n-b\n+c\n") {
		t.Fatalf("different: %v", r.errs)
	}
}

func TestMaskTemp(t *testing.T) {
	tmp := os.TempDir()
	cases := []struct{ in, want string }{
		{"in " + tmp + "/template-verify-123/repo/x.sh line 3", "in <tmp> line 3"},
		{"assert '/dev/shm/tvt...end of file' == ''", "assert '<tmp>...end of file' == ''"},
		{"assert '/tmp/templat...end' == ''", "assert '<tmp>...end' == ''"},
		{"/var/lib/template-verify/x and 'a...b'", "/var/lib/template-verify/x and 'a...b'"},
	}
	for _, c := range cases {
		if got := MaskTemp(c.in); got != c.want {
			t.Errorf("MaskTemp(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
