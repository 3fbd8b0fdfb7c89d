package restore

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/rendertemplate"
)

func TestLayoutAndMapping(t *testing.T) {
	paths := config.RestorePaths{Repo: "/workspace/repo", BaselineSHA: "/opt/fc_baseline_sha", Logs: "/logs/artifacts/"}
	cases := []struct {
		name, report, wantReport string
	}{
		{"report under the logs", "/logs/artifacts/protected_restore.json", "/s/logs/protected_restore.json"},
		{"report in a sub folder of the logs", "/logs/artifacts/restore/r.json", "/s/logs/restore/r.json"},
		{"report elsewhere", "/var/log/r.json", "/s/logs/r.json"},
		{"no report", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := NewLayout("/s", paths, c.report)
			if l.Repo != "/s/repo" || l.Baseline != "/s/baseline/fc_baseline_sha" || l.Logs != "/s/logs" || l.Home != "/s/home" || l.Report != c.wantReport {
				t.Fatalf("layout %+v", l)
			}
			s := &Step{Paths: paths, Report: c.report}
			in := "cd /workspace/repo && cat /opt/fc_baseline_sha > /logs/artifacts/x; echo > " + c.report + "; ls /workspace/repository\n"
			got := s.MapPaths(in, l)
			want := "cd /s/repo && cat /s/baseline/fc_baseline_sha > /s/logs/x; echo > " + c.wantReport + "; ls /s/repository\n"
			if got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
	// A longer path that starts with a shorter one maps whole.
	nested := config.RestorePaths{Repo: "/w", Logs: "/w/logs"}
	l := NewLayout("/s", nested, "")
	if got := (&Step{Paths: nested}).MapPaths("/w/logs/a /w/b", l); got != "/s/logs/a /s/repo/b" {
		t.Errorf("nested paths: %q", got)
	}
	// Without a baseline path the file keeps the default name.
	if l := NewLayout("/s", config.RestorePaths{}, ""); !strings.HasSuffix(l.Baseline, "/fc_baseline_sha") {
		t.Errorf("baseline %q", l.Baseline)
	}
}

// TestRenderVars: the step renders with the first variable set of the
// first matching entry, and the restore block's vars on top.
func TestRenderVars(t *testing.T) {
	g := &config.Group{
		Vars:   map[string]any{"owner": "o", "rounds": 1},
		Matrix: map[string][]any{"run_pytest": {true, false}},
		Templates: []config.Template{
			{Path: "tests/*.sh", Vars: map[string]any{"rounds": 5}},
			{Path: "**"},
		},
	}
	got := rendertemplate.FirstVars(g, "tests/test.sh", map[string]any{"owner": "override"})
	if got["owner"] != "override" || got["rounds"] != 5 || got["run_pytest"] != true {
		t.Errorf("vars %v", got)
	}
	got = rendertemplate.FirstVars(g, "other/file.txt", nil)
	if got["owner"] != "o" || got["rounds"] != 1 || got["run_pytest"] != true {
		t.Errorf("vars %v", got)
	}
}
