package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

var shaMask = []Mask{{Re: regexp.MustCompile(`\b[0-9a-f]{40}\b`), Replace: "<sha>"}}

func TestCompare(t *testing.T) {
	t.Parallel()
	base := dataset(12, 3, 10, false)
	mod := func(f func(es []entry) []entry) []entry { return f(slices.Clone(base)) }
	tests := []struct {
		name     string
		head     []entry
		gz       bool
		changed  int
		distinct int
		kinds    map[string]int
	}{
		{name: "same archive", head: base, kinds: map[string]int{}},
		{name: "one edit to every test.sh: one distinct diff once the sha is masked", head: dataset(12, 3, 10, true), changed: 12, distinct: 1, kinds: map[string]int{}},
		{name: "gzip", head: dataset(12, 3, 10, true), gz: true, changed: 12, distinct: 1, kinds: map[string]int{}},
		{name: "one task gets another edit", head: mod(func(es []entry) []entry {
			h := dataset(12, 3, 10, true)
			h[4].body += "echo extra\n"
			return h
		}), changed: 12, distinct: 2, kinds: map[string]int{}},
		{name: "mode", head: mod(func(es []entry) []entry { es[1].mode = 0o755; return es }), kinds: map[string]int{KindMode: 1}},
		{name: "mtime", head: mod(func(es []entry) []entry { es[2].mtime = epoch.Add(time.Hour); return es }), kinds: map[string]int{KindMtime: 1}},
		{name: "owner", head: mod(func(es []entry) []entry { es[3].uid = 1000; return es }), kinds: map[string]int{KindOwner: 1}},
		{name: "symlink instead of a file", head: mod(func(es []entry) []entry { es[5].typ, es[5].linkTo = tar.TypeSymlink, "/etc/passwd"; return es }), changed: 1, distinct: 1, kinds: map[string]int{KindType: 1}},
		{name: "removed member", head: mod(func(es []entry) []entry { es[6].skipped = true; return es }), kinds: map[string]int{KindRemoved: 1}},
		{name: "added member", head: mod(func(es []entry) []entry {
			return slices.Insert(es, 0, entry{name: "tasks/new/tests/test.sh", body: "#!/bin/bash\necho hi\n"})
		}), kinds: map[string]int{KindAdded: 1}},
		{name: "two members swap places", head: mod(func(es []entry) []entry { es[7], es[8] = es[8], es[7]; return es }), kinds: map[string]int{KindOrder: 1}},
		{name: "one member moves to the end", head: mod(func(es []entry) []entry { m := es[0]; return append(es[1:], m) }), kinds: map[string]int{KindOrder: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := Compare(bytes.NewReader(makeTar(t, base, tt.gz)), bytes.NewReader(makeTar(t, tt.head, tt.gz)), Options{Masks: shaMask, MaxDiff: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if d.Changed != tt.changed || d.Distinct() != tt.distinct {
				t.Errorf("changed %d, distinct %d; want %d, %d", d.Changed, d.Distinct(), tt.changed, tt.distinct)
			}
			got := map[string]int{}
			for k, v := range d.Kinds {
				got[k] = v.Count
			}
			if !equalMaps(got, tt.kinds) {
				t.Errorf("kinds %v; want %v", got, tt.kinds)
			}
		})
	}
}

func equalMaps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Without the masks each task's sha makes its own diff.
func TestCompareWithoutMasks(t *testing.T) {
	t.Parallel()
	d, err := Compare(bytes.NewReader(makeTar(t, dataset(7, 1, 1, false), false)), bytes.NewReader(makeTar(t, dataset(7, 1, 1, true), false)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Changed != 7 || d.Distinct() != 7 {
		t.Fatalf("changed %d, distinct %d; want 7, 7", d.Changed, d.Distinct())
	}
	if d.Groups[0].Example != "tasks/owner__repo-0/tests/test.sh" || !bytes.Contains([]byte(d.Groups[0].Diff), []byte("+BASE="+taskSHA(0))) {
		t.Errorf("example %s, diff:\n%s", d.Groups[0].Example, d.Groups[0].Diff)
	}
}

func TestCompareZstdAndBrokenTar(t *testing.T) {
	t.Parallel()
	base := makeTar(t, dataset(3, 1, 1, false), false)
	head := makeTar(t, dataset(3, 1, 1, true), false)
	var z bytes.Buffer
	zw, err := zstd.NewWriter(&z)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(head)
	zw.Close()
	d, err := Compare(bytes.NewReader(base), bytes.NewReader(z.Bytes()), Options{Masks: shaMask})
	if err != nil || d.HeadFormat != "tar.zst" || d.Changed != 3 || d.Distinct() != 1 {
		t.Fatalf("zstd: %v %+v", err, d)
	}
	if _, err := Compare(bytes.NewReader(base), bytes.NewReader(head[:700]), Options{}); err == nil {
		t.Error("a cut tar compares without error")
	}
}

// Members in reverse order wait for their partner; past MaxPending only
// their sha256 is kept, and the result is the same.
func TestCompareReversedPastThePendingBudget(t *testing.T) {
	t.Parallel()
	base := dataset(20, 2, 100, false)
	rev := slices.Clone(base)
	slices.Reverse(rev)
	rev[5].body += "changed\n"
	for _, budget := range []int64{1 << 20, 300} {
		d, err := Compare(bytes.NewReader(makeTar(t, base, false)), bytes.NewReader(makeTar(t, rev, false)), Options{MaxPending: budget, Masks: shaMask})
		if err != nil {
			t.Fatal(err)
		}
		if d.Changed != 1 || d.Kinds[KindOrder] == nil || d.Kinds[KindOrder].Count != 59 || d.Kinds[KindAdded] != nil || d.Kinds[KindRemoved] != nil {
			t.Errorf("budget %d: changed %d, kinds %v", budget, d.Changed, d.Kinds)
		}
	}
}

// A decompression bomb stops when the check's context ends.
func TestCompareStopsAtTheContext(t *testing.T) {
	t.Parallel()
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "zeros", Mode: 0o644, Size: 1 << 40, Typeflag: tar.TypeReg})
	zeros := make([]byte, 1<<20)
	for range 64 {
		tw.Write(zeros)
	}
	zw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	base := makeTar(t, dataset(1, 1, 1, false), false)
	_, err := Compare(ctxReader{ctx, bytes.NewReader(base)}, ctxReader{ctx, bytes.NewReader(bomb.Bytes())}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v; want context.Canceled", err)
	}
}

func TestIsShell(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       bool
	}{
		{"a/test.sh", "", true},
		{"a/run", "#!/bin/bash\n", true},
		{"a/run", "#!/usr/bin/env bash\n", true},
		{"a/run", "#!/bin/sh -e\n", true},
		{"a/run.py", "#!/usr/bin/env python3\n", false},
		{"a/README", "bash\n", false},
	}
	for _, tt := range tests {
		if got := isShell(tt.name, []byte(tt.body)); got != tt.want {
			t.Errorf("isShell(%q, %q) = %v", tt.name, tt.body, got)
		}
	}
}

// A changed shell member larger than MaxDiff is not kept, and is counted
// as not checked with bash -n (never silently passed).
func TestCompareCountsShellMembersNotChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := makeShellDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		maxDiff      int64
		written, cut int
	}{{1 << 20, 3, 0}, {100, 0, 3}} {
		d, err := Compare(bytes.NewReader(makeTar(t, dataset(3, 1, 1, false), false)), bytes.NewReader(makeTar(t, dataset(3, 1, 1, true), false)),
			Options{MaxDiff: tt.maxDiff, ShellDir: dir, MaxShell: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Shell) != tt.written || d.ShellCut != tt.cut {
			t.Errorf("max_diff %d: %d written, %d cut; want %d, %d", tt.maxDiff, len(d.Shell), d.ShellCut, tt.written, tt.cut)
		}
	}
}
