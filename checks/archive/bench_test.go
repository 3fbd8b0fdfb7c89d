package archive

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/plan"
)

// The size of a datasmith dataset archive: 1,317 tasks, 10,536 members,
// about 55 MB.
const (
	benchTasks  = 1317
	benchOthers = 7
	benchFill   = 4900
)

var (
	benchOnce sync.Once
	benchIn   *checks.Input
	benchDir  string
)

// benchInput commits the two archives once, streamed to disk.
func benchInput(b *testing.B) *checks.Input {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "archive-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
		r := &gittest.Repo{T: b}
		r.Repo.Dir = dir
		r.Git("init", "-q", "-b", "main")
		var shas [2]string
		for i, head := range []bool{false, true} {
			if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
				b.Fatal(err)
			}
			f, err := os.Create(filepath.Join(dir, tarPath))
			if err != nil {
				b.Fatal(err)
			}
			w := bufio.NewWriter(f)
			writeTar(b, w, dataset(benchTasks, benchOthers, benchFill, head), false)
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			st, _ := f.Stat()
			f.Close()
			b.Logf("archive %d: %d bytes", i, st.Size())
			shas[i] = r.Commit(strconv.Itoa(i))
		}
		cfg := config.Default()
		p, err := plan.Build(context.Background(), r.Repo, cfg, shas[0], shas[1])
		if err != nil {
			b.Fatal(err)
		}
		benchIn = &checks.Input{Repo: dir, Plan: p, Config: cfg, Log: slog.New(slog.DiscardHandler)}
		runtime.GC()
		debug.FreeOSMemory()
	})
	if benchIn == nil {
		b.Fatal("no benchmark input")
	}
	return benchIn
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// resetPeak resets the process's peak RSS (VmHWM); peakMB reads it.
func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func peakMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkCompare streams two such archives from git cat-file and
// compares them member by member (no bash -n).
func BenchmarkCompare(b *testing.B) {
	in := benchInput(b)
	ctx := context.Background()
	resetPeak()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		base, err := openBlob(ctx, in.Repo, in.Plan.MergeBase, tarPath)
		if err != nil {
			b.Fatal(err)
		}
		head, err := openBlob(ctx, in.Repo, in.Plan.Head, tarPath)
		if err != nil {
			b.Fatal(err)
		}
		d, err := Compare(base, head, Options{Masks: shaMask, MaxDiff: config.DefaultArchiveMaxDiff})
		base.Close()
		head.Close()
		if err != nil {
			b.Fatal(err)
		}
		if d.Changed != benchTasks || d.Distinct() != 1 || d.HeadMembers != benchTasks*(1+benchOthers) {
			b.Fatalf("changed %d, distinct %d, members %d", d.Changed, d.Distinct(), d.HeadMembers)
		}
	}
	b.ReportMetric(peakMB(), "peak-RSS-MB")
}

// BenchmarkCheck is the whole check on such an archive, bash -n on the
// 1,317 changed scripts included.
func BenchmarkCheck(b *testing.B) {
	in := benchInput(b)
	resetPeak()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run := *in
		run.WorkDir = b.TempDir()
		res := New().Run(context.Background(), &run)
		if res.Conclusion != checks.Success || res.Title != "1,317 members changed, 1 distinct diff after masking" {
			b.Fatalf("%s %s: %s", res.Conclusion, res.Title, res.Summary)
		}
	}
	b.ReportMetric(peakMB(), "peak-RSS-MB")
}
