package report

import (
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

// TestNoTemplateButOtherWork: a PR that changes no template but a file
// another check verifies (an archive, a copy) is verified; the report
// must not say that there is nothing to verify.
func TestNoTemplateButOtherWork(t *testing.T) {
	t.Parallel()
	r := &Report{
		Repo: "o/r", BaseRev: "main", HeadRev: "pr", Overall: checks.Failure,
		Results: []checks.Result{{Check: "sync", Conclusion: checks.Failure, Title: "Copies differ"}},
	}
	md, err := r.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md, "text": r.Text()} {
		if strings.Contains(out, "nothing to verify") {
			t.Errorf("%s says nothing to verify for a failing sync check:\n%s", name, out)
		}
	}
	empty := &Report{Repo: "o/r", BaseRev: "main", HeadRev: "pr", Overall: checks.Success}
	if !strings.Contains(empty.Text(), "nothing to verify") {
		t.Errorf("a report without templates and results must say nothing to verify:\n%s", empty.Text())
	}
}
