package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/report"
)

// maxShortName is the longest name boundName returns.
const maxShortName = 2*nameEnds + 120

func TestBoundName(t *testing.T) {
	t.Parallel()
	long := "tasks/" + strings.Repeat("é", 100_000) + "/tests/test.sh"
	other := "tasks/" + strings.Repeat("é", 100_000) + "x/tests/test.sh"
	for _, s := range []string{"tasks/a/test.sh", strings.Repeat("a", maxNameBytes)} {
		if got := boundName(s); got != s {
			t.Errorf("boundName kept %d of %d bytes of a short name", len(got), len(s))
		}
	}
	b, o := boundName(long), boundName(other)
	if len(b) > maxShortName || len(b) <= maxNameBytes || !utf8.ValidString(b) {
		t.Errorf("short form has %d bytes (valid UTF-8 %v): %q", len(b), utf8.ValidString(b), b)
	}
	if b == o {
		t.Error("two long names with the same ends get the same short form")
	}
	if path.Base(b) != "test.sh" || !strings.HasPrefix(b, "tasks/") || !strings.Contains(b, "200020 bytes, sha256 ") {
		t.Errorf("short form %q", b)
	}
}

// longNames is an archive of n members whose names have size bytes each.
func longNames(t testing.TB, n, size int, tag string) []entry {
	var es []entry
	for i := range n {
		es = append(es, entry{name: fmt.Sprintf("tasks/%d/%s/test.sh", i, strings.Repeat(tag, size)), body: "#!/bin/bash\necho hi\n",
			linkTo: "", typ: tar.TypeReg})
	}
	return es
}

// Every name the comparison keeps is bounded, whatever the names in the
// archive: the members that wait for a partner, the lists, the examples.
func TestLongNamesAreBounded(t *testing.T) {
	t.Parallel()
	const n, size = 100, 50_000
	base, head := makeTar(t, longNames(t, n, size, "b"), true), makeTar(t, longNames(t, n, size, "h"), true)
	s := &side{tr: tar.NewReader(mustGunzip(t, head)), counts: map[string]int{}}
	kept := 0
	for {
		m, err := s.next(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			break
		}
		kept += len(m.Name) + len(m.Link) + len(m.Uname) + len(m.Gname)
	}
	if s.n != n || kept > n*maxShortName {
		t.Errorf("%d members keep %d bytes of names; want at most %d", s.n, kept, n*maxShortName)
	}
	d, err := Compare(bytes.NewReader(base), bytes.NewReader(head), Options{MaxDiff: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if d.Kinds[KindAdded].Count != n || d.Kinds[KindRemoved].Count != n {
		t.Fatalf("kinds %+v", d.Kinds)
	}
	for _, s := range append(append([]string{d.Kinds[KindAdded].Example, d.Kinds[KindRemoved].Example}, d.Added...), d.Removed...) {
		if len(s) > maxShortName {
			t.Errorf("a kept name has %d bytes", len(s))
		}
	}
}

// The text report of an archive with long member names has short lines.
func TestLongNamesKeepReportLinesShort(t *testing.T) {
	t.Parallel()
	in := fixture(t, config.Default(), func(r *gittest.Repo, head bool) {
		tag := "b"
		if head {
			tag = "h"
		}
		writeBytes(t, r, tarPath, makeTar(t, longNames(t, 30, 50_000, tag), true))
	})
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Failure {
		t.Fatalf("%s %q", res.Conclusion, res.Title)
	}
	rep := &report.Report{Repo: "r", Base: in.Plan.Base, Head: in.Plan.Head, MergeBase: in.Plan.MergeBase, Results: []checks.Result{res}, Overall: res.Conclusion}
	text := rep.Text()
	const maxLine = (maxListed + 2) * (maxShortName + 4)
	for i, line := range strings.Split(text, "\n") {
		if len(line) > maxLine {
			t.Errorf("text report line %d has %d bytes; want at most %d", i+1, len(line), maxLine)
		}
	}
	if len(text) > 64<<10 {
		t.Errorf("the text report has %d bytes", len(text))
	}
}

func mustGunzip(t testing.TB, data []byte) *gzip.Reader {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}
