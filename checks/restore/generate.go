package restore

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/formula-code/template-verify/internal/fixture"
)

// Generated paths: for each pattern of the policies, paths that match it
// and near misses that match no pattern. The fixture holds two matching
// paths of each pattern at the base, and the scenarios edit, add, delete,
// rename, chmod and commit them. Names get spaces, quotes, non-ASCII
// letters and glob characters wherever the pattern allows them.

// patternPaths are the generated paths of one pattern.
type patternPaths struct {
	Pattern string
	// Plain and Fancy are in the base tree: Plain has only plain
	// characters, Fancy the most unusual ones the pattern allows (it may
	// be Plain when the pattern allows nothing else).
	Plain, Fancy string
	// New and New2 match the pattern and are not in the base tree.
	New, New2 string
	// Miss and Miss2 match no pattern of either policy: near misses.
	Miss, Miss2 string
	// Existing is true when Plain is a file of the project itself (no
	// other path matches the pattern).
	Existing bool
}

// maxCandidates bounds the strings kept per regular expression node.
const maxCandidates = 24

// generatePaths makes the paths of each pattern in patterns (in order,
// each once). taken is the project's tree: a generated path never
// collides with a file or folder in it. protects tells whether any
// pattern of either policy matches a path. Patterns that no valid path
// matches are listed in skipped.
func generatePaths(patterns []string, taken fixture.Tree, protects func(string) bool) (out []patternPaths, skipped []string) {
	used := map[string]bool{}
	mark := func(p string) {
		used[p] = true
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			used[d+"/"] = true
		}
	}
	for p := range taken {
		mark(p)
	}
	done := map[string]bool{}
	for _, pat := range patterns {
		if done[pat] {
			continue
		}
		done[pat] = true
		re, err := regexp.Compile(pat)
		if err != nil {
			skipped = append(skipped, pat)
			continue
		}
		var ok, existing []string
		for _, c := range pathCandidates(pat) {
			if !re.MatchString(c) || !validPath(c) {
				continue
			}
			if !collides(c, used) {
				ok = append(ok, c)
			} else if _, isFile := taken[c]; isFile && !slices.Contains(existing, c) {
				existing = append(existing, c)
			}
		}
		if len(ok) == 0 && len(existing) > 0 {
			// Only files the project has match (pyproject.toml): the
			// scenarios edit, chmod and turn into a symlink that file.
			pp := patternPaths{Pattern: pat, Plain: existing[0], Fancy: existing[0], Existing: true}
			for _, m := range nearMisses(pp.Plain) {
				if !protects(m) && validPath(m) && !collides(m, used) && pp.Miss == "" {
					pp.Miss = m
					mark(m)
				}
			}
			out = append(out, pp)
			continue
		}
		if len(ok) == 0 {
			skipped = append(skipped, pat)
			continue
		}
		slices.SortStableFunc(ok, func(a, b string) int { return fanciness(a) - fanciness(b) })
		pp := patternPaths{Pattern: pat, Plain: ok[0], Fancy: ok[len(ok)-1]}
		mark(pp.Plain)
		if !collides(pp.Fancy, used) {
			mark(pp.Fancy)
		} else {
			pp.Fancy = pp.Plain
		}
		for i := len(ok) - 1; i >= 0; i-- { // the fanciest new paths first
			c := ok[i]
			if collides(c, used) {
				continue
			}
			if pp.New == "" {
				pp.New = c
				mark(c)
			} else if pp.New2 == "" {
				pp.New2 = c
				mark(c)
			}
		}
		for _, m := range nearMisses(pp.Plain) {
			if protects(m) || !validPath(m) || collides(m, used) {
				continue
			}
			if pp.Miss == "" {
				pp.Miss = m
				mark(m)
			} else if pp.Miss2 == "" {
				pp.Miss2 = m
				mark(m)
			}
		}
		out = append(out, pp)
	}
	return out, skipped
}

// collides reports whether p is taken, is a folder of a taken path, or
// lies under a taken file. used holds files and, ending in "/", folders.
func collides(p string, used map[string]bool) bool {
	if used[p] || used[p+"/"] {
		return true
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if used[d] {
			return true
		}
	}
	return false
}

