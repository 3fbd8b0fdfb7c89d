// The consistency scenarios: every path the probe shows protected under
// a plain edit must be protected under every other edit kind too, and a
// sample of the paths it leaves must be left under each kind. They come
// from the probe, and replace the catalogue scenarios that edit one fixed
// path each way.

package restore

import (
	"fmt"
	"path"
	"slices"

	"github.com/formula-code/template-verify/internal/fixture"
)

// maxLeftSample bounds the unprotected paths the consistency scenarios
// edit besides the protected ones, and maxProtectedSample the protected
// paths: each scenario runs the step over all of them at once, and a step
// that puts paths back one by one spends its time per path.
const (
	maxLeftSample      = 4
	maxProtectedSample = 8
)

// addedNameOf is the new file the probe and the consistency scenarios add
// next to p: the same folder, the same extension, "_added" after the
// stem. The probe learns what the step does with it, so a scenario that
// adds or renames to it has a known expectation.
func addedNameOf(p string) string {
	dir, file := path.Split(p)
	ext := path.Ext(file)
	if ext == file { // ".gitignore": no stem
		ext = ""
	}
	return dir + file[:len(file)-len(ext)] + "_added" + ext
}

// addedNames are the new files the probe adds: in each folder, one next
// to the first regular file (in path order) that has room for it (no file
// or folder of base has the name, and no file of base is a folder of
// it). One a folder keeps the probe near the size of the base tree.
func addedNames(base fixture.Tree) map[string]string {
	used := map[string]bool{}
	for p := range base {
		used[p] = true
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			used[d+"/"] = true
		}
	}
	out := map[string]string{}
	done := map[string]bool{}
	for _, p := range base.Paths() {
		if base[p].IsSymlink() || done[path.Dir(p)] {
			continue
		}
		if n := addedNameOf(p); validPath(n) && !collides(n, used) {
			out[p] = n
			done[path.Dir(p)] = true
		}
	}
	return out
}

