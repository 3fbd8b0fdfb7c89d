package pytest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/internal/gitx"
)

var (
	keyShapeCount = flag.Int("key-shapes", 3, "producer and consumer shapes TestKeyShapes makes")
	keyShapeSeed  = flag.Uint64("key-shape-seed", 37, "seed of TestKeyShapes")
)

// keyShape is a copied producer that writes its result under some keys and
// a consumer of another file that reads one of them.
type keyShape struct {
	path     []string // the read key's path, the last one read by the consumer
	sibling  string   // a key beside it that nobody reads
	consumer string   // bracket, get, jq
}

var keyWords = []string{"results", "summary", "total", "passed", "stats", "outcome", "metrics", "count", "tests", "report", "score", "elapsed"}

func randomKeyShape(rng *rand.Rand) keyShape {
	words := slices.Clone(keyWords)
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	depth := 1 + rng.IntN(3)
	return keyShape{path: words[:depth], sibling: words[depth], consumer: []string{"bracket", "get", "jq"}[rng.IntN(3)]}
}

// producer writes the result file with the read key renamed to leaf and
// the sibling to sibling, and the regression list the contract wants.
func (k keyShape) producer(leaf, sibling string) string {
	doc := fmt.Sprintf("{%q: 1, %q: 2}", leaf, sibling)
	for i := len(k.path) - 2; i >= 0; i-- {
		doc = fmt.Sprintf("{%q: %s}", k.path[i], doc)
	}
	return "import json, os\n" +
		"out = os.path.join(os.environ.get(\"T_BENCH_TASK_LOGS_PATH\") or \"/logs/artifacts\", \"test_results.json\")\n" +
		"doc = " + doc + "\n" +
		"doc[\"regression\"] = {\"regressed\": [], \"n_regressed\": 0}\n" +
		"with open(out, \"w\") as f:\n    json.dump(doc, f)\n"
}

// reader is the consumer's file, reading the path ending in leaf; line is
// the line of the read.
func (k keyShape) reader(leaf string) (file, text string, line int) {
	p := append(slices.Clone(k.path[:len(k.path)-1]), leaf)
	switch k.consumer {
	case "jq":
		return "tmpl/grade.sh", "#!/bin/bash\nset -e\nv=$(jq -r '." + strings.Join(p, ".") + "' \"$LOGS/test_results.json\")\necho \"$v\"\n", 3
	case "get":
		var b strings.Builder
		b.WriteString("data")
		for _, x := range p {
			fmt.Fprintf(&b, ".get(%q, {})", x)
		}
		return "tmpl/parser.py", "import json\ndata = json.load(open('test_results.json'))\nvalue = " + b.String() + "\n", 3
	}
	var b strings.Builder
	b.WriteString("data")
	for _, x := range p {
		fmt.Fprintf(&b, "[%q]", x)
	}
	// A name that git's pathspec would read as a glob, with a space.
	return "tmpl/read [results].py", "import json\ndata = json.load(open('test_results.json'))\nvalue = " + b.String() + "\n", 3
}

// TestKeyShapes makes producers that nest the key a consumer reads at a
// random depth, consumers that read it by [], .get() or jq, and seeds a
// renamed key: the check fails at the consumer's line for a renamed key
// the consumer reads, and stays quiet for a renamed key nobody reads and
// for a key renamed in the producer and the consumer alike.
func TestKeyShapes(t *testing.T) {
	t.Parallel()
	needPython(t)
	py := needPython(t)
	rng := rand.New(rand.NewPCG(*keyShapeSeed, 0))
	type row struct{ shape, change, got string }
	var (
		mu   sync.Mutex
		rows []row
	)
	for i := range *keyShapeCount {
		k := randomKeyShape(rng)
		leaf := k.path[len(k.path)-1]
		name := fmt.Sprintf("%d/%s/%s", i, k.consumer, strings.Join(k.path, "."))
		file, text, line := k.reader(leaf)
		base := map[string]string{"tmpl/pytest_runner.py": k.producer(leaf, k.sibling), file: text}
		_, renamedReader, _ := k.reader(leaf + "_v2")
		for _, c := range []struct {
			change string
			head   map[string]string
			fails  bool
		}{
			{"the read key renamed", map[string]string{"tmpl/pytest_runner.py": k.producer(leaf+"_v2", k.sibling)}, true},
			{"an unread key renamed", map[string]string{"tmpl/pytest_runner.py": k.producer(leaf, k.sibling+"_v2")}, false},
			{"renamed in both", map[string]string{"tmpl/pytest_runner.py": k.producer(leaf+"_v2", k.sibling), file: renamedReader}, false},
		} {
			t.Run(name+"/"+c.change, func(t *testing.T) {
				t.Parallel()
				keyFindings := keyShapeFindings(t, py, base, c.head)
				got := "quiet"
				if len(keyFindings) > 0 {
					got = "fails"
				}
				mu.Lock()
				rows = append(rows, row{name, c.change, got})
				mu.Unlock()
				if !c.fails {
					if len(keyFindings) > 0 {
						t.Errorf("key findings, want none: %+v", keyFindings)
					}
					return
				}
				if !slices.ContainsFunc(keyFindings, func(f checks.Finding) bool {
					return f.Level == checks.LevelFailure && f.Path == file && f.Line == line && strings.Contains(f.Message, strings.Join(k.path, "."))
				}) {
					t.Errorf("no failure at %s:%d naming %s: %+v", file, line, strings.Join(k.path, "."), keyFindings)
				}
			})
		}
	}
	t.Cleanup(func() {
		var b strings.Builder
		for _, r := range rows {
			fmt.Fprintf(&b, "%-36s %-22s %s\n", r.shape, r.change, r.got)
		}
		t.Logf("%d shapes (seed %d):\n%s", *keyShapeCount, *keyShapeSeed, b.String())
	})
}

// keyShapeFindings runs the head's runner on the first scenario and the
// key comparison (the base's runner on the same scenario), as the check
// does, and returns the findings of dropped keys. The whole check, with
// every scenario, runs in TestRunnerKeysTheConsumerReads.
func keyShapeFindings(t *testing.T, py *python, base, head map[string]string) []checks.Finding {
	t.Helper()
	ctx := context.Background()
	dir := makeRepo(t, base, head)
	cfg := runnerConfig()
	in := checktest.Input(t, gitx.Repo{Dir: dir}, checktest.Base, checktest.Head, cfg, runnerConfig())
	p := prepareRunner(ctx, in)
	if p.headErr {
		t.Fatal(p.out.Err)
	}
	scratch := t.TempDir()
	file, err := writeRunner(filepath.Join(scratch, "head"), p.rel, p.text)
	if err != nil {
		t.Fatal(err)
	}
	list := scenarios()[:1]
	res, _, err := scenarioRuns.get(ctx, specFor(cfg.Pytest.Runner, py.Path, file, defaultScenarioTimeout), py, filepath.Join(scratch, "scenarios"), list)
	if err != nil {
		t.Fatal(err)
	}
	out := p.out
	out.Results = res
	out.Keys = compareKeys(ctx, in, py, p, res, list, scratch)
	got := applyKeys(checks.Result{}, out)
	return got.Findings
}
