package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/sandbox"
)

// shellCheck runs the real bash -n on every distinct rendered shell script
// at head. It returns the findings and the number of scripts checked.
func shellCheck(ctx context.Context, in *checks.Input, jobs []*job) ([]checks.Finding, int) {
	type script struct {
		job  *job
		sets []string
	}
	var order []string
	scripts := map[string]*script{}
	for _, j := range jobs {
		if !j.shell || j.head.err != nil || !j.tmpl.AtHead() {
			continue
		}
		key := j.tmpl.Path + "\x00" + j.head.output
		if s, ok := scripts[key]; ok {
			s.sets = append(s.sets, j.set.Name)
			continue
		}
		scripts[key] = &script{job: j, sets: []string{j.set.Name}}
		order = append(order, key)
	}
	dir := filepath.Join(in.WorkDir, "render-bash-n")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return []checks.Finding{{Level: checks.LevelFailure, Message: fmt.Sprintf("bash -n could not run: %v.", err)}}, 0
	}
	var out []checks.Finding
	for _, key := range order {
		s := scripts[key]
		if f, bad := bashN(ctx, dir, s.job, s.sets); bad {
			out = append(out, f)
		}
	}
	return out, len(order)
}

var bashErrRe = regexp.MustCompile(`^[^:]*: line (\d+): (.*)$`)

// bashN checks one script. It returns a failure finding when bash rejects it.
func bashN(ctx context.Context, dir string, j *job, sets []string) (checks.Finding, bool) {
	sum := sha256.Sum256([]byte(j.tmpl.Path + j.head.output))
	file := filepath.Join(dir, hex.EncodeToString(sum[:8])+".sh")
	tmplPath := path.Join(j.group.Root, j.tmpl.Rel)
	if err := os.WriteFile(file, []byte(j.head.output), 0o644); err != nil {
		return checks.Finding{Path: tmplPath, Level: checks.LevelFailure, Message: fmt.Sprintf("bash -n could not run: %v.", err)}, true
	}
	o := sandbox.Run(ctx, sandbox.Spec{Args: []string{"bash", "-n", file}, Dir: dir, Timeout: 30 * time.Second})
	if o.Err != nil && o.ExitCode == -1 {
		return checks.Finding{Path: tmplPath, Level: checks.LevelFailure, Message: fmt.Sprintf("bash -n could not run: %v.", o.Err)}, true
	}
	if o.ExitCode == 0 {
		return checks.Finding{}, false
	}
	stderr := strings.ReplaceAll(string(o.Stderr), file, "rendered "+path.Base(j.tmpl.Rel))
	line, msg := 0, strings.TrimSpace(stderr)
	for _, l := range strings.Split(stderr, "\n") {
		if m := bashErrRe.FindStringSubmatch(l); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
			break
		}
	}
	// bash points at the end of the file for an unclosed block; the shell
	// parser of mvdan.cc/sh names the line of the opening keyword.
	if strings.Contains(msg, "end of file") || strings.Contains(msg, "unexpected EOF") {
		if l := openerLine(j.head.output); l > 0 {
			line = l
		}
	}
	f := checks.Finding{
		Path:    tmplPath,
		Level:   checks.LevelFailure,
		Title:   "bash -n rejects the rendered script",
		Details: excerpt(j.head.output, line, 3),
	}
	src, _ := j.head.env.Source(j.tmpl.Rel)
	where := fmt.Sprintf("line %d of the rendered script", line)
	if tl := templateLine(src, j.head.output, line); tl > 0 {
		f.Line = tl
	}
	f.Message = fmt.Sprintf("bash -n fails at %s for %s: %s", where, strings.Join(sets, "; "), msg)
	return f, true
}

var posRe = regexp.MustCompile(`^(\d+):(\d+): `)

// openerLine parses the script with mvdan.cc/sh and returns the line the
// parser blames, or 0.
func openerLine(script string) int {
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err == nil {
		return 0
	}
	var pe syntax.ParseError
	if e, ok := err.(syntax.ParseError); ok {
		pe = e
		return int(pe.Pos.Line())
	}
	if m := posRe.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// excerpt returns the lines around line (1-based) with their numbers.
func excerpt(text string, line, context int) string {
	lines := strings.Split(text, "\n")
	if line <= 0 {
		return ""
	}
	var sb strings.Builder
	for i := max(1, line-context); i <= min(len(lines), line+context); i++ {
		mark := "  "
		if i == line {
			mark = "> "
		}
		fmt.Fprintf(&sb, "%s%4d | %s\n", mark, i, lines[i-1])
	}
	return sb.String()
}
