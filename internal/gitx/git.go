// Package gitx runs the git CLI with an isolated environment: no system or
// global configuration, no hooks, no prompts, and a fixed author and date
// for commits, so that results do not depend on the machine.
package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/formula-code/template-verify/internal/nice"
	"github.com/formula-code/template-verify/internal/suggest"
)

// FixedDate is the author and committer date of every commit made through
// this package.
const FixedDate = "2026-01-01T00:00:00Z"

// The author and committer of every commit made through this package.
const (
	IdentityName  = "template-verify"
	IdentityEmail = "template-verify@example.invalid"
)

// Signature is the author and committer line of a commit made through
// this package, as git writes it in the commit object: identity, then
// FixedDate in seconds and zone.
var Signature = func() string {
	t, err := time.Parse(time.RFC3339, FixedDate)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("%s <%s> %d +0000", IdentityName, IdentityEmail, t.Unix())
}()

// CleanMessage is a commit message as `git commit -m` and `-F` keep it
// (the whitespace clean-up, also `git stripspace`): trailing spaces cut
// from every line, blank lines at the start and end dropped, runs of
// blank lines made one, and a final newline. A message with nothing else
// is an error, as in git.
func CleanMessage(msg string) (string, error) {
	var out []string
	blank := false
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimRight(line, " \t\r\n") // git's isspace: no \f or \v
		if line == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		return "", errors.New("empty commit message")
	}
	return strings.Join(out, "\n") + "\n", nil
}

// Env returns the isolated environment for git commands. It keeps PATH and
// nothing else from the process environment.
func Env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.TempDir(),
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=" + IdentityName,
		"GIT_AUTHOR_EMAIL=" + IdentityEmail,
		"GIT_COMMITTER_NAME=" + IdentityName,
		"GIT_COMMITTER_EMAIL=" + IdentityEmail,
		"GIT_AUTHOR_DATE=" + FixedDate,
		"GIT_COMMITTER_DATE=" + FixedDate,
	}
}

// Repo is a git repository on disk.
type Repo struct {
	Dir string
}

// Error is a failed git command with its stderr.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs git with args in the repository and returns its stdout.
func (r Repo) Run(ctx context.Context, args ...string) ([]byte, error) {
	return r.RunInput(ctx, nil, args...)
}

// RunInput is Run with stdin.
func (r Repo) RunInput(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	// safe.directory: in a Docker action the workspace belongs to the
	// runner's user while the container runs as root; git would refuse it.
	// core.fsmonitor=false: a fsmonitor hook is a command that reading
	// the index would start; no repository this tool reads needs one.
	// maintenance.auto=false, gc.auto=0: a commit would start "git
	// maintenance run --auto" in repositories the tool throws away (a
	// process per command, for nothing).
	return run(ctx, r.Dir, stdin, args, withSafeConfig(args))
}

// withSafeConfig is args after the settings of every git command of Repo.
func withSafeConfig(args []string) []string {
	return append([]string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.quotePath=false", "-c", "protocol.file.allow=always", "-c", "safe.directory=*", "-c", "maintenance.auto=false", "-c", "gc.auto=0"}, args...)
}

// run runs git with the arguments full in dir; args (the caller's part of
// full) names the command in errors.
func run(ctx context.Context, dir string, stdin io.Reader, args, full []string) ([]byte, error) {
	return runEnv(ctx, dir, stdin, nil, args, full)
}

// runEnv is run with env added to Env.
func runEnv(ctx context.Context, dir string, stdin io.Reader, env, args, full []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	cmd.Env = append(Env(), env...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := nice.Run(cmd); err != nil {
		return out.Bytes(), &Error{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.Bytes(), nil
}

// IsRepo reports whether Dir is inside a git work tree or is a bare repo.
func (r Repo) IsRepo(ctx context.Context) bool {
	_, err := r.Run(ctx, "rev-parse", "--git-dir")
	return err == nil
}

// RevisionError is a revision that names no commit of the repository.
// Its message says what to do instead of showing git's command line.
type RevisionError struct {
	Rev string
	// Near is the branch or tag nearest to Rev by spelling, or "".
	Near string
	Err  error // git's error, or nil
}

func (e *RevisionError) Error() string {
	msg := fmt.Sprintf("unknown revision %q: no branch, tag or commit of that name in the repository", e.Rev)
	if e.Near != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", e.Near)
	}
	return msg + "; check the spelling, name a remote's branch as origin/NAME, or fetch the commit first (git fetch origin NAME)"
}

func (e *RevisionError) Unwrap() error { return e.Err }

// Resolve returns the full commit sha that rev names; a rev that names
// none gives a *RevisionError.
func (r Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", &RevisionError{Rev: rev}
	}
	out, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("resolve %q: %w", rev, ctx.Err())
		}
		return "", &RevisionError{Rev: rev, Near: r.nearestRef(ctx, rev), Err: err}
	}
	return strings.TrimSpace(string(out)), nil
}

