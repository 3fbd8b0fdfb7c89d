package jinja

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// The benchmark renders the example repository's grader script, tests/test.sh
// (about 180 lines: if/else, is not none, {%- trimming), for 1,317 variable
// sets that differ in base_commit (40 hex digits), task names, run_pytest
// and rounds. One op is all 1,317 renders. One run measures every engine
// and way side by side and ends with a summary of the ratios:
//
//	go test ./internal/jinja -run '^$' -bench 'Gonja1317' -benchtime 20x
//
// The sub-benchmarks:
//   - parsed-once: gonja parses the template once and renders it 1,317
//     times in this process the way the render worker does: into one
//     reused output buffer, with the worker's GC setting
//     (workerGCPercent). Parsed once is how datasmith renders a dataset
//     (one Environment, which caches the template) and how the render
//     worker renders a batch.
//   - parsed-once-plain: the same, but each render returns a new string
//     and Go's collector runs at its default GOGC of 100: what the
//     worker's two choices are worth.
//   - parsed-each: as parsed-once, but gonja parses the template again
//     for every render.
//   - worker-parsed-once: the 1,317 renders through Renderer, the path of
//     the render check: one render worker process, one request and one
//     answer on its pipes per render.
//   - jinja2-parsed-once and jinja2-parsed-each: Python Jinja2, one
//     Environment; for "each" its cache_size is 0, so get_template reads,
//     parses and compiles every time.
//
// The Jinja2 figures come from one python process per sub-benchmark run,
// timed inside Python around the render loop only (no interpreter start,
// no import), and are reported as ns/op so that the units match. The
// python-process-ms/op metric adds the start, the import and the JSON
// transfer, for reference. cpu-ns/op is the CPU time of the process (Go:
// getrusage, the collector's work on the other core included; Python:
// time.process_time_ns) per op: on a machine shared with other work it is
// steadier than the wall time, so compare both. Before timing, the
// benchmark checks that both engines write the same bytes for every
// variable set.
const benchTemplateRoot = "../../examples/datasmith-mini/base/src/datasmith/harbor_adapter/template"

const benchTemplate = "tests/test.sh"

var benchOpts = config.Jinja{StrictUndefined: true, KeepTrailingNewline: true}

func benchVarSets(n int) []map[string]any {
	sets := make([]map[string]any, n)
	for i := range sets {
		sum := sha1.Sum([]byte(fmt.Sprintf("base commit %d", i)))
		var rounds any = 5
		if i%3 == 2 {
			rounds = nil
		}
		sets[i] = map[string]any{
			"owner":        fmt.Sprintf("owner%d", i%37),
			"repo":         fmt.Sprintf("repo%d", i%101),
			"issue_number": 1000 + i,
			"task_id":      fmt.Sprintf("owner%d__repo%d-%d", i%37, i%101, 1000+i),
			"base_commit":  hex.EncodeToString(sum[:]),
			"run_pytest":   i%2 == 0,
			"rounds":       rounds,
		}
	}
	return sets
}

func benchFiles(b *testing.B) (map[string][]byte, string) {
	b.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(benchTemplateRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(p)] = data
		return err
	})
	if err != nil {
		b.Fatalf("the example template folder is missing: %v", err)
	}
	if _, ok := files[benchTemplateRoot+"/"+benchTemplate]; !ok {
		b.Fatalf("no %s under %s", benchTemplate, benchTemplateRoot)
	}
	return files, benchTemplateRoot
}