// validPath reports whether p can be a file in a git work tree that the
// fixture's .gitignore does not ignore.
func validPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || !utf8.ValidString(p) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." || seg == ".git" || seg == "__pycache__" || strings.HasSuffix(seg, " ") {
			return false
		}
	}
	if strings.ContainsAny(p, "\x00\n\r\t\\") || strings.HasSuffix(p, ".pyc") || strings.HasPrefix(p, "build/") {
		return false
	}
	return true
}

// fanciness scores how unusual a path's characters are.
func fanciness(p string) int {
	n := 0
	for _, r := range p {
		switch {
		case r == ' ':
			n += 3
		case r > 127:
			n += 4
		case strings.ContainsRune(`'"[]*?`, r):
			n += 5
		}
	}
	return n
}

// nearMisses are paths close to p that a pattern written for p may miss:
// a longer folder or file name, another extension, a prefix.
func nearMisses(p string) []string {
	dir, file := path.Split(p)
	first, rest, nested := strings.Cut(p, "/")
	var out []string
	if nested {
		out = append(out, first+"x/"+rest, "my"+first+"/"+rest)
	}
	out = append(out, dir+"my"+file, dir+file+"x")
	if ext := path.Ext(file); ext != "" {
		out = append(out, dir+strings.TrimSuffix(file, ext)+".txt")
	}
	return out
}

// Markers for anchors in generated strings.
const (
	beginMark = '\x01'
	endMark   = '\x02'
)

// withGenerated is the project tree plus the base files of the generated
// paths.
func withGenerated(project fixture.Tree, gp []patternPaths) fixture.Tree {
	t := project.Clone()
	for i, pp := range gp {
		if pp.Existing {
			continue
		}
		t[pp.Plain] = fixture.File(fmt.Sprintf("protected sample %d (plain name)\n", i+1))
		if pp.Fancy != pp.Plain {
			t[pp.Fancy] = fixture.File(fmt.Sprintf("protected sample %d (unusual name)\n", i+1))
		}
	}
	return t
}

// policyScenarios are two scenarios per pattern, from its generated
// paths: one that leaves its edits in the work tree (an edit, an added
// file, a near miss, a mode change) and one that commits (a file turned
// into a symlink, an added file, a rename to a near miss).
func policyScenarios(gp []patternPaths) []Scenario {
	var out []Scenario
	for i, pp := range gp {
		n := i + 1
		work := []Edit{write(pp.Plain, fmt.Sprintf("changed by the agent %d\n", n))}
		if pp.New != "" {
			work = append(work, write(pp.New, "added by the agent\n"))
		}
		if pp.Miss != "" {
			work = append(work, write(pp.Miss, "a near miss: kept\n"))
		}
		if pp.Fancy != pp.Plain {
			work = append(work, chmod(pp.Fancy, "+x"))
		}
		out = append(out, Scenario{Name: fmt.Sprintf("pattern-%d-work-tree", n), Edits: work})
		hist := []Edit{symlink(pp.Plain, "elsewhere.txt")}
		if pp.New2 != "" {
			hist = append(hist, write(pp.New2, "committed by the agent\n"))
		}
		hist = append(hist, write("src/pkg/core.py", fixCore), add("."), commit(fmt.Sprintf("agent: pattern %d", n)))
		switch {
		case pp.Fancy != pp.Plain && pp.Miss2 != "":
			hist = append(hist, move(pp.Fancy, pp.Miss2))
		case pp.Fancy != pp.Plain:
			hist = append(hist, del(pp.Fancy))
		}
		out = append(out, Scenario{Name: fmt.Sprintf("pattern-%d-committed", n), Edits: hist})
	}
	return out
}

// generatedNewPaths are the new paths of the generated patterns, for the
// random sets.
func generatedNewPaths(gp []patternPaths) []string {
	var out []string
	for _, pp := range gp {
		for _, p := range []string{pp.New, pp.New2, pp.Miss, pp.Miss2} {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
