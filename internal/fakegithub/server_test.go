package fakegithub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/ghcontract"
)

const repo = "octo/hello"

// call sends one request with a token and returns the status, the headers
// and the decoded JSON body.
func call(t *testing.T, s *Server, method, path, token string, body any) (int, http.Header, any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out any
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: body is not JSON: %q", method, path, raw)
		}
	}
	return resp.StatusCode, resp.Header, out
}

func field(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

func output(title, summary string) map[string]any {
	return map[string]any{"title": title, "summary": summary}
}

func TestPaginationWithLinkHeaders(t *testing.T) {
	s := New(t)
	s.ExpectInvalidRequests()
	s.AddPull(repo, Pull{Number: 7, HeadSHA: "h", BaseRef: "main"})
	for i := range 150 {
		s.AddComment(repo, 7, "someone", fmt.Sprintf("comment %d", i))
	}
	base := "/repos/" + repo + "/issues/7/comments"
	tests := []struct {
		query     string
		n         int
		first     string
		rels      []string
		notInLink []string
	}{
		{"", 30, "comment 0", []string{`page=2&per_page=30>; rel="next"`, `page=5&per_page=30>; rel="last"`}, []string{`rel="prev"`}},
		{"?per_page=100", 100, "comment 0", []string{`page=2&per_page=100>; rel="next"`, `page=2&per_page=100>; rel="last"`}, []string{`rel="prev"`}},
		{"?per_page=100&page=2", 50, "comment 100", []string{`page=1&per_page=100>; rel="first"`, `page=1&per_page=100>; rel="prev"`}, []string{`rel="next"`, `rel="last"`}},
		{"?per_page=500", 100, "comment 0", []string{`per_page=100>; rel="next"`}, nil},
		{"?per_page=100&page=9", 0, "", []string{`rel="prev"`}, []string{`rel="next"`}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			st, h, body := call(t, s, "GET", base+tc.query, "tok", nil)
			if st != 200 {
				t.Fatalf("status %d", st)
			}
			list := body.([]any)
			if len(list) != tc.n {
				t.Fatalf("got %d comments, want %d", len(list), tc.n)
			}
			if tc.n > 0 && field(list[0], "body") != tc.first {
				t.Errorf("first comment %v, want %q", field(list[0], "body"), tc.first)
			}
			link := h.Get("Link")
			for _, r := range tc.rels {
				if !strings.Contains(link, r) {
					t.Errorf("Link %q lacks %q", link, r)
				}
			}
			for _, r := range tc.notInLink {
				if strings.Contains(link, r) {
					t.Errorf("Link %q has %q", link, r)
				}
			}
			if link != "" && !strings.Contains(link, "<"+s.URL+base+"?") {
				t.Errorf("Link %q does not point at the list", link)
			}
		})
	}
}

// The limit is 65,536 bytes, the stricter reading of GitHub's "maximum
// is 65536 characters" (ghcontract.CommentBody).
func TestCommentBodyLimit(t *testing.T) {
	s := New(t)
	s.ExpectInvalidRequests()
	s.AddPull(repo, Pull{Number: 1})
	path := "/repos/" + repo + "/issues/1/comments"
	for _, tc := range []struct {
		name string
		body string
		want int
	}{
		{"ascii at the limit", strings.Repeat("a", 65536), 201},
		{"ascii one over", strings.Repeat("a", 65537), 422},
		{"two-byte letters at 65,536 bytes", strings.Repeat("é", 32768), 201},
		{"two-byte letters at 65,536 characters (131,072 bytes)", strings.Repeat("é", 65536), 422},
		{"empty", "", 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _, body := call(t, s, "POST", path, "tok", map[string]any{"body": tc.body})
			if st != tc.want {
				t.Fatalf("status %d, want %d: %v", st, tc.want, body)
			}
			if st == 422 && field(body, "message") != "Validation Failed" {
				t.Errorf("422 body %v", body)
			}
			if st == 422 && tc.body != "" && !strings.Contains(fmt.Sprint(field(body, "errors")), "Body is too long (maximum is 65536 characters)") {
				t.Errorf("422 errors %v, want GitHub's text", field(body, "errors"))
			}
		})
	}
	if n := len(s.Comments(repo, 1)); n != 2 {
		t.Errorf("%d comments stored, want 2", n)
	}
}