// nearestRef is the short name of the branch, remote branch or tag
// nearest to rev by spelling (suggest.Nearest), or "".
func (r Repo) nearestRef(ctx context.Context, rev string) string {
	out, err := r.Run(ctx, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes", "refs/tags")
	if err != nil {
		return ""
	}
	return suggest.Nearest(rev, strings.Fields(string(out)))
}

// MergeBase returns the best common ancestor of a and b, as a pull request
// diff uses it.
func (r Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	out, err := r.Run(ctx, "merge-base", a, b)
	if err != nil {
		return "", fmt.Errorf("no merge base of %s and %s: %w", a, b, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// IsAncestor reports whether a is an ancestor of (or equal to) b.
func (r Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.Run(ctx, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return false, nil
	}
	return false, err
}

// FileChange is one entry of a diff between two commits.
type FileChange struct {
	Status  byte   // 'A', 'M', 'D', 'R', 'T' (type change), 'C'
	Path    string // path at head (for D: the deleted path)
	OldPath string // path at base for R and C; else the same as Path
}

// Diff lists the files that differ between two commits, with rename
// detection. Paths are raw (names with spaces or non-ASCII letters kept).
func (r Repo) Diff(ctx context.Context, from, to string) ([]FileChange, error) {
	out, err := r.Run(ctx, "diff", "--no-ext-diff", "-M", "-z", "--name-status", from, to, "--")
	if err != nil {
		return nil, err
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var changes []FileChange
	for i := 0; i < len(fields); {
		st := fields[i]
		if st == "" {
			i++
			continue
		}
		c := FileChange{Status: st[0]}
		switch c.Status {
		case 'R', 'C':
			if i+2 >= len(fields) {
				return nil, fmt.Errorf("git diff: short rename record at %d", i)
			}
			c.OldPath, c.Path = fields[i+1], fields[i+2]
			i += 3
		default:
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("git diff: short record at %d", i)
			}
			c.Path = fields[i+1]
			c.OldPath = c.Path
			i += 2
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// Entry is one blob of a tree.
type Entry struct {
	Path string
	Mode string // "100644", "100755", "120000"
	SHA  string
}

// ListTree lists the blobs under dir (recursively) at rev; dir "" is the
// whole tree. A missing dir gives an empty list.
func (r Repo) ListTree(ctx context.Context, rev, dir string) ([]Entry, error) {
	args := []string{"ls-tree", "-r", "-z", "--full-tree", rev}
	if dir != "" && dir != "." {
		args = append(args, "--", dir)
	}
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			return nil, fmt.Errorf("git ls-tree: bad record %q", rec)
		}
		f := strings.Fields(meta)
		if len(f) != 3 || f[1] != "blob" {
			continue // submodules (commit) are not files
		}
		entries = append(entries, Entry{Path: p, Mode: f[0], SHA: f[2]})
	}
	return entries, nil
}

// ReadFile returns the content of path at rev; ok is false when it does not
// exist there.
func (r Repo) ReadFile(ctx context.Context, rev, path string) (data []byte, ok bool, err error) {
	name := rev + ":" + path
	if !strings.ContainsAny(name, "\n\x00") {
		// One process, whether the file is there or not.
		out, err := r.RunInput(ctx, strings.NewReader(name+"\n"), "cat-file", "--batch")
		if err != nil {
			return nil, false, err
		}
		obj, ok, err := readObject(io.Discard, bufio.NewReader(bytes.NewReader(out)), name)
		if err != nil || !ok {
			return nil, false, err
		}
		if obj.Type != "blob" {
			return nil, false, fmt.Errorf("%s is a %s, not a file", name, obj.Type)
		}
		return obj.Data, true, nil
	}
	out, err := r.Run(ctx, "cat-file", "blob", name)
	if err != nil {
		if _, lerr := r.Run(ctx, "cat-file", "-e", rev+":"+path); lerr != nil {
			return nil, false, nil
		}
		return nil, false, err
	}
	return out, true, nil
}

// ReadBlobs reads many blobs in one git process and returns them by sha.
func (r Repo) ReadBlobs(ctx context.Context, shas []string) (map[string][]byte, error) {
	if len(shas) == 0 {
		return map[string][]byte{}, nil
	}
	in := strings.Join(shas, "\n") + "\n"
	out, err := r.RunInput(ctx, strings.NewReader(in), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	blobs := make(map[string][]byte, len(shas))
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		header, err := rd.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("git cat-file --batch: %w", err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file --batch: unexpected header %q", strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file --batch: bad size in %q", strings.TrimSpace(header))
		}
		buf := make([]byte, size+1) // content plus the trailing newline
		if _, err := io.ReadFull(rd, buf); err != nil {
			return nil, fmt.Errorf("git cat-file --batch: short read for %s: %w", f[0], err)
		}
		blobs[f[0]] = buf[:size]
	}
	return blobs, nil
}

// ReadTree reads every file under dir at rev, keyed by repository path.
func (r Repo) ReadTree(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	entries, err := r.ListTree(ctx, rev, dir)
	if err != nil {
		return nil, err
	}
	shas := make([]string, 0, len(entries))
	for _, e := range entries {
		shas = append(shas, e.SHA)
	}
	blobs, err := r.ReadBlobs(ctx, shas)
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(entries))
	for _, e := range entries {
		files[e.Path] = blobs[e.SHA]
	}
	return files, nil
}

// Export writes the tree of rev into dir (which must exist), without a .git
// folder, using git archive.
func (r Repo) Export(ctx context.Context, rev, dir string) error {
	ar := exec.CommandContext(ctx, "git", "archive", "--format=tar", rev)
	ar.Dir = r.Dir
	ar.Env = Env()
	tar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	tar.Env = Env() // explicit, as every child's
	pipe, err := ar.StdoutPipe()
	if err != nil {
		return err
	}
	tar.Stdin = pipe
	// One buffer each: the two processes' stderr are copied concurrently.
	var arErr, tarErr bytes.Buffer
	ar.Stderr, tar.Stderr = &arErr, &tarErr
	if err := nice.Start(tar); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	if err := nice.Run(ar); err != nil {
		_ = tar.Wait()
		return fmt.Errorf("git archive %s: %s: %w", rev, strings.TrimSpace(arErr.String()), err)
	}
	if err := tar.Wait(); err != nil {
		return fmt.Errorf("tar -x: %s: %w", strings.TrimSpace(tarErr.String()), err)
	}
	return nil
}

// Checkout writes the tree of rev into dir (which must exist), without a
// .git folder, as a checkout of rev would: every file of the commit, with
// its mode and symlinks. Unlike Export (git archive), it does not apply
// the export-ignore and export-subst attributes, so a .gitattributes in
// the tree cannot leave files out of it or change their content. The
// repository's own index is not touched: a temporary index is used.
func (r Repo) Checkout(ctx context.Context, rev, dir string) error {
	tmp, err := os.MkdirTemp("", "template-verify-index-")
	if err != nil {
		return fmt.Errorf("checkout %s: %w", rev, err)
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for _, args := range [][]string{
		{"read-tree", rev},
		{"checkout-index", "--all", "--force", "--prefix=" + prefix},
	} {
		full := append([]string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.symlinks=true", "-c", "safe.directory=*"}, args...)
		if _, err := runEnv(ctx, r.Dir, nil, env, args, full); err != nil {
			return fmt.Errorf("checkout %s: %w", rev, err)
		}
	}
	return nil
}
