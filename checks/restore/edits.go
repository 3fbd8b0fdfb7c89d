package restore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/internal/fixture"
)

// Op is the kind of one agent-like edit.
type Op string

// The edit operations. Paths are slash paths relative to the repository.
const (
	OpWrite   Op = "write"   // write PATH TEXT: replace or create a file
	OpAppend  Op = "append"  // append PATH TEXT: add text at the end of a file
	OpDelete  Op = "delete"  // delete PATH: remove a file or folder
	OpChmod   Op = "chmod"   // chmod PATH +x|-x: set or clear the execute bits
	OpSymlink Op = "symlink" // symlink PATH TARGET: replace PATH by a symlink
	OpMove    Op = "move"    // move PATH NEWPATH: rename on disk (git does not know)
	OpAdd     Op = "add"     // add PATH: git add -A -- PATH ("." for everything)
	OpCommit  Op = "commit"  // commit TEXT: git commit of the index
	OpOrphan  Op = "orphan"  // orphan BRANCH: git checkout --orphan BRANCH
)

// argCount is the number of arguments after the path of each operation.
var argCount = map[Op]int{
	OpWrite: 1, OpAppend: 1, OpDelete: 0, OpChmod: 1, OpSymlink: 1,
	OpMove: 1, OpAdd: 0, OpCommit: 0, OpOrphan: 0,
}

// Edit is one agent-like change of a fixture repository. For commit, Path
// is the message; for orphan, the branch name.
type Edit struct {
	Op   Op
	Path string
	Arg  string
}

// String gives the one-line form that ParseEdit reads back, for example
// `write "tests/test_core.py" "assert False\n"`.
func (e Edit) String() string {
	s := string(e.Op) + " " + strconv.Quote(e.Path)
	if argCount[e.Op] > 0 {
		s += " " + strconv.Quote(e.Arg)
	}
	return s
}

// FormatEdits writes one edit a line.
func FormatEdits(edits []Edit) string {
	var b strings.Builder
	for _, e := range edits {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// ParseEdit reads the one-line form of an edit. Arguments are Go string
// literals, or bare words without spaces or quotes.
func ParseEdit(line string) (Edit, error) {
	fields, err := splitQuoted(line)
	if err != nil {
		return Edit{}, fmt.Errorf("edit %q: %w", line, err)
	}
	if len(fields) == 0 {
		return Edit{}, fmt.Errorf("edit %q: empty line", line)
	}
	op := Op(fields[0])
	n, ok := argCount[op]
	if !ok {
		return Edit{}, fmt.Errorf("edit %q: unknown operation %q", line, fields[0])
	}
	if len(fields) != 2+n {
		return Edit{}, fmt.Errorf("edit %q: %s takes %d arguments, got %d", line, op, 1+n, len(fields)-1)
	}
	e := Edit{Op: op, Path: fields[1]}
	if n > 0 {
		e.Arg = fields[2]
	}
	if op == OpChmod && e.Arg != "+x" && e.Arg != "-x" {
		return Edit{}, fmt.Errorf("edit %q: chmod takes +x or -x", line)
	}
	return e, nil
}

// ParseEdits reads one edit a line; blank lines and lines starting with #
// are skipped. Errors name the line number.
func ParseEdits(text string) ([]Edit, error) {
	var out []Edit
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := ParseEdit(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		out = append(out, e)
	}
	return out, nil
}

func splitQuoted(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad quoted string at %q", s)
			}
			v, err := strconv.Unquote(q)
			if err != nil {
				return nil, fmt.Errorf("bad quoted string %s: %w", q, err)
			}
			out = append(out, v)
			s = s[len(q):]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		w := s[:end]
		if strings.ContainsAny(w, `"`) {
			return nil, fmt.Errorf("bare word %q holds a quote", w)
		}
		out = append(out, w)
		s = s[end:]
	}
}

// Apply makes the edits in the fixture repository dir, in order. The git
// operations (add, commit, orphan) are made in Go by the fixture package,
// as git would make them; no process starts. dir must be a repository the
// harness built, before any step ran in it.
func Apply(ctx context.Context, dir string, edits []Edit) error {
	for i, e := range edits {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := apply(dir, e); err != nil {
			return fmt.Errorf("edit %d (%s): %w", i+1, e, err)
		}
	}
	return nil
}

func apply(dir string, e Edit) error {
	full := ""
	if e.Op != OpCommit && e.Op != OpOrphan {
		if err := checkRel(e.Path); err != nil {
			return err
		}
		full = filepath.Join(dir, filepath.FromSlash(e.Path))
	}
	switch e.Op {
	case OpWrite:
		mode := fixture.ModeFile
		if info, err := os.Lstat(full); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o100 != 0 {
			mode = fixture.ModeExec
		}
		return fixture.WriteEntry(dir, e.Path, fixture.Entry{Mode: mode, Data: []byte(e.Arg)})
	case OpAppend:
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(full, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.WriteString(e.Arg); err != nil {
			_ = f.Close()
			return err
		}
		return f.Close()
	case OpDelete:
		if _, err := os.Lstat(full); err != nil {
			return err
		}
		return os.RemoveAll(full)
	case OpChmod:
		info, err := os.Lstat(full)
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", e.Path)
		}
		perm := info.Mode().Perm() &^ 0o111
		if e.Arg == "+x" {
			perm |= 0o111
		}
		return os.Chmod(full, perm)
	case OpSymlink:
		return fixture.WriteEntry(dir, e.Path, fixture.Symlink(e.Arg))
	case OpMove:
		if err := checkRel(e.Arg); err != nil {
			return err
		}
		to := filepath.Join(dir, filepath.FromSlash(e.Arg))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.Rename(full, to)
	case OpAdd:
		return fixture.Stage(dir, e.Path)
	case OpCommit:
		return fixture.Commit(dir, e.Path)
	case OpOrphan:
		return fixture.Orphan(dir, e.Path)
	}
	return fmt.Errorf("unknown operation %q", e.Op)
}

// checkRel refuses paths that leave the repository or touch .git.
func checkRel(p string) error {
	if p == "." {
		return nil
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if p == "" || filepath.IsAbs(p) || clean != p || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("path %q is not a clean path inside the repository", p)
	}
	for _, seg := range strings.Split(clean, "/") {
		if seg == ".git" {
			return fmt.Errorf("path %q is inside .git", p)
		}
	}
	return nil
}
