package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

func TestReadInputs(t *testing.T) {
	tests := []struct {
		name    string
		inputs  map[string]string
		comment bool
		failOn  string
		err     string
	}{
		{"defaults", nil, true, "[failure timed_out not_run cancelled]", ""},
		{"comment off", map[string]string{"comment": "false"}, false, "[failure timed_out not_run cancelled]", ""},
		{"comment yes", map[string]string{"comment": "Yes"}, true, "[failure timed_out not_run cancelled]", ""},
		{"bad comment", map[string]string{"comment": "maybe"}, true, "", `input comment: "maybe" is not true or false`},
		{"fail-on list", map[string]string{"fail-on": "failure, timed_out\nfailure"}, true, "[failure timed_out]", ""},
		{"fail-on none", map[string]string{"fail-on": "none"}, true, "[]", ""},
		{"fail-on unknown", map[string]string{"fail-on": "failure,neutral"}, true, "", `input fail-on: "neutral" is not one of`},
		{"config default path", map[string]string{"config": ".github/template-verify.yml"}, true, "[failure timed_out not_run cancelled]", ""},
		{"config other path", map[string]string{"config": "ci/tv.yml"}, true, "[failure timed_out not_run cancelled]", ""},
		{"config outside the repository", map[string]string{"config": "../x.yml"}, true, "", "must be a path inside the repository"},
		{"config absolute", map[string]string{"config": "/etc/x.yml"}, true, "", "must be a path inside the repository"},
		{"base option", map[string]string{"base": "--upload-pack=x"}, true, "", "input base"},
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
			if in.Comment != tc.comment || got != tc.failOn {
				t.Errorf("comment %v fail-on %s, want %v %s", in.Comment, got, tc.comment, tc.failOn)
			}
		})
	}
}

func TestFailsJob(t *testing.T) {
	rs := []checks.Result{{Check: "render", Conclusion: checks.Success}, {Check: "pytest", Conclusion: checks.NotRun}}
	if got := failsJob(rs, []checks.Conclusion{checks.Failure}); len(got) != 0 {
		t.Errorf("failure only: %v", got)
	}
	if got := failsJob(rs, []checks.Conclusion{checks.NotRun}); fmt.Sprint(got) != "[pytest not_run]" {
		t.Errorf("not_run: %v", got)
	}
}
