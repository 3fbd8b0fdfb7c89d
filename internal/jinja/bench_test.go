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
// and rounds. One op is all 1,317 renders.
//
//	go test ./internal/jinja -run '^$' -bench 'Gonja1317' -benchtime 20x
//
// The fair comparisons:
//   - parsed-once: each engine parses the template once and renders it
//     1,317 times. This is how datasmith renders a dataset (one Environment,
//     which caches the template) and how the render check renders.
//   - parsed-each: each engine parses the template again for every render:
//     gonja with Env.Parse, Jinja2 with an Environment whose cache_size is 0,
//     so get_template reads, parses and compiles every time.
//
// The Jinja2 figures come from one python process per sub-benchmark run,
// timed inside Python around the render loop only (no interpreter start,
// no import), and are reported as ns/op so that the units match. The
// python-process-ms/op metric adds the start, the import and the JSON
// transfer, for reference. cpu-ns/op is the CPU time of the process (Go:
// getrusage; Python: time.process_time_ns) per op: on a machine shared with
// other work it is steadier than the wall time, so compare both. Before timing, the benchmark checks that both
// engines write the same bytes for every variable set.
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
	for _, v := range sets {
		out, err := tpl.render(v, DefaultLimits.Output)
		if err != nil {
			b.Fatal(err)
		}
		gonjaSum.Write([]byte(out))
	}
	want := hex.EncodeToString(gonjaSum.Sum(nil))

	b.Run("parsed-once", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			tpl, err := env.parseLocal(benchTemplate)
			if err != nil {
				b.Fatal(err)
			}
			for _, v := range sets {
				if _, err := tpl.render(v, DefaultLimits.Output); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("parsed-each", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			for _, v := range sets {
				tpl, err := env.parseLocal(benchTemplate)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tpl.render(v, DefaultLimits.Output); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})

	py, _, ok := FindPython(context.Background())
	if !ok {
		b.Log("no python3 with jinja2: the Jinja2 sub-benchmarks do not run")
		return
	}
	sources := map[string]string{}
	for p, data := range files {
		sources[strings.TrimPrefix(p, root+"/")] = string(data)
	}
	for _, parse := range []string{"once", "each"} {
		b.Run("jinja2-parsed-"+parse, func(b *testing.B) {
			ans, process := runJinja2Bench(b, py, sources, sets, parse, b.N)
			if ans.SHA256 != want {
				b.Fatalf("Jinja2 and gonja render different bytes (sha256 %s and %s)", ans.SHA256, want)
			}
			b.ReportMetric(float64(ans.NS)/float64(b.N), "ns/op")
			b.ReportMetric(float64(ans.CPUNS)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(process.Milliseconds())/float64(b.N), "python-process-ms/op")
		})
	}
}

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