// consistencyKinds are the edit kinds, each one scenario over every
// chosen path at once. added maps a path to its learned added name.
var consistencyKinds = []struct {
	name  string
	edits func(ps []string, base fixture.Tree, added map[string]string) []Edit
}{
	{"consistency-untracked-next-to-it", func(ps []string, _ fixture.Tree, added map[string]string) []Edit {
		var out []Edit
		for _, p := range ps {
			out = append(out, appendTo(p, "# changed by the agent\n"))
			if n, ok := added[p]; ok {
				out = append(out, write(n, "added by the agent next to "+p+"\n"))
			}
		}
		return out
	}},
	{"consistency-committed-edit", func(ps []string, _ fixture.Tree, _ map[string]string) []Edit {
		var out []Edit
		for _, p := range ps {
			out = append(out, appendTo(p, "# committed by the agent\n"))
		}
		return append(out, add("."), commit("agent: edit"))
	}},
	{"consistency-several-commits", func(ps []string, _ fixture.Tree, _ map[string]string) []Edit {
		var out []Edit
		for i := range 2 {
			for _, p := range ps {
				out = append(out, appendTo(p, fmt.Sprintf("# commit %d of the agent\n", i+1)))
			}
			out = append(out, add("."), commit(fmt.Sprintf("agent: edit %d", i+1)))
		}
		return out
	}},
	{"consistency-rename", func(ps []string, _ fixture.Tree, added map[string]string) []Edit {
		var out []Edit
		for _, p := range ps {
			if n, ok := added[p]; ok {
				out = append(out, move(p, n))
			}
		}
		return append(out, add("."))
	}},
	{"consistency-chmod", func(ps []string, base fixture.Tree, _ map[string]string) []Edit {
		var out []Edit
		for _, p := range ps {
			bits := "+x"
			if base[p].Mode == fixture.ModeExec {
				bits = "-x"
			}
			out = append(out, chmod(p, bits))
		}
		return out
	}},
	{"consistency-symlink", func(ps []string, _ fixture.Tree, _ map[string]string) []Edit {
		var out []Edit
		for _, p := range ps {
			out = append(out, symlink(p, "elsewhere.txt"))
		}
		return out
	}},
	{"consistency-delete", func(ps []string, _ fixture.Tree, _ map[string]string) []Edit {
		var out []Edit
		for _, p := range ps {
			out = append(out, del(p))
		}
		return out
	}},
	{"consistency-delete-folder", func(ps []string, _ fixture.Tree, _ map[string]string) []Edit {
		var dirs []string
		for _, p := range ps {
			if d := path.Dir(p); d != "." && !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
		slices.Sort(dirs)
		var out []Edit
		var done []string
		for _, d := range dirs {
			// A folder under one already deleted is gone with it.
			if slices.ContainsFunc(done, func(x string) bool { return d == x || len(d) > len(x) && d[:len(x)+1] == x+"/" }) {
				continue
			}
			done = append(done, d)
			out = append(out, del(d))
		}
		return out
	}},
}

// consistencyPaths are the paths the consistency scenarios edit: the
// paths of base the probe shows protected, at most maxProtectedSample of
// them taken one folder at a time (every folder first, then a second path
// of each, ...), and an evenly spread sample of at most maxLeftSample
// paths it leaves. Only regular files of base that the probe learned
// count; .gitignore stays, as it decides what git lists.
func consistencyPaths(base fixture.Tree, learned map[string]bool) (protected, left []string) {
	for _, p := range base.Paths() {
		v, ok := learned[p]
		if !ok || base[p].IsSymlink() || p == ".gitignore" {
			continue
		}
		if v {
			protected = append(protected, p)
		} else {
			left = append(left, p)
		}
	}
	protected = byFolderSample(protected, maxProtectedSample)
	if len(left) > maxLeftSample {
		sample := make([]string, 0, maxLeftSample)
		for i := range maxLeftSample {
			sample = append(sample, left[i*len(left)/maxLeftSample])
		}
		left = sample
	}
	return protected, left
}

// byFolderSample is at most n of the sorted paths ps, taken in rounds
// of one path a folder, sorted again.
func byFolderSample(ps []string, n int) []string {
	if len(ps) <= n {
		return ps
	}
	var folders []string
	byDir := map[string][]string{}
	for _, p := range ps {
		d := path.Dir(p)
		if _, ok := byDir[d]; !ok {
			folders = append(folders, d)
		}
		byDir[d] = append(byDir[d], p)
	}
	var out []string
	for round := 0; len(out) < n; round++ {
		for _, d := range folders {
			if round < len(byDir[d]) && len(out) < n {
				out = append(out, byDir[d][round])
			}
		}
	}
	slices.Sort(out)
	return out
}

// consistencyScenarios are one scenario per edit kind over the paths of
// consistencyPaths. An added name is used only where the probe learned
// what the step does with it. None when the probe learned nothing.
func consistencyScenarios(base fixture.Tree, learned map[string]bool) []Scenario {
	if learned == nil {
		return nil
	}
	protected, left := consistencyPaths(base, learned)
	if len(protected) == 0 {
		return nil
	}
	ps := append(protected, left...)
	slices.Sort(ps)
	added := map[string]string{}
	for p, n := range addedNames(base) {
		if _, ok := learned[n]; ok {
			added[p] = n
		}
	}
	out := make([]Scenario, 0, len(consistencyKinds))
	for _, k := range consistencyKinds {
		out = append(out, Scenario{Name: k.name, Edits: k.edits(ps, base, added)})
	}
	return out
}

// probedCatalogue is the catalogue when the consistency scenarios run:
// the scenarios that edit one fixed path in a way a consistency scenario
// edits every protected path are left out.
func probedCatalogue() []Scenario {
	drop := []string{"edit-test-file", "delete-test-file", "edit-root-conftest", "delete-benchmark", "mode-change",
		"file-to-symlink", "staged-edit", "unstaged-edit", "staged-delete", "committed-edit", "rename-test-file", "delete-tests-folder"}
	return slices.DeleteFunc(Catalogue(), func(s Scenario) bool { return slices.Contains(drop, s.Name) })
}
