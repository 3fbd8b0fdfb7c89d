package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
	"github.com/formula-code/template-verify/internal/shparse"
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
	// Every script at head in one run of bash -n, then the base's scripts
	// of those that fail in another.
	var heads []bashScript
	for _, key := range order {
		heads = append(heads, bashScript{output: scripts[key].job.head.output, job: scripts[key].job})
	}
	headF := bashN(ctx, dir, heads)
	var bases []bashScript
	baseOf := map[int]int{}
	for i, key := range order {
		if j := scripts[key].job; headF[i].bad && headF[i].f.Title != "" && j.tmpl.AtBase() && j.base.err == nil {
			baseOf[i] = len(bases)
			bases = append(bases, bashScript{output: j.base.output, job: j})
		}
	}
	baseF := bashN(ctx, dir, bases)
	var out []setFinding
	for i, key := range order {
		s := scripts[key]
		f, bad := headF[i].f, headF[i].bad
		if !bad {
			continue
		}
		// The same failure at base (the same message, wherever the line)
		// fails before this change.
		if b, ok := baseOf[i]; ok {
			if bf, baseBad := baseF[b].f, baseF[b].bad; baseBad && bf.Title != "" && bashMsg(bf.Message) == bashMsg(f.Message) {
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

// bashScript is one rendered script to check: the output of job at head
// or base.
type bashScript struct {
	output string
	job    *job
}

// bashVerdict is what bash -n made of one script: a failure finding when
// bash rejects it (bad); the finding has a Title only when bash ran.
type bashVerdict struct {
	f   checks.Finding
	bad bool
}

// bashPerScript runs bash -n on each file named after it and prints, per
// file, its exit code and its stderr, each ended by a NUL byte.
const bashPerScript = `for f; do e=$(bash -n "$f" 2>&1); printf '%d\0%s\0' "$?" "$e"; done`

// bashN checks the scripts in one sandboxed bash, which runs bash -n on
// each (one process each, and no start of the sandbox per script).
func bashN(ctx context.Context, dir string, scripts []bashScript) []bashVerdict {
	res := make([]bashVerdict, len(scripts))
	if len(scripts) == 0 {
		return res
	}
	fail := func(i int, err error) {
		res[i] = bashVerdict{f: checks.Finding{Path: path.Join(scripts[i].job.group.Root, scripts[i].job.tmpl.Rel),
			Level: checks.LevelFailure, Message: fmt.Sprintf("bash -n could not run: %v.", err)}, bad: true}
	}
	files := make([]string, len(scripts))
	for i, sc := range scripts {
		sum := sha256.Sum256([]byte(sc.job.tmpl.Path + sc.output))
		files[i] = filepath.Join(dir, hex.EncodeToString(sum[:8])+".sh")
		if err := os.WriteFile(files[i], []byte(sc.output), 0o644); err != nil {
			for k := range scripts {
				fail(k, err)
			}
			return res
		}
	}
	args := append([]string{"bash", "-c", bashPerScript, "bash"}, files...)
	o := sandbox.Run(ctx, sandbox.Spec{Args: args, Dir: dir, Timeout: time.Duration(len(files)) * 30 * time.Second})
	fields := strings.Split(string(o.Stdout), "\x00")
	if o.Err == nil && o.ExitCode != 0 {
		o.Err = fmt.Errorf("bash exited with code %d: %s", o.ExitCode, sandbox.Tail(o.Stderr, 500))
	}
	if o.Err == nil && len(fields) != 2*len(files)+1 {
		o.Err = fmt.Errorf("bash -n gave %d answers for %d scripts", (len(fields)-1)/2, len(files))
	}
	for i, sc := range scripts {
		if o.Err != nil {
			fail(i, o.Err)
			continue
		}
		code, err := strconv.Atoi(fields[2*i])
		if err != nil {
			fail(i, fmt.Errorf("bash -n exit code %q", fields[2*i]))
			continue
		}
		if code == 0 {
			continue
		}
		res[i] = bashVerdict{f: bashFinding(files[i], fields[2*i+1], sc.output, sc.job), bad: true}
	}
	return res
}

// bashFinding is the failure finding of the script in file, output of j,
// whose bash -n printed stderr.
func bashFinding(file, stderr, output string, j *job) checks.Finding {
	tmplPath := path.Join(j.group.Root, j.tmpl.Rel)
	stderr = strings.ReplaceAll(stderr, file, "rendered "+path.Base(j.tmpl.Rel))
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
	return f
}

var posRe = regexp.MustCompile(`^(\d+):(\d+): `)

// openerLine parses the script with mvdan.cc/sh and returns the line the
// parser blames, or 0.
func openerLine(script string) int {
	_, err := shparse.Parse(script)
	if err == nil {
		return 0
	}
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return int(pe.Pos.Line())
	}
	var le *shparse.LimitError
	if errors.As(err, &le) {
		return le.Line
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
