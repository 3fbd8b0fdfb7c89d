package archive

import (
	"context"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/report"
)

// Member names come from the pull request: a name with an ANSI escape, an
// @mention, HTML and a workflow command reaches the report only as inert
// text, and a member that is a symlink is compared, never followed.
func TestHostileMembersStayData(t *testing.T) {
	t.Parallel()
	hostile := "tasks/\x1b[31mred\x1b[0m/@admin <img src=x>/\n::add-mask::x/test.sh"
	in := fixture(t, config.Default(), func(r *gittest.Repo, head bool) {
		es := dataset(2, 1, 10, false)
		es = append(es, entry{name: "tasks/link", typ: '2', linkTo: "/etc/shadow"})
		if head {
			es = append(es, entry{name: hostile, body: "#!/bin/bash\nif then\n"})
			es[len(es)-2].linkTo = "/proc/self/environ"
		}
		writeBytes(t, r, tarPath, makeTar(t, es, false))
	})
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Failure {
		t.Fatalf("%s %q", res.Conclusion, res.Title)
	}
	rep := &report.Report{Repo: "r", Base: in.Plan.Base, Head: in.Plan.Head, MergeBase: in.Plan.MergeBase, Results: []checks.Result{res}, Overall: res.Conclusion}
	md, err := rep.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\x1b", "@admin", "<img", "\n::add-mask::"} {
		if strings.Contains(md, bad) {
			t.Errorf("the comment holds %q", bad)
		}
	}
	// The terminal gets no escape and no workflow command at a line start.
	for _, bad := range []string{"\x1b", "\n::add-mask::"} {
		if strings.Contains(rep.Text(), bad) {
			t.Errorf("the text report holds %q", bad)
		}
	}
}
