package archive

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/sandbox"
)

var bashLine = regexp.MustCompile(`^[^:]*: line (\d+): (.*)$`)

// bashN runs bash -n, sandboxed, on every changed shell member at head in
// one sandbox, and again at base on those that fail, to tell a failure that
// happens before this change.
func bashN(ctx context.Context, archive, work string, files []ShellFile, strict bool) ([]checks.Finding, int, error) {
	if len(files) == 0 {
		return nil, 0, nil
	}
	headBad, err := runBashN(ctx, filepath.Join(work, "head"))
	if err != nil {
		return nil, 0, err
	}
	var baseBad map[string]string
	var again []string
	for _, f := range files {
		if _, bad := headBad[f.File]; bad && f.HasBase {
			again = append(again, f.File)
		}
	}
	if len(again) > 0 {
		if baseBad, err = runBashN(ctx, filepath.Join(work, "base")); err != nil {
			return nil, 0, err
		}
	}
	var out []checks.Finding
	for _, f := range files {
		msg, bad := headBad[f.File]
		if !bad {
			continue
		}
		if len(out) == maxBashFindings {
			out = append(out, checks.Finding{Path: archive, Level: checks.LevelFailure, Title: "bash -n rejects more changed shell members", Message: "More changed shell members fail bash -n; the first ones are listed."})
			continue
		}
		if len(out) > maxBashFindings {
			continue
		}
		line, text := 0, msg
		if m := bashLine.FindStringSubmatch(firstLine(msg)); m != nil {
			line, _ = strconv.Atoi(m[1])
			text = m[2]
		}
		fd := checks.Finding{Path: archive, Level: checks.LevelFailure, Title: "bash -n rejects a changed shell member",
			Message: fmt.Sprintf("bash -n rejects %s at line %d: %s", f.Member, line, text)}
		if bm, ok := baseBad[f.File]; ok && bashMsg(bm) == bashMsg(msg) {
			fd.Title += ": fails before this change"
			fd.Message += " The base's member fails the same way, so this PR does not cause it."
			if !strict {
				fd.Level = checks.LevelWarning
			}
		}
		out = append(out, fd)
	}
	return out, len(files), nil
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func bashMsg(s string) string {
	if m := bashLine.FindStringSubmatch(firstLine(s)); m != nil {
		return m[2]
	}
	return s
}

// runBashN runs bash -n on every *.sh file of dir in one sandbox and
// returns bash's message for each file it rejects.
func runBashN(ctx context.Context, dir string) (map[string]string, error) {
	// Batches of 50 files, as many batches at once as there are CPUs; each
	// record is one short write, so records do not mix.
	script := `printf '%s\0' *.sh | xargs -0 -r -n 50 -P "$(nproc)" bash -c 'for f; do [ -e "$f" ] || continue; out=$(bash -n "$f" 2>&1) || printf "\001%s\n%s\n" "$f" "$out"; done' _`
	o := sandbox.Run(ctx, sandbox.Spec{Args: []string{"bash", "-c", script}, Dir: dir, Timeout: 5 * time.Minute, Sandbox: true, MaxOutput: 4 << 20})
	if o.Err != nil || o.ExitCode != 0 {
		return nil, fmt.Errorf("bash -n did not finish (exit %d): %v %s", o.ExitCode, o.Err, sandbox.Tail(o.Stderr, 400))
	}
	bad := map[string]string{}
	for _, rec := range strings.Split(string(o.Stdout), "\x01")[1:] {
		name, msg, _ := strings.Cut(rec, "\n")
		bad[name] = strings.TrimSpace(msg)
	}
	return bad, nil
}
