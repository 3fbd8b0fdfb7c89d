package examples

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/archive"
	"github.com/formula-code/template-verify/checks/description"
	"github.com/formula-code/template-verify/checks/names"
	"github.com/formula-code/template-verify/checks/synccheck"
	"github.com/formula-code/template-verify/checks/taint"
	"github.com/formula-code/template-verify/internal/golden"
	"github.com/formula-code/template-verify/internal/housestyle"
	"github.com/formula-code/template-verify/verify"
)

// volatile masks what differs between runs of one head: durations and
// the Jinja2 version; golden.MaskTemp masks the temporary folders.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b`), "<dur>"},
	{regexp.MustCompile(`\b\d+(\.\d+)? s\b`), "<dur>"},
	{regexp.MustCompile(`Jinja2 \d+\.\d+\.\d+`), "Jinja2 <version>"},
}

// TestCheckCommentGoldens renders the comment of each new check on the
// example head that makes it fail and on its near miss, with only that
// check, and compares it with a golden file. Each comment must also pass
// the house style, a passing head has no failure finding, and a failing
// head has the findings whose titles start with finds. The taint heads run
// here only (the tamper runs are the slowest part of the package): reading
// the skip flags after the profile files fails statically and in the
// tamper run, the new flag read the right way passes.
func TestCheckCommentGoldens(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example and runs the checks")
	}
	t.Parallel()
	b := heads(t)
	seed := readSeed(t)
	cases := []struct {
		head  string
		check checks.Check
		desc  string
		want  checks.Conclusion
		finds []string // titles of findings that must appear (prefixes)
	}{
		{headSyncBad, synccheck.New(), "", checks.Failure, nil},
		{headSyncReordered, synccheck.New(), "", checks.Success, nil},
		{headNamesBad, names.New(), "", checks.Failure, nil},
		{headNamesDefault, names.New(), "", checks.Success, nil},
		{headTaintFlags, taint.New(), "", checks.Failure, []string{"FC_SKIP_PYTEST is read after a source", "A profile file turns _fc_skip_pytest on", "A profile file turns _fc_skip_pytest off"}},
		{headTaintNewFlag, taint.New(), "", checks.Success, nil},
		{headArchiveBad, archive.New(), "", checks.Failure, nil},
		{headArchiveEdit, archive.New(), "", checks.Success, nil},
		{HeadGood, description.New(), seed, checks.Success, nil},
	}
	for _, tc := range cases {
		name := tc.check.Name()
		t.Run(name+"/"+tc.head, func(t *testing.T) {
			t.Parallel()
			rep, err := verify.Run(context.Background(), verify.Options{
				RepoDir: b.Dir, RepoName: "datasmith-mini", Base: BaseBranchOf(tc.head), Head: tc.head, Description: tc.desc,
				Checks:  func() []checks.Check { return []checks.Check{tc.check} },
				Command: "template-verify run --repo EXAMPLE --base " + BaseBranchOf(tc.head) + " --head " + tc.head + " --only " + name,
			})
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			var got checks.Conclusion
			var titles []string
			for _, r := range rep.Results {
				if r.Check != name {
					continue
				}
				got = r.Conclusion
				for _, f := range r.Findings {
					titles = append(titles, f.Title)
					if f.Level == checks.LevelFailure && tc.want == checks.Success {
						t.Errorf("failure finding on a passing head: %+v", f)
					}
				}
			}
			if got != tc.want {
				t.Errorf("%s concluded %s, want %s", name, got, tc.want)
			}
			for _, w := range tc.finds {
				if !slices.ContainsFunc(titles, func(ti string) bool { return strings.HasPrefix(ti, w) }) {
					t.Errorf("no finding %q; findings %q", w, titles)
				}
			}
			md, err := rep.Markdown()
			if err != nil {
				t.Fatal(err)
			}
			if problems := housestyle.Lint(md); len(problems) > 0 {
				t.Errorf("the comment breaks the house style:\n%v", problems)
			}
			for _, v := range volatile {
				md = v.re.ReplaceAllString(md, v.with)
			}
			golden.Check(t, filepath.Join("testdata", "comments", name+"-"+tc.head+".md"), golden.MaskTemp(md))
		})
	}
}

// readSeed is a PR description in the house format: the passing corpus of
// the description check keeps the five seeds.
func readSeed(t *testing.T) string {
	t.Helper()
	files, _ := filepath.Glob("../checks/description/testdata/seeds/*")
	if len(files) == 0 {
		t.Fatal("no seed in checks/description/testdata/seeds")
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
