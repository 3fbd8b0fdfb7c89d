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
	"github.com/formula-code/template-verify/config"
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
	strict := config.PreExistingFails(in.BaseConfig, in.Config)
	var out []setFinding
	for _, key := range order {
		s := scripts[key]
		f, bad := bashN(ctx, dir, s.job.head.output, s.job)
		if !bad {
			continue
		}
		// The same failure at base (the same message, wherever the line)
		// fails before this change.
		if j := s.job; f.Title != "" && j.tmpl.AtBase() && j.base.err == nil {
			if bf, baseBad := bashN(ctx, dir, j.base.output, j); baseBad && bf.Title != "" && bashMsg(bf.Message) == bashMsg(f.Message) {
				f.Title = "bash -n rejects the rendered script: fails before this change"
				f.Message += " The base's script fails the same way, so this PR does not cause it."
				if !strict {
					f.Level = checks.LevelWarning
				}
			}
		}
		for _, set := range s.sets {
			out = append(out, setFinding{f: f, set: set, template: s.job.tmpl.Path})
		}
	}
	return mergeSets(out, setsPerTemplate(jobs)), len(order)
}

// bashMsg is the part of a bash -n finding's message after the line.
func bashMsg(m string) string {
	if _, msg, ok := strings.Cut(m, " of the rendered script: "); ok {
		return msg
	}
	return m
}

var bashErrRe = regexp.MustCompile(`^[^:]*: line (\d+): (.*)$`)

// bashN checks one script, the output of j at head or base. It returns a
// failure finding when bash rejects it; the finding has a Title only when
// bash ran.
func bashN(ctx context.Context, dir, output string, j *job) (checks.Finding, bool) {
	sum := sha256.Sum256([]byte(j.tmpl.Path + output))
	file := filepath.Join(dir, hex.EncodeToString(sum[:8])+".sh")
	tmplPath := path.Join(j.group.Root, j.tmpl.Rel)
	if err := os.WriteFile(file, []byte(output), 0o644); err != nil {
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
		if l := openerLine(output); l > 0 {
			line = l
		}
	}
	f := checks.Finding{
		Path:    tmplPath,
		Level:   checks.LevelFailure,
		Title:   "bash -n rejects the rendered script",
		Details: excerpt(output, line, 3),
	}
	src, _ := j.head.env.Source(j.tmpl.Rel)
	where := fmt.Sprintf("line %d of the rendered script", line)
	if tl := templateLine(src, output, line); tl > 0 {
		f.Line = tl
	}
	f.Message = fmt.Sprintf("bash -n fails at %s: %s", where, msg)
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
