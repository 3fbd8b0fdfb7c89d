package examples

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/internal/gitx"
)

// exampleCommit is one commit of the example, computed in memory.
type exampleCommit struct {
	branch  string
	parent  int // index of the parent commit; -1: none
	message []byte
	files   tree
}

// exampleCommits computes the base commit and the commits of the named
// heads in memory, as addHeads makes them with git: each head starts from
// the base or from the head its .base file names, and gets its .from
// heads' patches and then its own. errPatchNotPlain: a patch needs git.
func exampleCommits(names []string) ([]exampleCommit, error) {
	base, err := embeddedTree(root + "/base")
	if err != nil {
		return nil, err
	}
	msg, err := commitMessage(root + "/base.message")
	if err != nil {
		return nil, err
	}
	commits := []exampleCommit{{branch: BaseBranch, parent: -1, message: msg, files: base}}
	index := map[string]int{}
	for _, name := range names {
		parent := 0
		if from := BaseBranchOf(name); from != BaseBranch {
			i, ok := index[from]
			if !ok {
				return nil, fmt.Errorf("example head %s: its .base names %s, which is not built before it", name, from)
			}
			parent = i
		}
		files := commits[parent].files.clone()
		if err := applyHeadInMemory(files, name); err != nil {
			return nil, err
		}
		if treesEqual(files, commits[parent].files) {
			return nil, fmt.Errorf("example head %s: its patch changes nothing", name)
		}
		msg, err := commitMessage(root + "/heads/" + name + ".message")
		if err != nil {
			return nil, fmt.Errorf("example head %s: %w", name, err)
		}
		index[name] = len(commits)
		commits = append(commits, exampleCommit{branch: name, parent: parent, message: msg, files: files})
	}
	return commits, nil
}

// applyHeadInMemory is applyHead on a tree in memory.
func applyHeadInMemory(t tree, name string) error {
	return headPatches(name, 0, func(file string, patch []byte) error {
		return applyPatch(t, patch, file)
	})
}

func treesEqual(a, b tree) bool { return maps.EqualFunc(a, b, bytes.Equal) }

// embeddedTree reads the embedded folder src into a tree.
func embeddedTree(src string) (tree, error) {
	t := tree{}
	err := fs.WalkDir(files, src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		t[strings.TrimPrefix(p, src+"/")] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	return t, nil
}

// commitMessage reads an embedded commit message and cleans it up as
// `git commit -F` does (gitx.CleanMessage).
func commitMessage(name string) ([]byte, error) {
	msg, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("example: commit message: %w", err)
	}
	clean, err := gitx.CleanMessage(string(msg))
	if err != nil {
		return nil, fmt.Errorf("example: %s: %w", name, err)
	}
	return []byte(clean), nil
}

// importCommits writes commits into a new repository in dir with one
// `git fast-import`, each as a branch, and checks out the base branch:
// three git processes, where committing each head with git takes five or
// more. The commits are the ones git commit makes (the same author,
// committer, date, message and trees), so their shas are the same.
func importCommits(ctx context.Context, dir string, commits []exampleCommit) ([]string, error) {
	repo := gitx.Repo{Dir: dir}
	if _, err := repo.Run(ctx, "init", "-q", "-b", BaseBranch); err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	who := gitx.Signature
	var stream bytes.Buffer
	for i, c := range commits {
		fmt.Fprintf(&stream, "commit refs/heads/%s\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s", c.branch, i+1, who, who, len(c.message), c.message)
		if c.parent >= 0 {
			fmt.Fprintf(&stream, "from :%d\n", c.parent+1)
		}
		stream.WriteString("deleteall\n")
		for _, p := range slices.Sorted(maps.Keys(c.files)) {
			if strings.ContainsAny(p, "\n\"") {
				return nil, fmt.Errorf("example: the path %q cannot be imported", p)
			}
			fmt.Fprintf(&stream, "M %o inline %s\ndata %d\n", gitMode(p), p, len(c.files[p]))
			stream.Write(c.files[p])
			stream.WriteByte('\n')
		}
		stream.WriteByte('\n')
	}
	marks := filepath.Join(dir, ".git", "example-marks")
	defer os.Remove(marks)
	if _, err := repo.RunInput(ctx, &stream, "fast-import", "--quiet", "--export-marks="+marks); err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	shas, err := readMarks(marks, len(commits))
	if err != nil {
		return nil, err
	}
	if _, err := repo.Run(ctx, "reset", "-q", "--hard", BaseBranch); err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	return shas, nil
}

// gitMode is fileMode as a git tree mode.
func gitMode(rel string) int {
	if fileMode(rel)&0o111 != 0 {
		return 0o100755
	}
	return 0o100644
}

// readMarks reads fast-import's marks file: ":N sha" lines, for marks 1
// to n.
func readMarks(name string, n int) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	defer f.Close()
	shas := make([]string, n)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var mark int
		var sha string
		if _, err := fmt.Sscanf(sc.Text(), ":%d %s", &mark, &sha); err != nil || mark < 1 || mark > n {
			return nil, fmt.Errorf("example: %s: a line %q", name, sc.Text())
		}
		shas[mark-1] = sha
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("example: %w", err)
	}
	if i := slices.Index(shas, ""); i >= 0 {
		return nil, fmt.Errorf("example: fast-import gave no commit for mark %d", i+1)
	}
	return shas, nil
}
