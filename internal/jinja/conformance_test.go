package jinja

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
)

var update = flag.Bool("update", false, "rewrite testdata/conformance.golden.json from Python Jinja2")

const (
	corpusRoot = "testdata/conformance"
	goldenPath = "testdata/conformance.golden.json"
)

// sidecar is the NAME.json file next to each NAME.j2 of the corpus.
type sidecar struct {
	About   string           `json:"about"`
	Options corpusOptions    `json:"options"`
	Vars    map[string]any   `json:"vars"`
	VarSets []map[string]any `json:"var_sets"`
	// Differs marks a known difference between gonja and Jinja2, with the
	// reason. The test fails when a marked case matches.
	Differs string `json:"differs"`
}

type corpusOptions struct {
	StrictUndefined     bool `json:"strict_undefined"`
	KeepTrailingNewline bool `json:"keep_trailing_newline"`
	TrimBlocks          bool `json:"trim_blocks"`
	LstripBlocks        bool `json:"lstrip_blocks"`
	Autoescape          bool `json:"autoescape"`
}

type corpusCase struct {
	id       string // NAME or NAME#i for the i-th variable set
	template string // NAME.j2
	vars     map[string]any
	opts     config.Jinja
	differs  string
}

// outcome is one render: output, or an error with the file (relative to
// the root) and line.
type outcome struct {
	Output string `json:"output,omitempty"`
	Err    string `json:"error,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
}

func (o outcome) String() string {
	if o.Err != "" {
		return fmt.Sprintf("error at %s:%d: %s", o.File, o.Line, o.Err)
	}
	return fmt.Sprintf("output %q", o.Output)
}

// same reports whether gonja's outcome g matches Jinja2's j: the same bytes,
// or an error in both at the same file and line.
func same(g, j outcome) (bool, string) {
	switch {
	case g.Err == "" && j.Err == "":
		return Compare(g.Output, j.Output)
	case g.Err != "" && j.Err != "":
		if g.File == j.File && g.Line == j.Line {
			return true, ""
		}
		return false, fmt.Sprintf("both fail, gonja at %s:%d (%s), Jinja2 at %s:%d (%s)", g.File, g.Line, g.Err, j.File, j.Line, j.Err)
	default:
		return false, fmt.Sprintf("gonja: %s\nJinja2: %s", g, j)
	}
}

func loadCorpus(t *testing.T) ([]corpusCase, map[string][]byte) {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(corpusRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(p)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	for p, data := range files {
		name, ok := strings.CutSuffix(strings.TrimPrefix(p, corpusRoot+"/"), ".json")
		if !ok || strings.Contains(name, "/") {
			continue
		}
		if _, ok := files[corpusRoot+"/"+name+".j2"]; !ok {
			t.Fatalf("%s has no template %s.j2", p, name)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		var sc sidecar
		if err := dec.Decode(&sc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if sc.About == "" {
			t.Errorf("%s: no about", p)
		}
		sets := sc.VarSets
		if len(sets) == 0 {
			sets = []map[string]any{sc.Vars}
		} else if sc.Vars != nil {
			t.Fatalf("%s: both vars and var_sets", p)
		}
		o := sc.Options
		opts := config.Jinja{StrictUndefined: o.StrictUndefined, KeepTrailingNewline: o.KeepTrailingNewline,
			TrimBlocks: o.TrimBlocks, LstripBlocks: o.LstripBlocks, Autoescape: o.Autoescape}
		for i, vars := range sets {
			id := name
			if len(sets) > 1 {
				id = fmt.Sprintf("%s#%d", name, i)
			}
			cases = append(cases, corpusCase{id: id, template: name + ".j2", vars: varsOf(vars), opts: opts, differs: sc.Differs})
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].id < cases[j].id })
	return cases, files
}

func varsOf(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return jsonNumbers(m).(map[string]any)
}

// jsonNumbers turns json.Number into int (no dot or exponent) or float64,
// as the variables of a configuration file arrive.
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil && !strings.ContainsAny(x.String(), ".eE") {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = jsonNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = jsonNumbers(e)
		}
		return x
	}
	return v
}

func gonjaOutcomes(t *testing.T, cases []corpusCase, files map[string][]byte) map[string]outcome {
	t.Helper()
	envs := map[config.Jinja]*Env{}
	out := map[string]outcome{}
	for _, c := range cases {
		e := envs[c.opts]
		if e == nil {
			var err error
			if e, err = NewEnv(files, corpusRoot, c.opts); err != nil {
				t.Fatal(err)
			}
			envs[c.opts] = e
		}
		s, err := e.Render(c.template, c.vars)
		if err != nil {
			je, ok := err.(*Error)
			if !ok {
				t.Fatalf("%s: error %T is not a *jinja.Error: %v", c.id, err, err)
			}
			out[c.id] = outcome{Err: je.Msg, File: strings.TrimPrefix(je.File, corpusRoot+"/"), Line: je.Line}
			continue
		}
		out[c.id] = outcome{Output: s}
	}
	return out
}

func pythonOutcomes(t *testing.T, py string, cases []corpusCase, files map[string][]byte) map[string]outcome {
	t.Helper()
	sources := map[string]string{}
	for p, data := range files {
		sources[strings.TrimPrefix(p, corpusRoot+"/")] = string(data)
	}
	jobs := make([]Job, len(cases))
	for i, c := range cases {
		jobs[i] = Job{Files: sources, Opts: c.opts, Name: c.template, Vars: c.vars}
	}
	res, err := RenderPython(context.Background(), py, jobs)
	if err != nil {
		t.Fatalf("%s: %v", py, err)
	}
	out := map[string]outcome{}
	for i, c := range cases {
		r := res[i]
		out[c.id] = outcome{Output: r.Output, Err: r.Err, File: r.File, Line: r.Line}
	}
	return out
}

// TestConformance renders every template of the corpus with gonja and
// compares the bytes with Python Jinja2's. The Jinja2 outcomes are also
// kept in a golden file, so the test still compares on a machine without
// Jinja2; with Jinja2 the golden file must agree with it.
func TestConformance(t *testing.T) {
	cases, files := loadCorpus(t)
	if n := countTemplates(files); n < 40 {
		t.Fatalf("the corpus has %d templates; it needs at least 40", n)
	}
	gonja := gonjaOutcomes(t, cases, files)

	golden := map[string]outcome{}
	if data, err := os.ReadFile(goldenPath); err == nil {
		if err := json.Unmarshal(data, &golden); err != nil {
			t.Fatalf("%s: %v", goldenPath, err)
		}
	} else if !*update {
		t.Logf("no golden file: %v", err)
	}

	if _, _, ok := FindPython(context.Background()); ok {
		for i, py := range pythons(t) {
			live := pythonOutcomes(t, py, cases, files)
			if *update && i == 0 {
				data, err := json.MarshalIndent(live, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(goldenPath, append(data, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				golden = live
				continue
			}
			for _, c := range cases {
				if live[c.id] != golden[c.id] {
					t.Errorf("%s: Jinja2 of %s gives %s; %s says %s (run go test ./internal/jinja -run TestConformance -update)", c.id, py, live[c.id], goldenPath, golden[c.id])
				}
			}
		}
	} else {
		t.Log("no python3 with jinja2: gonja is compared with the golden Jinja2 outcomes only")
	}

	matched, marked := 0, 0
	for _, c := range cases {
		want, ok := golden[c.id]
		if !ok {
			t.Errorf("%s: not in %s (run go test ./internal/jinja -run TestConformance -update)", c.id, goldenPath)
			continue
		}
		ok, detail := same(gonja[c.id], want)
		switch {
		case c.differs == "" && !ok:
			t.Errorf("%s: gonja and Jinja2 differ; fix it or mark it with \"differs\" in %s.json:\n%s", c.id, c.template[:len(c.template)-3], detail)
		case c.differs != "" && ok:
			t.Errorf("%s: marked as a difference (%s), but gonja and Jinja2 now agree; remove the mark and its line under 'Differences that remain' in README.md", c.id, c.differs)
		case ok:
			matched++
		default:
			marked++
		}
	}
	for id := range golden {
		found := false
		for _, c := range cases {
			found = found || c.id == id
		}
		if !found {
			t.Errorf("%s is in %s but not in the corpus (run go test ./internal/jinja -run TestConformance -update)", id, goldenPath)
		}
	}
	t.Logf("%d cases: %d identical, %d known differences", len(cases), matched, marked)
}

func countTemplates(files map[string][]byte) int {
	n := 0
	for p := range files {
		if strings.HasSuffix(p, ".j2") {
			n++
		}
	}
	return n
}
