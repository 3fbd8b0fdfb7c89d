package junit

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/formula-code/template-verify/internal/safefile"
)

// billionLaughs is the classic XML entity bomb: ten levels of ten
// references, 10^9 "lol"s if a parser expanded them.
const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<testsuite tests="1"><testcase classname="tests.test_x" name="test_a"><failure message="&lol9;">&lol9;</failure></testcase></testsuite>`

// TestParseFileRefusesOddFiles: a JUnit file that pytest's process (code
// from a pull request) replaced by a symlink to /dev/zero, a FIFO, a
// symlink to another file, or a huge file is refused at once, without
// blocking and without reading it into memory.
func TestParseFileRefusesOddFiles(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "other.xml")
	if err := os.WriteFile(outside, []byte(`<testsuite><testcase classname="a" name="SECRET"/></testsuite>`), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.xml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.xml")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxFileSize+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, path string
		want       error
	}{
		{"symlink to /dev/zero", link("zero.xml", "/dev/zero"), safefile.ErrNotRegular},
		{"symlink to another file", link("other.xml", outside), safefile.ErrNotRegular},
		{"FIFO", fifo, safefile.ErrNotRegular},
		{"larger than the limit", huge, safefile.ErrTooLarge},
		{"missing", filepath.Join(dir, "none.xml"), os.ErrNotExist},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseFile(c.path)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, %v; want an error that is %v", r, err, c.want)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("the error shows the content: %v", err)
			}
		})
	}
}

// TestParseMalformedIsBounded: malformed JUnit gives a clear error, and the
// memory allocated to say so stays within a small bound (an entity bomb
// is not expanded, a deep nesting stops at the decoder's depth limit).
func TestParseMalformedIsBounded(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"entity bomb", billionLaughs, "invalid character entity &lol9;"},
		{"external entity", `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><testsuite><testcase name="&e;"/></testsuite>`, "invalid character entity &e;"},
		{"deep unclosed nesting", strings.Repeat("<testsuites>", 200_000), "unexpected EOF"},
		{"NUL bytes", "\x00\x00\x00", "illegal character code U+0000"},
		{"no element", `<?xml version="1.0"?><!-- nothing -->`, "the file has no XML element"},
		{"empty", " \n", "the file is empty"},
		{"truncated", `<testsuite><testcase name="a">`, "unexpected EOF"},
		{"wrong root", `<html/>`, "the root element is <html>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := Parse("junit.xml", []byte(c.data))
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, %v; want an error that says %q", r, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "junit: junit.xml") {
				t.Errorf("the error does not name the file: %v", err)
			}
			// 64 MiB is far above what these inputs need and far below
			// what an expanded bomb (3 GB) would take.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("parsing allocated %d bytes", alloc)
			}
		})
	}
}

// TestNodeIDInStaysInsideRoot: the classname of a JUnit case (written by
// code from a pull request) is looked up under the checkout to find its
// test file. ".." parts and a symlinked folder of the checkout must not
// lead the lookup out: the id is then the guess of NodeID, never a path
// outside.
func TestNodeIDInStaysInsideRoot(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "checkout")
	outside := filepath.Join(top, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(top, "probe.py"), filepath.Join(outside, "Secret.py")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "ext")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tests", "test_a.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		classname, want string
	}{
		{"...probe", "probe.py::test_x"},                         // would be ../probe.py
		{"ext.Secret", "ext.py::Secret::test_x"},                 // would be ext/Secret.py
		{"tests.test_a.Inner", "tests/test_a.py::Inner::test_x"}, // inside: found
	}
	for _, c := range cases {
		got := Case{Classname: c.classname, Name: "test_x"}.NodeIDIn(root)
		if got != c.want {
			t.Errorf("%s: id %q, want %q", c.classname, got, c.want)
		}
	}
}
