package publish

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/formula-code/template-verify/internal/fakegithub"
	"github.com/formula-code/template-verify/internal/markdown"
	"github.com/formula-code/template-verify/report"
)

func TestCommentCreatedThenEdited(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	ctx := context.Background()
	first, err := e.pub.Comment(ctx, report.Marker+"\nfirst run")
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.pub.Comment(ctx, report.Marker+"\nsecond run")
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || second.Created || first.ID != second.ID {
		t.Errorf("first %+v, second %+v: want one comment, created then edited", first, second)
	}
	cs := e.srv.Comments(full, prNum)
	if len(cs) != 1 || !strings.HasSuffix(cs[0].Body, "second run") || cs[0].Edits != 1 || cs[0].Author != fakegithub.DefaultLogin {
		t.Errorf("comments %+v", cs)
	}
	want := []string{
		"GET /repos/octo/hello/issues/7/comments", "POST /repos/octo/hello/issues/7/comments",
		"GET /repos/octo/hello/issues/7/comments", fmt.Sprintf("PATCH /repos/octo/hello/issues/comments/%d", first.ID),
	}
	if got := paths(e.srv.Requests()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}

func TestCommentFoundOnPageTwo(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	for i := range 150 {
		e.srv.AddComment(full, prNum, "reviewer", fmt.Sprintf("comment %d", i))
	}
	// The marker alone is not enough: this one is by someone else.
	e.srv.AddComment(full, prNum, "mallory", report.Marker+"\nlooks like ours")
	ours := e.srv.AddComment(full, prNum, fakegithub.DefaultLogin, report.Marker+"\nold report")
	e.srv.ClearRequests()
	res, err := e.pub.Comment(context.Background(), report.Marker+"\nnew report")
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || res.ID != ours {
		t.Fatalf("result %+v, want an edit of comment %d", res, ours)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests %v", paths(reqs))
	}
	if reqs[0].Query.Get("per_page") != "100" || reqs[1].Query.Get("page") != "2" {
		t.Errorf("list queries %v, %v", reqs[0].Query, reqs[1].Query)
	}
	for _, c := range e.srv.Comments(full, prNum) {
		if c.Author == "mallory" && c.Edits != 0 {
			t.Error("edited another user's comment")
		}
	}
}

func TestCommentAuthorFromToken(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.pub.author = ""
	if _, err := e.pub.Comment(context.Background(), "body"); err != nil {
		t.Fatal(err)
	}
	if got := paths(e.srv.Requests())[0]; got != "GET /user" {
		t.Errorf("first request %s, want GET /user", got)
	}
	c := e.srv.Comments(full, prNum)
	if len(c) != 1 || !strings.HasPrefix(c[0].Body, report.Marker+"\n") {
		t.Errorf("comment %+v: want the marker added", c)
	}
}

// The comment's budget is 65,536 bytes: GitHub's error says "maximum is
// 65536 characters", peers measured a limit in bytes, and 65,536 bytes
// fits both readings (internal/ghcontract, CommentBody).
func TestCommentBodyLimit(t *testing.T) {
	t.Parallel()
	head := report.Marker + "\n"
	// fill makes a body of n bytes of r after the marker (n-len(head) a
	// multiple of len(r)).
	fill := func(n int, r string) string { return head + strings.Repeat(r, (n-len(head))/len(r)) }
	const limit = report.MaxCommentBytes
	tests := []struct {
		name string
		body string
		cut  bool
	}{
		{"ASCII at 65,536 bytes", fill(limit, "a"), false},
		{"ASCII at 65,537 bytes", fill(limit+1, "a"), true},
		{"3-byte runes within 65,536 bytes", fill(limit, "€"), false},
		{"3-byte runes at 65,536 characters (196,575 bytes)", head + strings.Repeat("€", limit-utf8.RuneCountInString(head)), true},
		{"4-byte runes over", fill(limit+500, "😀"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := report.CommentBody(tc.body)
			if n := len(got); n > limit || !utf8.ValidString(got) {
				t.Fatalf("%d bytes, valid UTF-8 %v", n, utf8.ValidString(got))
			}
			if cut := got != tc.body; cut != tc.cut {
				t.Fatalf("cut %v, want %v", cut, tc.cut)
			}
			if tc.cut && !strings.Contains(got, "limit of 65,536 bytes") {
				t.Errorf("no cut note: %q", got[len(got)-300:])
			}
			// GitHub takes it.
			e := setup(t, false)
			if _, err := e.pub.Comment(context.Background(), tc.body); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCommentKeepsFencesAndTables(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(report.Marker + "\n## Verification\n\n| Check | Result |\n| --- | --- |\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "| check-%d | passed |\n", i)
	}
	b.WriteString("\n<details><summary>Diff</summary>\n\n```diff\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "+ line %d with ünïcödé\n", i)
	}
	b.WriteString("```\n\n</details>\n")
	got := report.CommentBody(b.String())
	if len(got) > report.MaxCommentBytes {
		t.Fatal("over the limit")
	}
	checkMarkdown(t, got)
}

// checkMarkdown fails when md has an open fence, an open <details>, or a
// table without its delimiter row.
func checkMarkdown(t *testing.T, md string) {
	t.Helper()
	var st markdown.State
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		st.Line(l)
		if !st.InFence() && st.TableLines() == 1 {
			if i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "| ---") {
				t.Errorf("line %d: a table header without its delimiter row", i+1)
			}
		}
	}
	if st.InFence() {
		t.Error("a code fence is left open")
	}
	if n := st.OpenDetails(); n > 0 {
		t.Errorf("%d <details> left open", n)
	}
}