func BenchmarkGonja1317(b *testing.B) {
	files, root := benchFiles(b)
	sets := benchVarSets(1317)
	env, err := NewEnv(files, root, benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	gonjaSum := sha256.New()
	tpl, err := env.parseLocal(benchTemplate)
	if err != nil {
		b.Fatal(err)
	}
	var reused bytes.Buffer
	for _, v := range sets {
		out, err := tpl.render(v, DefaultLimits.Output)
		if err != nil {
			b.Fatal(err)
		}
		if err := tpl.renderTo(&reused, v, DefaultLimits.Output); err != nil || reused.String() != out {
			b.Fatalf("render and renderTo differ: %v", err)
		}
		gonjaSum.Write([]byte(out))
	}
	want := hex.EncodeToString(gonjaSum.Sum(nil))

	figs := map[string]benchFigure{}
	gonja := func(name string, each, plain bool) {
		b.Run(name, func(b *testing.B) {
			gc := workerGCPercent
			if plain {
				gc = 100
			}
			defer debug.SetGCPercent(debug.SetGCPercent(gc))
			runtime.GC()
			b.ReportAllocs()
			var out bytes.Buffer
			cpu := cpuTime()
			for b.Loop() {
				tpl, err := env.parseLocal(benchTemplate)
				if err != nil {
					b.Fatal(err)
				}
				for _, v := range sets {
					if each {
						if tpl, err = env.parseLocal(benchTemplate); err != nil {
							b.Fatal(err)
						}
					}
					if plain {
						_, err = tpl.render(v, DefaultLimits.Output)
					} else {
						err = tpl.renderTo(&out, v, DefaultLimits.Output)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			figs[name] = benchFigure{ns: float64(b.Elapsed().Nanoseconds()) / float64(b.N), cpu: float64(cpuTime()-cpu) / float64(b.N)}
			b.ReportMetric(figs[name].cpu, "cpu-ns/op")
		})
	}
	gonja("parsed-once", false, false)
	gonja("parsed-once-plain", false, true)
	gonja("parsed-each", true, false)
	b.Run("worker-parsed-once", func(b *testing.B) {
		r := NewRenderer(DefaultLimits)
		defer r.Close()
		sum := sha256.New()
		for _, v := range sets {
			out, err := r.Render(context.Background(), env, benchTemplate, v)
			if err != nil {
				b.Fatal(err)
			}
			sum.Write([]byte(out))
		}
		if got := hex.EncodeToString(sum.Sum(nil)); got != want {
			b.Fatalf("the worker renders other bytes (sha256 %s, in process %s)", got, want)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			for _, v := range sets {
				if _, err := r.Render(context.Background(), env, benchTemplate, v); err != nil {
					b.Fatal(err)
				}
			}
		}
		figs["worker-parsed-once"] = benchFigure{ns: float64(b.Elapsed().Nanoseconds()) / float64(b.N)}
	})

	py, pyVersion, ok := FindPython(context.Background())
	if !ok {
		b.Log("no python3 with jinja2: the Jinja2 sub-benchmarks do not run")
		return
	}
	sources := map[string]string{}
	for p, data := range files {
		sources[strings.TrimPrefix(p, root+"/")] = string(data)
	}
	for _, parse := range []string{"once", "each"} {
		name := "jinja2-parsed-" + parse
		b.Run(name, func(b *testing.B) {
			ans, process := runJinja2Bench(b, py, sources, sets, parse, b.N)
			if ans.SHA256 != want {
				b.Fatalf("Jinja2 and gonja render different bytes (sha256 %s and %s)", ans.SHA256, want)
			}
			figs[name] = benchFigure{ns: float64(ans.NS) / float64(b.N), cpu: float64(ans.CPUNS) / float64(b.N)}
			b.ReportMetric(figs[name].ns, "ns/op")
			b.ReportMetric(figs[name].cpu, "cpu-ns/op")
			b.ReportMetric(float64(process.Milliseconds())/float64(b.N), "python-process-ms/op")
		})
	}
	// The summary is a sub-benchmark of its own: a parent benchmark's log
	// shows only under -v. Its metrics are the ratios, gonja's time over
	// Jinja2's (below 1: gonja is faster).
	logged := false
	b.Run("ratios", func(b *testing.B) {
		quiet := logged // the testing package calls this more than once
		logged = true
		logf := func(format string, args ...any) {
			if !quiet {
				b.Logf(format, args...)
			}
		}
		logf("%d renders of %s; Jinja2 %s of %s", len(sets), benchTemplate, pyVersion, py)
		for _, c := range [][3]string{
			{"parsed-once", "jinja2-parsed-once", "once"},
			{"parsed-once-plain", "jinja2-parsed-once", "once-plain"},
			{"parsed-each", "jinja2-parsed-each", "each"},
			{"worker-parsed-once", "jinja2-parsed-once", "worker-once"},
		} {
			g, j := figs[c[0]], figs[c[1]]
			if g.ns == 0 || j.ns == 0 {
				continue // not run: -bench chose fewer sub-benchmarks
			}
			b.ReportMetric(g.ns/j.ns, c[2]+"-gonja/jinja2")
			if g.cpu > 0 {
				b.ReportMetric(g.cpu/j.cpu, c[2]+"-cpu-gonja/jinja2")
			}
			line := fmt.Sprintf("%-20s gonja %8.2f ms", c[0], g.ns/1e6)
			if g.cpu > 0 {
				line += fmt.Sprintf(" (cpu %8.2f ms)", g.cpu/1e6)
			} else {
				line += strings.Repeat(" ", 17)
			}
			line += fmt.Sprintf("   %-18s %8.2f ms (cpu %8.2f ms)   ratio %.2f", c[1], j.ns/1e6, j.cpu/1e6, g.ns/j.ns)
			if g.cpu > 0 {
				line += fmt.Sprintf(" (cpu %.2f)", g.cpu/j.cpu)
			}
			logf("%s", line)
		}
		b.ReportMetric(0, "ns/op")
	})
}

// benchFigure is one sub-benchmark's time per op (all 1,317 renders).
type benchFigure struct{ ns, cpu float64 }

type jinja2BenchAnswer struct {
	NS      int64  `json:"ns"`
	CPUNS   int64  `json:"cpu_ns"`
	SHA256  string `json:"sha256"`
	Renders int    `json:"renders"`
}

// cpuTime is the user and system CPU time of this process. Under load (other
// processes on the same cores) it varies less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func runJinja2Bench(b *testing.B, py string, files map[string]string, sets []map[string]any, parse string, n int) (jinja2BenchAnswer, time.Duration) {
	b.Helper()
	script, err := os.ReadFile("testdata/bench/jinja2_bench.py")
	if err != nil {
		b.Fatal(err)
	}
	var req bytes.Buffer
	filesJSON, _ := json.Marshal(files)
	fmt.Fprintf(&req, `{"files":%s,"name":%q,"parse":%q,"iterations":%d,"opts":{"strict_undefined":%t,"keep_trailing_newline":%t},"var_sets":`,
		filesJSON, benchTemplate, parse, n, benchOpts.StrictUndefined, benchOpts.KeepTrailingNewline)
	list := make([]any, len(sets))
	for i, s := range sets {
		list[i] = s
	}
	if err := writeValue(&req, list, 0); err != nil {
		b.Fatal(err)
	}
	req.WriteString("}")
	dir := b.TempDir()
	out := sandbox.Run(context.Background(), sandbox.Spec{
		Args:  []string{py, "-I", "-c", string(script)},
		Dir:   dir,
		Stdin: &req,
	})
	if out.Err != nil || out.ExitCode != 0 {
		b.Fatalf("python: %v, exit %d: %s", out.Err, out.ExitCode, out.Stderr)
	}
	var ans jinja2BenchAnswer
	if err := json.Unmarshal(out.Stdout, &ans); err != nil || ans.Renders != len(sets) {
		b.Fatalf("python answer %q: %v", out.Stdout, err)
	}
	return ans, out.Duration
}
