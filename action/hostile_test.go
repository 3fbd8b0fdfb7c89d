package action

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown/markdowntest"
	"github.com/formula-code/template-verify/report"
)

// command is one workflow command as the runner reads it from the log.
type command struct{ name, props, data string }

// runnerCommands reads a job log as GitHub's runner does: a line whose
// text after leading white space starts with "::" is a command
// ("::name props::data"), "##[name props]data" anywhere in a line is the
// old form, and "::stop-commands::TOKEN" ignores every command until
// "::TOKEN::".
func runnerCommands(log string) []command {
	var out []command
	stop := ""
	for _, line := range strings.FieldsFunc(log, func(r rune) bool { return r == '\n' || r == '\r' }) {
		var c command
		t := strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(t, "::"):
			head, data, ok := strings.Cut(t[2:], "::")
			if !ok {
				continue
			}
			c.name, c.props, _ = strings.Cut(head, " ")
			c.data = data
		case strings.Contains(line, "##["):
			rest := line[strings.Index(line, "##[")+3:]
			head, data, ok := strings.Cut(rest, "]")
			if !ok {
				continue
			}
			c.name, c.props, _ = strings.Cut(head, " ")
			c.data = data
		default:
			continue
		}
		if stop != "" {
			if c.name == stop {
				stop = ""
			}
			continue
		}
		if c.name == "stop-commands" {
			stop = c.data
			continue
		}
		out = append(out, c)
	}
	return out
}

func hostileReport() *report.Report {
	var findings []checks.Finding
	for i, h := range markdowntest.Hostile {
		findings = append(findings, checks.Finding{Path: h, Line: i + 1, Level: checks.LevelFailure, Title: h, Message: h, Details: h})
		findings = append(findings, checks.Finding{Path: "t.sh", Line: i + 1, Level: checks.LevelWarning, Title: h, Message: h + "\n" + h})
	}
	res := checks.Result{
		Check: "render", Conclusion: checks.Failure, Title: strings.Join(markdowntest.Hostile, " "), Summary: strings.Join(markdowntest.Hostile, "\n\n"),
		Findings: findings, Notes: markdowntest.Hostile, Details: strings.Join(markdowntest.Hostile, "\n"),
		Tables: []checks.Table{{Title: "t", Header: []string{"a"}, Rows: [][]string{markdowntest.Hostile}}},
	}
	tpl := checks.Result{Check: "::add-mask::c", Conclusion: checks.NotRun, Title: "::stop-commands::y\n::error::z"}
	return &report.Report{Repo: "::add-mask::r", HeadRev: "::set-output name=x::y", Results: []checks.Result{res, tpl}, Overall: checks.Failure, Command: "template-verify run\n::add-mask::cmd"}
}

// TestHostileLog prints a report full of workflow commands to the job log
// and emits its annotations, then reads the log as the runner does: only
// the Action's own commands may appear.
func TestHostileLog(t *testing.T) {
	t.Parallel()
	rep := hostileReport()
	for _, tc := range []struct {
		name  string
		write func(*runner)
		want  map[string]int // command name -> count
	}{
		{"report", func(r *runner) { r.printReport(rep) }, map[string]int{"group": 1, "endgroup": 1}},
		{"annotations", func(r *runner) {
			as, left := chooseAnnotations(rep)
			emit(r.gha, as, left)
		}, map[string]int{"error": 10, "warning": 10, "notice": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := &runner{out: &buf, gha: githubactions.New(githubactions.WithWriter(&buf), githubactions.WithGetenv(func(string) string { return "" }))}
			tc.write(r)
			got := map[string]int{}
			for _, c := range runnerCommands(buf.String()) {
				got[c.name]++
				if c.name == "add-mask" || c.name == "set-output" || strings.Contains(c.data, "::") && strings.Contains(c.data, "\n") {
					t.Errorf("PR text runs a command: %+v", c)
				}
			}
			for name, n := range got {
				if tc.want[name] != n {
					t.Errorf("%d %q commands, want %d", n, name, tc.want[name])
				}
			}
			for name, n := range tc.want {
				if got[name] != n {
					t.Errorf("%d %q commands, want %d", got[name], name, n)
				}
			}
			for _, b := range markdowntest.UnsafeAnywhere(strings.ReplaceAll(buf.String(), "\r", "")) {
				t.Error(b)
			}
		})
	}
}
