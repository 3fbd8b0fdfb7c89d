package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/publish"
)

func TestReadInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		inputs  map[string]string
		comment publish.CommentMode
		failOn  string
		err     string
	}{
		{"defaults", nil, publish.CommentChanges, "[failure timed_out not_run cancelled]", ""},
		{"comment-mode off", map[string]string{"comment-mode": "off"}, publish.CommentOff, "[failure timed_out not_run cancelled]", ""},
		{"comment-mode Always", map[string]string{"comment-mode": "Always"}, publish.CommentAlways, "[failure timed_out not_run cancelled]", ""},
		{"bad comment-mode", map[string]string{"comment-mode": "maybe"}, "", "", `input comment-mode: "maybe" is not one of always, changes, failures, off`},
		{"report inside", map[string]string{"report": "artifact/report.json"}, publish.CommentChanges, "[failure timed_out not_run cancelled]", ""},
		{"report outside", map[string]string{"report": "../report.json"}, "", "", "input report"},
		{"cache-dir inside", map[string]string{"cache-dir": ".template-verify-cache"}, publish.CommentChanges, "[failure timed_out not_run cancelled]", ""},
		{"cache-dir outside", map[string]string{"cache-dir": "../cache"}, "", "", "input cache-dir"},
		{"cache-dir absolute", map[string]string{"cache-dir": "/tmp/cache"}, "", "", "input cache-dir"},
		{"fail-on list", map[string]string{"fail-on": "failure, timed_out\nfailure"}, publish.CommentChanges, "[failure timed_out]", ""},
		{"fail-on none", map[string]string{"fail-on": "none"}, publish.CommentChanges, "[]", ""},
		{"fail-on unknown", map[string]string{"fail-on": "failure,neutral"}, publish.CommentChanges, "", `input fail-on: "neutral" is not one of`},
		{"config default path", map[string]string{"config": ".github/template-verify.yml"}, publish.CommentChanges, "[failure timed_out not_run cancelled]", ""},
		{"config other path", map[string]string{"config": "ci/tv.yml"}, publish.CommentChanges, "[failure timed_out not_run cancelled]", ""},
		{"config outside the repository", map[string]string{"config": "../x.yml"}, publish.CommentChanges, "", "must be a path inside the repository"},
		{"config absolute", map[string]string{"config": "/etc/x.yml"}, publish.CommentChanges, "", "must be a path inside the repository"},
		{"base option", map[string]string{"base": "--upload-pack=x"}, publish.CommentChanges, "", "input base"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := readInputs(func(k string) string { return tc.inputs[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(in.FailOn)
			if in.FailOn == nil {
				got = "[]"
			}
			if in.CommentMode != tc.comment || got != tc.failOn {
				t.Errorf("comment-mode %v fail-on %s, want %v %s", in.CommentMode, got, tc.comment, tc.failOn)
			}
		})
	}
}

func TestFailsJob(t *testing.T) {
	t.Parallel()
	rs := []checks.Result{{Check: "render", Conclusion: checks.Success}, {Check: "pytest", Conclusion: checks.NotRun}}
	if got := failsJob(rs, []checks.Conclusion{checks.Failure}); len(got) != 0 {
		t.Errorf("failure only: %v", got)
	}
	if got := failsJob(rs, []checks.Conclusion{checks.NotRun}); fmt.Sprint(got) != "[pytest not_run]" {
		t.Errorf("not_run: %v", got)
	}
}
