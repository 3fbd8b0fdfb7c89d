package ledger

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/checktest"
	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/gitx/gittest"
	"github.com/formula-code/template-verify/report"
)

const (
	owner, repoName = "formula-code", "datasmith"
	release         = "release/template-v1"
	gate            = config.DefaultLedgerRunName
)

// history is a release branch with one merged pull request per case.
type history struct {
	r     *gittest.Repo
	heads map[int]string // PR -> merged head
	other map[int]string // PR -> a head verified but not merged
	sync  string         // merge of main into the release branch
	dir   string         // a commit pushed to the release branch
}

// mergePR commits a branch off the release branch and merges it with
// GitHub's merge message. before, when set, is an earlier head of the
// branch (verified, then replaced by one more commit).
func (h *history) mergePR(n int, amend bool) {
	r := h.r
	b := "feature-" + string(rune('0'+n))
	r.Git("checkout", "-q", "-b", b, release)
	r.Write(map[string]string{b + ".txt": "one\n"})
	first := r.Commit("work on " + b)
	if amend {
		h.other[n] = first
		r.Write(map[string]string{b + ".txt": "two\n"})
		r.Commit("more work on " + b)
	}
	h.heads[n] = r.Git("rev-parse", "HEAD")
	r.Git("checkout", "-q", release)
	r.Git("merge", "-q", "--no-ff", "-m", "Merge pull request #"+string(rune('0'+n))+" from formula-code/"+b, b)
}

func newHistory(t *testing.T) *history {
	r := gittest.New(t)
	r.Write(map[string]string{"README.md": "main\n"})
	r.Commit("main")
	r.Git("checkout", "-q", "-b", release)
	h := &history{r: r, heads: map[int]string{}, other: map[int]string{}}
	h.mergePR(1, false) // verified green
	h.mergePR(2, false) // red
	h.mergePR(3, true)  // verified on its first head, merged with the second
	h.mergePR(4, false) // never verified
	h.mergePR(5, false) // still running
	r.Git("checkout", "-q", "main")
	r.Write(map[string]string{"MAIN.md": "later\n"})
	r.Commit("a fix on main")
	r.Git("checkout", "-q", release)
	r.Git("merge", "-q", "--no-ff", "-m", "Merge branch 'main' into "+release, "main")
	h.sync = r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"VERSION": "1\n"})
	h.dir = r.Commit("bump the version")
	return h
}

func client(t *testing.T, s *fakegithub.Server) *github.Client {
	t.Helper()
	c := github.NewClient(nil).WithAuthToken("tok")
	u, _ := url.Parse(s.URL + "/")
	c.BaseURL = u
	return c
}

func addRun(t *testing.T, c *github.Client, name, sha, status, conclusion string) {
	t.Helper()
	opt := github.CreateCheckRunOptions{Name: name, HeadSHA: sha, Status: github.String(status)}
	if conclusion != "" {
		opt.Conclusion = github.String(conclusion)
	}
	if _, _, err := c.Checks.CreateCheckRun(context.Background(), owner, repoName, opt); err != nil {
		t.Fatal(err)
	}
}

func TestLedgerOverGitHub(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	s := fakegithub.New(t)
	c := client(t, s)
	addRun(t, c, gate, h.heads[1], "completed", "success")
	addRun(t, c, "template-verify / render", h.heads[1], "completed", "failure") // another run does not count
	addRun(t, c, gate, h.heads[2], "completed", "failure")
	addRun(t, c, gate, h.other[3], "completed", "success")
	addRun(t, c, gate, h.heads[5], "in_progress", "")
	for n, head := range h.heads {
		pullHead := head
		if n == 3 {
			pullHead = h.other[3] // GitHub's record of the head the PR was verified on
		}
		s.AddPull(owner+"/"+repoName, fakegithub.Pull{Number: n, HeadSHA: pullHead, BaseRef: release, State: "closed"})
	}
	src := &GitHub{Client: c, Owner: owner, Repo: repoName}

	cfg := config.Default()
	in := checktest.Input(t, h.r.Repo, "main", release, cfg, nil)
	p := in.Plan
	chk := &Check{Source: src}
	if !chk.HasWork(p, nil, cfg) {
		t.Fatal("HasWork is false for release/template-v1 into main")
	}
	res := chk.Run(context.Background(), in)
	if res.Conclusion != checks.Failure || res.Title != "4 of 5 merged pull requests lack a green verification of the head they merged" {
		t.Fatalf("%s %q", res.Conclusion, res.Title)
	}
	want := []struct {
		pr     string
		status Status
	}{
		{"#1", Verified}, {"#2", Red}, {"#3", OtherHead}, {"#4", Missing}, {"#5", Pending}, {"-", FromBase}, {"-", NotPR},
	}
	rows := res.Tables[0].Rows
	if len(rows) != len(want) {
		t.Fatalf("%d rows; want %d: %v", len(rows), len(want), rows)
	}
	for i, w := range want {
		if rows[i][0] != w.pr || rows[i][4] != string(w.status) {
			t.Errorf("row %d: %v; want %s %s", i, rows[i], w.pr, w.status)
		}
	}
	if !strings.Contains(rows[2][5], "verified on "+h.other[3][:12]+", but "+h.heads[3][:12]+" was merged") {
		t.Errorf("row of #3: %v", rows[2])
	}
	// The comment shows the ledger as a table.
	md, err := (&report.Report{Repo: "datasmith", Base: p.Base, Head: p.Head, MergeBase: p.MergeBase, Results: []checks.Result{res}, Overall: res.Conclusion}).Markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Pull requests merged into release/template-v1 since it left main", "| PR | Merge | Merged head | Verification | Result | Note |", "verified on " + h.other[3][:12] + ", but " + h.heads[3][:12] + " was merged"} {
		if !strings.Contains(md, s) {
			t.Errorf("the comment lacks %q:\n%s", s, md)
		}
	}
	levels := map[checks.Level]int{}
	for _, f := range res.Findings {
		levels[f.Level]++
	}
	if levels[checks.LevelFailure] != 4 || levels[checks.LevelWarning] != 1 {
		t.Errorf("findings %v: %+v", levels, res.Findings)
	}
}

func TestLedgerApplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, head string
		want       bool
	}{
		{"main", "release/template-v1", true},
		{"origin/main", "refs/heads/release/x", true},
		{"refs/heads/main", "origin/release/x", true},
		{"main", "feature", false},
		{"release/template-v1", "feature", false},
		{"develop", "release/x", false},
	}
	l := config.DefaultLedger()
	for _, tt := range tests {
		if got := l.Applies(tt.base, tt.head); got != tt.want {
			t.Errorf("Applies(%q, %q) = %v", tt.base, tt.head, got)
		}
	}
}

func TestLedgerSkipsOtherBranches(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	cfg := config.Default()
	in := checktest.Input(t, h.r.Repo, "main", "feature-1", cfg, nil)
	chk := New()
	if chk.HasWork(in.Plan, nil, cfg) {
		t.Error("HasWork on feature-1 into main")
	}
	res := chk.Run(context.Background(), in)
	if res.Conclusion != checks.Skipped {
		t.Errorf("%s %q", res.Conclusion, res.Title)
	}
}

// The head's config cannot take the release branch out of the ledger: the
// base's release and into branches still count.
func TestHeadConfigCannotLeaveTheLedger(t *testing.T) {
	t.Parallel()
	h := newHistory(t)
	s := fakegithub.New(t)
	head := config.Default()
	head.Ledger.Release = []string{"nothing/*"}
	in := checktest.Input(t, h.r.Repo, "main", release, head, config.Default())
	chk := &Check{Source: &GitHub{Client: client(t, s), Owner: owner, Repo: repoName}}
	if !chk.HasWork(in.Plan, in.BaseConfig, head) {
		t.Error("HasWork is false")
	}
	if res := chk.Run(context.Background(), in); res.Conclusion != checks.Failure {
		t.Errorf("%s %q; want failure (no pull request is verified)", res.Conclusion, res.Title)
	}
}

// A merge commit that adds a change of its own ("evil merge") fails the
// ledger even when the head it merged is verified green.
func TestLedgerEditedMerge(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(map[string]string{"README.md": "main\n"})
	r.Commit("main")
	r.Git("checkout", "-q", "-b", release)
	r.Git("checkout", "-q", "-b", "feature")
	r.Write(map[string]string{"a.txt": "verified\n"})
	verified := r.Commit("verified change")
	r.Git("checkout", "-q", release)
	r.Git("merge", "-q", "--no-ff", "--no-commit", "feature")
	r.Write(map[string]string{"b.txt": "not verified\n"})
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "Merge pull request #7 from formula-code/feature")
	s := fakegithub.New(t)
	c := client(t, s)
	addRun(t, c, gate, verified, "completed", "success")
	entries, err := Entries(context.Background(), r.Repo, "main", release)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Judge(context.Background(), &GitHub{Client: c, Owner: owner, Repo: repoName}, gate, entries)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Status != Edited || rows[0].PR != 7 {
		t.Fatalf("rows %+v; want #7 edited merge", rows)
	}
}

// A squash merge ("Title (#9)") has no merged head in the repository: the
// API's record of the pull request's head gives it; without an API it is
// missing, never verified.
func TestLedgerSquashMerge(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write(map[string]string{"README.md": "main\n"})
	r.Commit("main")
	r.Git("checkout", "-q", "-b", release)
	r.Write(map[string]string{"a.txt": "squashed\n"})
	r.Commit("Restore test files (#9)")
	entries, err := Entries(context.Background(), r.Repo, "main", release)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Kind != KindSquash || entries[0].PR != 9 {
		t.Fatalf("entries %+v", entries)
	}
	s := fakegithub.New(t)
	c := client(t, s)
	prHead := "0123456789abcdef0123456789abcdef01234567"
	s.AddPull(owner+"/"+repoName, fakegithub.Pull{Number: 9, HeadSHA: prHead, BaseRef: release, State: "closed"})
	addRun(t, c, gate, prHead, "completed", "success")
	tests := []struct {
		name string
		src  Source
		want Status
	}{
		{"over GitHub", &GitHub{Client: c, Owner: owner, Repo: repoName}, Verified},
		{"local", NewLocal(r.Dir(), gate, nil, entries), Missing},
	}
	for _, tt := range tests {
		rows, err := Judge(context.Background(), tt.src, gate, entries)
		if err != nil {
			t.Fatal(err)
		}
		if rows[0].Status != tt.want {
			t.Errorf("%s: %s (%s); want %s", tt.name, rows[0].Status, rows[0].Detail, tt.want)
		}
	}
}
