package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/examples"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/jinja"
)

// dumpEntry is what the test reads of an index entry.
type dumpEntry struct {
	File, Side, Template, Commit, Root, Name, Set, Engine, Error string
	Jinja                                                        map[string]bool
	Vars                                                         map[string]any
}

// TestDumpRendersOfTheExample: run --dump-renders on the bundled example's
// good head writes one file per template, side and variable set, and an
// index; each file holds the bytes of record, as jinja.RenderOfRecord (the
// render path of record) makes them from the repository at the entry's
// commit with the entry's options and variables.
func TestDumpRendersOfTheExample(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	built, err := examples.Build(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "renders")
	code, _, stderr := invoke(t, "run", "--repo", built.Dir, "--base", "main", "--head", examples.HeadGood, "--only", "render", "--format", "json", "--dump-renders", dir)
	if code != exitPass {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	const harbor, prompts = "src/datasmith/harbor_adapter/template/", "src/datasmith/github/templates/"
	var want []string
	for _, side := range []string{"base", "head"} {
		want = append(want, side+"/"+harbor+"environment/Dockerfile/default", side+"/"+prompts+"final.md.j2/default")
		for _, set := range []string{"rounds=5,run_pytest=true", "rounds=5,run_pytest=false", "rounds=null,run_pytest=true", "rounds=null,run_pytest=false"} {
			want = append(want, side+"/"+harbor+"tests/test.sh/"+set)
		}
	}
	want = append(want, "index.json")
	slices.Sort(files)
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Fatalf("files:\n%s\nwant:\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}

	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var idx struct {
		Engine  string
		Renders []dumpEntry
	}
	if err := dec.Decode(&idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Renders) != len(want)-1 {
		t.Fatalf("%d index entries, want %d", len(idx.Renders), len(want)-1)
	}
	// The oracle: the same templates, read from git at each entry's
	// commit, rendered in one Python Jinja2 process where python3 has
	// jinja2, and with jinja.RenderOfRecord (gonja) otherwise.
	repo := gitx.Repo{Dir: built.Dir}
	py, version, hasPy := jinja.FindPython(ctx)
	var jobs []jinja.Job
	var envs []*jinja.Env
	for _, e := range idx.Renders {
		if e.Error != "" {
			t.Fatalf("%s: render error %s", e.File, e.Error)
		}
		tree, err := repo.ReadTree(ctx, e.Commit, e.Root)
		if err != nil {
			t.Fatal(err)
		}
		env, err := jinja.NewEnv(tree, e.Root, config.Jinja{
			StrictUndefined: e.Jinja["strict_undefined"], KeepTrailingNewline: e.Jinja["keep_trailing_newline"],
			TrimBlocks: e.Jinja["trim_blocks"], LstripBlocks: e.Jinja["lstrip_blocks"], Autoescape: e.Jinja["autoescape"],
		})
		if err != nil {
			t.Fatal(err)
		}
		vars, _ := goValue(e.Vars).(map[string]any)
		envs = append(envs, env)
		jobs = append(jobs, jinja.Job{Files: env.Sources(), Opts: env.Options(), Name: e.Name, Vars: vars})
	}
	var results []jinja.PyResult
	if hasPy {
		if results, err = jinja.RenderPython(ctx, py, jobs); err != nil {
			t.Fatal(err)
		}
		if idx.Engine != "Python Jinja2 "+version {
			t.Errorf("index engine %q, want Python Jinja2 %s", idx.Engine, version)
		}
	}
	for i, e := range idx.Renders {
		got, err := os.ReadFile(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		var out string
		if hasPy {
			out, err = results[i].Output, nil
			if results[i].Err != "" {
				err = errors.New(results[i].Err)
			}
		} else {
			out, _, err = jinja.RenderOfRecord(ctx, envs[i], e.Name, jobs[i].Vars, jinja.LimitsOf(config.Limits{}), nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		if string(got) != out {
			t.Errorf("%s: the dump differs from the render of record (%d and %d bytes)", e.File, len(got), len(out))
		}
		if (e.Engine == "Jinja2") != hasPy {
			t.Errorf("%s: engine %q", e.File, e.Engine)
		}
	}
	// A second dump into the same folder would mix two runs.
	code, _, stderr = invoke(t, "run", "--repo", built.Dir, "--base", "main", "--head", examples.HeadGood, "--only", "render", "--dump-renders", dir)
	if code != exitUsage || !strings.Contains(stderr, "is not empty") {
		t.Errorf("a dump into a full folder: exit %d, %s", code, stderr)
	}
}

// goValue turns decoded JSON back into the Go types the render check
// passes: json.Number without a dot is an int, with one a float64.
func goValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil && !strings.ContainsAny(v.String(), ".eE") {
			return int(i)
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = goValue(v[i])
		}
		return v
	case map[string]any:
		for k := range v {
			v[k] = goValue(v[k])
		}
		return v
	}
	return v
}