func TestCheckRunOutputLimits(t *testing.T) {
	s := New(t)
	s.ExpectInvalidRequests()
	path := "/repos/" + repo + "/check-runs"
	ann := func(n int) []map[string]any {
		var out []map[string]any
		for i := range n {
			out = append(out, map[string]any{"path": "a.sh", "start_line": i + 1, "end_line": i + 1, "annotation_level": "warning", "message": "m"})
		}
		return out
	}
	tests := []struct {
		name string
		out  map[string]any
		want int
	}{
		{"summary at 65,535 bytes", output("t", strings.Repeat("a", 65535)), 201},
		{"summary at 65,536 bytes", output("t", strings.Repeat("a", 65536)), 422},
		{"summary of 3-byte runes at 65,535 bytes", output("t", strings.Repeat("€", 21845)), 201},
		{"summary of 3-byte runes over", output("t", strings.Repeat("€", 21846)), 422},
		{"text at 65,535 bytes", map[string]any{"title": "t", "summary": "s", "text": strings.Repeat("a", 65535)}, 201},
		{"text at 65,536 bytes", map[string]any{"title": "t", "summary": "s", "text": strings.Repeat("a", 65536)}, 422},
		{"title at 255 characters", output(strings.Repeat("é", 255), "s"), 201},
		{"title at 256 characters", output(strings.Repeat("é", 256), "s"), 422},
		{"no summary", map[string]any{"title": "t"}, 422},
		{"50 annotations", map[string]any{"title": "t", "summary": "s", "annotations": ann(50)}, 201},
		{"51 annotations", map[string]any{"title": "t", "summary": "s", "annotations": ann(51)}, 422},
		{"annotation without a line", map[string]any{"title": "t", "summary": "s", "annotations": []map[string]any{{"path": "a", "annotation_level": "notice", "message": "m"}}}, 422},
		{"annotation message at 64,000 bytes", map[string]any{"title": "t", "summary": "s", "annotations": []map[string]any{{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": strings.Repeat("a", 64000)}}}, 201},
		{"annotation message over 64,000 bytes", map[string]any{"title": "t", "summary": "s", "annotations": []map[string]any{{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": strings.Repeat("a", 64001)}}}, 422},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, _, body := call(t, s, "POST", path, "tok", map[string]any{"name": "c", "head_sha": "abc", "output": tc.out})
			if st != tc.want {
				t.Fatalf("status %d, want %d: %v", st, tc.want, body)
			}
		})
	}
}

func TestCheckRunLifecycle(t *testing.T) {
	s := New(t)
	s.ExpectInvalidRequests()
	path := "/repos/" + repo + "/check-runs"
	st, _, body := call(t, s, "POST", path, "tok", map[string]any{"name": "template-verify / render", "head_sha": "abc", "status": "in_progress"})
	if st != 201 || field(body, "status") != "in_progress" || field(body, "conclusion") != nil {
		t.Fatalf("create: %d %v", st, body)
	}
	id := int64(field(body, "id").(float64))
	runPath := fmt.Sprintf("%s/%d", path, id)

	// completed needs a conclusion
	if st, _, _ := call(t, s, "PATCH", runPath, "tok", map[string]any{"status": "completed"}); st != 422 {
		t.Errorf("completed without conclusion: status %d, want 422", st)
	}
	if st, _, _ := call(t, s, "PATCH", runPath, "tok", map[string]any{"conclusion": "passed"}); st != 422 {
		t.Errorf("unknown conclusion: status %d, want 422", st)
	}
	ann := func(from, n int) []map[string]any {
		var out []map[string]any
		for i := range n {
			out = append(out, map[string]any{"path": "t.sh", "start_line": from + i, "end_line": from + i, "annotation_level": "failure", "message": "m"})
		}
		return out
	}
	out := map[string]any{"title": "t", "summary": "s", "text": "x", "annotations": ann(1, 50)}
	if st, _, body := call(t, s, "PATCH", runPath, "tok", map[string]any{"conclusion": "failure", "output": out}); st != 200 || field(body, "status") != "completed" {
		t.Fatalf("complete: %d %v", st, body)
	}
	out = map[string]any{"title": "t2", "summary": "s2", "annotations": ann(51, 20)}
	if st, _, _ := call(t, s, "PATCH", runPath, "tok", map[string]any{"output": out}); st != 200 {
		t.Fatalf("append: %d", st)
	}
	runs := s.CheckRuns()
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	if r.Status != "completed" || r.Conclusion != "failure" || r.Title != "t2" || r.Summary != "s2" || r.Text != "x" {
		t.Errorf("run %+v", r)
	}
	if len(r.Annotations) != 70 || r.Annotations[69].StartLine != 70 {
		t.Errorf("%d annotations, want 70 appended in order", len(r.Annotations))
	}
	_, _, got := call(t, s, "GET", runPath, "tok", nil)
	if n := field(field(got, "output"), "annotations_count"); n != float64(70) {
		t.Errorf("annotations_count %v", n)
	}
	_, h, list := call(t, s, "GET", runPath+"/annotations?per_page=50&page=2", "tok", nil)
	if len(list.([]any)) != 20 || !strings.Contains(h.Get("Link"), `rel="prev"`) {
		t.Errorf("annotations page 2: %d items, Link %q", len(list.([]any)), h.Get("Link"))
	}
	_, _, byRef := call(t, s, "GET", "/repos/"+repo+"/commits/abc/check-runs?check_name=template-verify+/+render", "tok", nil)
	if field(byRef, "total_count") != float64(1) {
		t.Errorf("runs for ref: %v", byRef)
	}
}

func TestUnknownIDsAre404(t *testing.T) {
	s := New(t)
	s.ExpectInvalidRequests()
	s.AddPull(repo, Pull{Number: 1})
	_, _, body := call(t, s, "POST", "/repos/"+repo+"/check-runs", "tok", map[string]any{"name": "c", "head_sha": "abc"})
	id := int64(field(body, "id").(float64))
	cid := s.AddComment(repo, 1, DefaultLogin, "x")
	for _, tc := range []struct{ method, path string }{
		{"PATCH", "/repos/" + repo + "/check-runs/999"},
		{"PATCH", fmt.Sprintf("/repos/other/repo/check-runs/%d", id)},
		{"GET", "/repos/" + repo + "/check-runs/abc"},
		{"PATCH", "/repos/" + repo + "/issues/comments/999"},
		{"PATCH", fmt.Sprintf("/repos/other/repo/issues/comments/%d", cid)},
		{"GET", "/repos/" + repo + "/issues/2/comments"},
		{"POST", "/repos/" + repo + "/issues/2/comments"},
		{"GET", "/repos/" + repo + "/pulls/2"},
		{"GET", "/repos/" + repo + "/nothing"},
	} {
		st, _, body := call(t, s, tc.method, tc.path, "tok", map[string]any{"body": "b", "name": "n"})
		if st != 404 || field(body, "message") != "Not Found" {
			t.Errorf("%s %s: %d %v, want 404 Not Found", tc.method, tc.path, st, body)
		}
	}
}

func TestFaults(t *testing.T) {
	s := New(t)
	reset := time.Unix(2_000_000_000, 0)
	s.FailNext(1, SecondaryRateLimit(7*time.Second))
	s.FailNext(1, SecondaryRateLimit(0))
	s.FailNext(1, PrimaryRateLimit(reset))
	s.FailNext(2, ServerError(502))
	s.FailNext(1, Unprocessable("nope"))
	path := "/user"
	type want struct {
		status              int
		retryAfter, remains string
		reset               string
		message             string
	}
	for i, w := range []want{
		{403, "7", "", "", "secondary rate limit"},
		{403, "", "", "", "secondary rate limit"},
		{403, "", "0", "2000000000", "API rate limit exceeded"},
		{502, "", "", "", "Server Error"},
		{502, "", "", "", "Server Error"},
		{422, "", "", "", "Validation Failed"},
		{200, "", "", "", ""},
	} {
		st, h, body := call(t, s, "GET", path, "tok", nil)
		if st != w.status {
			t.Fatalf("request %d: status %d, want %d", i, st, w.status)
		}
		if h.Get("Retry-After") != w.retryAfter {
			t.Errorf("request %d: Retry-After %q, want %q", i, h.Get("Retry-After"), w.retryAfter)
		}
		if w.remains != "" && h.Get("X-RateLimit-Remaining") != w.remains {
			t.Errorf("request %d: remaining %q", i, h.Get("X-RateLimit-Remaining"))
		}
		if w.reset != "" && h.Get("X-RateLimit-Reset") != w.reset {
			t.Errorf("request %d: reset %q", i, h.Get("X-RateLimit-Reset"))
		}
		if msg, _ := field(body, "message").(string); w.message != "" && !strings.Contains(msg, w.message) {
			t.Errorf("request %d: message %q, want %q", i, msg, w.message)
		}
	}
	// A fault for one method lets other methods through.
	s.FailNext(1, Fault{Status: 500, Message: "x", Method: "POST"})
	if st, _, _ := call(t, s, "GET", path, "tok", nil); st != 200 {
		t.Errorf("GET with a POST fault due: %d", st)
	}
	if st, _, _ := call(t, s, "POST", "/repos/"+repo+"/check-runs", "tok", map[string]any{"name": "c", "head_sha": "a"}); st != 500 {
		t.Errorf("POST with a POST fault due: %d", st)
	}
	// Skip lets matching requests through first.
	s.FailNext(1, Fault{Status: 500, Message: "x", Method: "POST", Skip: 2})
	var got []int
	for range 4 {
		st, _, _ := call(t, s, "POST", "/repos/"+repo+"/check-runs", "tok", map[string]any{"name": "c", "head_sha": "a"})
		got = append(got, st)
	}
	if fmt.Sprint(got) != "[201 201 500 201]" {
		t.Errorf("statuses with Skip 2: %v", got)
	}
}

func TestTokens(t *testing.T) {
	s := New(t)
	if st, _, _ := call(t, s, "GET", "/user", "", nil); st != 401 {
		t.Errorf("no token: %d, want 401", st)
	}
	_, _, u := call(t, s, "GET", "/user", "anything", nil)
	if field(u, "login") != DefaultLogin {
		t.Errorf("default login %v", u)
	}
	s.AddToken("ro", Token{Login: DefaultLogin, ReadOnly: true})
	s.AddToken("rw", Token{Login: "octocat"})
	s.AddPull(repo, Pull{Number: 3})
	if st, _, _ := call(t, s, "GET", "/user", "anything", nil); st != 401 {
		t.Errorf("unknown token after AddToken: %d, want 401", st)
	}
	if st, _, _ := call(t, s, "GET", "/repos/"+repo+"/issues/3/comments", "ro", nil); st != 200 {
		t.Errorf("read-only GET: %d", st)
	}
	st, _, body := call(t, s, "POST", "/repos/"+repo+"/issues/3/comments", "ro", map[string]any{"body": "x"})
	if st != 403 || field(body, "message") != "Resource not accessible by integration" {
		t.Errorf("read-only POST: %d %v", st, body)
	}
	_, _, c := call(t, s, "POST", "/repos/"+repo+"/issues/3/comments", "rw", map[string]any{"body": "x"})
	if field(field(c, "user"), "login") != "octocat" {
		t.Errorf("comment author %v", c)
	}
	// An App JWT makes an installation token; GET /user refuses it.
	if st, _, _ := call(t, s, "POST", "/app/installations/5/access_tokens", "not-a-jwt", nil); st != 401 {
		t.Errorf("access token with a plain token: %d", st)
	}
	st, _, tok := call(t, s, "POST", "/app/installations/5/access_tokens", "a.b.c", nil)
	if st != 201 {
		t.Fatalf("access token: %d %v", st, tok)
	}
	inst := field(tok, "token").(string)
	if st, _, _ := call(t, s, "GET", "/user", inst, nil); st != 403 {
		t.Errorf("GET /user with an installation token: %d, want 403", st)
	}
	_, _, c = call(t, s, "POST", "/repos/"+repo+"/issues/3/comments", inst, map[string]any{"body": "y"})
	if field(field(c, "user"), "login") != s.AppLogin {
		t.Errorf("app comment author %v", c)
	}
}

func TestPulls(t *testing.T) {
	s := New(t)
	s.AddPull(repo, Pull{Number: 2, HeadSHA: "h2", HeadRef: "feature", BaseRef: "main", BaseSHA: "b", HeadRepo: "fork/hello", Fork: true})
	s.AddPull(repo, Pull{Number: 1, HeadSHA: "h1", BaseRef: "main"})
	_, _, p := call(t, s, "GET", "/repos/"+repo+"/pulls/2", "tok", nil)
	if field(field(field(p, "head"), "repo"), "fork") != true || field(field(p, "base"), "ref") != "main" {
		t.Errorf("pull %v", p)
	}
	_, _, list := call(t, s, "GET", "/repos/"+repo+"/commits/h1/pulls", "tok", nil)
	if l := list.([]any); len(l) != 1 || field(l[0], "number") != float64(1) {
		t.Errorf("pulls for h1: %v", list)
	}
}

func TestRecordsRequests(t *testing.T) {
	s := New(t)
	s.ExpectInvalidRequests() // a query parameter the operation does not have
	s.AddPull(repo, Pull{Number: 1})
	call(t, s, "POST", "/repos/"+repo+"/issues/1/comments?x=1", "tok", map[string]any{"body": "hello"})
	call(t, s, "GET", "/repos/"+repo+"/issues/1/comments", "tok", nil)
	rs := s.Requests()
	if len(rs) != 2 {
		t.Fatalf("%d requests", len(rs))
	}
	if r := rs[0]; r.Method != "POST" || r.Path != "/repos/"+repo+"/issues/1/comments" || r.Query.Get("x") != "1" || r.JSON["body"] != "hello" || r.Status != 201 || r.Token != "tok" {
		t.Errorf("request 0: %+v", r)
	}
	if w := s.Writes(); len(w) != 1 {
		t.Errorf("%d writes", len(w))
	}
	s.ClearRequests()
	if len(s.Requests()) != 0 {
		t.Error("ClearRequests kept requests")
	}
}

// The fake's limits are the contract's stricter readings.
func TestLimitsFollowContract(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fake, max int
	}{
		{"comment body", MaxCommentBytes, ghcontract.CommentBody.Max},
		{"output summary", MaxOutputBytes, ghcontract.OutputSummary.Max},
		{"output text", MaxOutputBytes, ghcontract.OutputText.Max},
		{"output title", MaxTitleChars, ghcontract.OutputTitle.Max},
		{"check run name", maxNameChars, ghcontract.CheckRunName.Max},
		{"annotation message", MaxAnnotationBytes, ghcontract.AnnotationMessage.Max},
	} {
		if tc.fake != tc.max {
			t.Errorf("%s: the fake's limit %d, the contract's %d", tc.name, tc.fake, tc.max)
		}
	}
}

// GET issues/comments/{id} reads one comment of the repository.
func TestGetComment(t *testing.T) {
	s := New(t)
	s.ExpectInvalidRequests() // a bad id, to see the 404
	s.AddPull(repo, Pull{Number: 1})
	id := s.AddComment(repo, 1, "octocat", "hello")
	st, _, body := call(t, s, "GET", fmt.Sprintf("/repos/%s/issues/comments/%d", repo, id), "tok", nil)
	if st != 200 || field(body, "body") != "hello" || field(body, "node_id") == nil {
		t.Errorf("get: %d %v", st, body)
	}
	for _, path := range []string{fmt.Sprintf("/repos/other/repo/issues/comments/%d", id), "/repos/" + repo + "/issues/comments/999", "/repos/" + repo + "/issues/comments/x"} {
		if st, _, _ := call(t, s, "GET", path, "tok", nil); st != 404 {
			t.Errorf("GET %s: %d, want 404", path, st)
		}
	}
}
