package restore

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/formula-code/template-verify/config"
)

func TestReadStepPaths(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   StepPaths
	}{{
		name: "datasmith's shape",
		script: `_fc_patch_base='abc'
if [ -s /opt/fc_baseline_sha ]; then
  _fc_patch_base="$(tr -d '[:space:]' < /opt/fc_baseline_sha)"
fi
err() { printf '{"ran": false}\n' > /logs/artifacts/protected_restore.json; }
r() (
  cd /workspace/repo || { err; return 0; }
  printf '{"ran": true}\n' > /logs/artifacts/protected_restore.json
)
`,
		want: StepPaths{Repo: "/workspace/repo", BaselineSHA: "/opt/fc_baseline_sha", Report: "/logs/artifacts/protected_restore.json"},
	}, {
		name: "own names through variables",
		script: `OUT=/var/grade/out
SRC=/srv/checkout
START_FILE=/srv/meta/start_rev
mkdir -p "$OUT"
start=$(cat "$START_FILE")
git -C "$SRC" diff --name-only "$start" > "$OUT/changed.txt"
echo '{}' > "$OUT/other.json"
printf '{"done": true}' > "$OUT/reset_report.json"
printf '{"done": false}' > "$OUT/reset_report.json"
`,
		want: StepPaths{Repo: "/srv/checkout", BaselineSHA: "/srv/meta/start_rev", Report: "/var/grade/out/reset_report.json"},
	}, {
		name:   "system files are not the baseline",
		script: "cat /etc/os-release /proc/1/status\n[[ -f /data/base_commit ]] && b=$(< /data/base_commit)\n",
		want:   StepPaths{BaselineSHA: "/data/base_commit"},
	}, {
		name:   "not bash",
		script: "def f(:\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ReadStepPaths(tt.script)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A config file's paths win over the step's; the defaults give way.
func TestApplyStepPaths(t *testing.T) {
	read := StepPaths{Repo: "/srv/checkout", BaselineSHA: "/srv/start", Report: "/out/r.json"}
	defaults := config.Default().Restore
	s := &Step{Paths: defaults.Paths, Report: defaults.Report}
	taken := applyStepPaths(s, defaults, read)
	if s.Paths.Repo != "/srv/checkout" || s.Paths.BaselineSHA != "/srv/start" || s.Report != "/out/r.json" || s.Paths.Logs != "/out" || len(taken) != 3 {
		t.Errorf("defaults: %+v %q, taken %q", s.Paths, s.Report, taken)
	}
	explicit := &config.Restore{Explicit: true, Paths: config.RestorePaths{Repo: "/given"}, Report: "/given/r.json"}
	s = &Step{Paths: explicit.Paths, Report: explicit.Report}
	taken = applyStepPaths(s, explicit, read)
	if s.Paths.Repo != "/given" || s.Report != "/given/r.json" || s.Paths.BaselineSHA != "/srv/start" || !slices.Equal(taken, []string{"baseline file /srv/start"}) {
		t.Errorf("explicit: %+v %q, taken %q", s.Paths, s.Report, taken)
	}
}

func TestKeysFromReport(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	discarded := []string{"tests/a.py", "tests/b c.py"}
	tests := []struct {
		name, report string
		want         ReportKeys
	}{
		{"datasmith", `{"ran": true, "base": "` + sha + `", "discarded": ["tests/a.py", "tests/b c.py"], "remaining": []}`,
			ReportKeys{Ran: "ran", Base: "base", Discarded: "discarded", Remaining: "remaining"}},
		{"own keys", `{"restored": true, "start_sha": "` + sha + `", "reset": ["tests/b c.py"], "left": [], "count": 2}`,
			ReportKeys{Ran: "restored", Base: "start_sha", Discarded: "reset", Remaining: "left"}},
		{"two flags, the hint decides", `{"ok": true, "dry": true, "from": "` + sha + `", "paths": ["tests/a.py"], "still_changed": [], "skipped": []}`,
			ReportKeys{Ran: "ok", Base: "from", Discarded: "paths", Remaining: "still_changed"}},
		{"a step that lists nothing", `{"ran": true, "base": "` + sha + `", "discarded": [], "remaining": []}`,
			ReportKeys{Ran: "ran", Base: "base"}},
		{"not JSON", `ran=true`, ReportKeys{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, keysFromReport([]byte(tt.report), sha, discarded)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBaseSHAVars(t *testing.T) {
	tests := []struct {
		source string
		want   []string
	}{
		{"git diff {{ base_commit }} {{ head_sha }}", nil},
		{"git diff {{ start_sha }} {{ head_sha }}", []string{"start_sha"}},
		{"git checkout {{ commit }}", []string{"commit"}},
		{"git diff {{base_commit}} {{ commit }}", nil},
		{"{{ repo }}", nil},
		{"B={{ baseline_rev }} {{ review }}", []string{"baseline_rev"}},
	}
	for _, tt := range tests {
		if got := baseSHAVars(tt.source); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.source, got, tt.want)
		}
	}
}
