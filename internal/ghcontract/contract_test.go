package ghcontract

import (
	"net/url"
	"strings"
	"testing"
)

func mustLoad(t *testing.T) *Contract {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadCut(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	if len(c.Operations) != 17 {
		t.Errorf("%d operations, want 17", len(c.Operations))
	}
	for _, op := range c.Operations {
		if len(op.responses) == 0 {
			t.Errorf("%s: no responses", op.ID)
		}
	}
	if len(c.Source) != 2 || !strings.Contains(c.Source[0], "@octokit/openapi 23.0.2") || !strings.Contains(c.Source[1], "@octokit/openapi-webhooks 12.1.0") {
		t.Errorf("source %q", c.Source)
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/repos/o/r/issues/comments/5", "issues/get-comment"},
		{"GET", "/repos/o/r/issues/5/comments", "issues/list-comments"},
		{"PATCH", "/repos/o/r/check-runs/7", "checks/update"},
		{"GET", "/repos/o/r/commits/abc/check-runs", "checks/list-for-ref"},
		{"GET", "/app", "apps/get-authenticated"},
		{"DELETE", "/repos/o/r/check-runs/7", ""},
	} {
		got := ""
		if op := c.Match(tc.method, tc.path); op != nil {
			got = op.ID
		}
		if got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
}

func TestCheckRequest(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	ann := func(msg string) string {
		return `{"path":"a","start_line":1,"end_line":1,"annotation_level":"notice","message":"` + msg + `"}`
	}
	many := strings.TrimSuffix(strings.Repeat(ann("m")+",", 51), ",")
	for _, tc := range []struct {
		name, method, path, query, body string
		want                            string // "" = valid; else a part of the one violation
	}{
		{"valid create", "POST", "/repos/o/r/check-runs", "", `{"name":"n","head_sha":"abc","status":"in_progress"}`, ""},
		{"no head_sha", "POST", "/repos/o/r/check-runs", "", `{"name":"n"}`, "field /: rule required"},
		{"bad status", "POST", "/repos/o/r/check-runs", "", `{"name":"n","head_sha":"a","status":"done"}`, "field /status: rule enum"},
		{"completed without conclusion", "POST", "/repos/o/r/check-runs", "", `{"name":"n","head_sha":"a","status":"completed"}`, "field /conclusion: rule requiredIf"},
		{"51 annotations", "PATCH", "/repos/o/r/check-runs/1", "", `{"output":{"title":"t","summary":"s","annotations":[` + many + `]}}`, "field /output/annotations: rule maxItems"},
		{"message over 64 KB", "PATCH", "/repos/o/r/check-runs/1", "", `{"output":{"title":"t","summary":"s","annotations":[` + ann(strings.Repeat("x", 64001)) + `]}}`, "field /output/annotations/0/message: rule maxBytes 64000"},
		{"message at 64,000 bytes", "PATCH", "/repos/o/r/check-runs/1", "", `{"output":{"title":"t","summary":"s","annotations":[` + ann(strings.Repeat("x", 64000)) + `]}}`, ""},
		{"summary over 65,535 bytes", "PATCH", "/repos/o/r/check-runs/1", "", `{"output":{"title":"t","summary":"` + strings.Repeat("é", 32768) + `"}}`, "field /output/summary: rule limit 65535 bytes"},
		{"per_page over 100", "GET", "/repos/o/r/issues/1/comments", "per_page=101", "", "field query per_page: rule maximum 100"},
		{"unknown query", "GET", "/repos/o/r/issues/1/comments", "sort=x", "", "field query sort: rule parameters"},
		{"id not a number", "GET", "/repos/o/r/check-runs/x", "", "", "field path check_run_id: rule type integer"},
		{"comment over 65,536 bytes", "POST", "/repos/o/r/issues/1/comments", "", `{"body":"` + strings.Repeat("€", 21846) + `"}`, "field /body: rule limit 65536 bytes"},
		{"no operation", "PUT", "/repos/o/r/check-runs", "", "", "rule operation"},
	} {
		q, _ := url.ParseQuery(tc.query)
		_, vs := c.CheckRequest(tc.method, tc.path, q, []byte(tc.body))
		switch {
		case tc.want == "" && len(vs) > 0:
			t.Errorf("%s: %v", tc.name, vs)
		case tc.want != "" && (len(vs) != 1 || !strings.Contains(vs[0].String(), tc.want)):
			t.Errorf("%s: %v, want one with %q", tc.name, vs, tc.want)
		}
	}
}

func TestCheckAnswer(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	op := c.Match("GET", "/user")
	vs := c.CheckAnswer(op, 200, []byte(`{"login":"octocat","type":"User"}`))
	if len(vs) == 0 || !strings.Contains(vs[0].String(), "users/get-authenticated answer 200: field /") {
		t.Errorf("a user with two fields: %v", vs)
	}
	if vs := c.CheckAnswer(op, 401, []byte(`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`)); len(vs) != 0 {
		t.Errorf("401: %v", vs)
	}
	if vs := c.CheckAnswer(op, 502, []byte(`{"message":5}`)); len(vs) == 0 {
		t.Error("a 502 with a number for a message passed")
	}
	if vs := c.CheckAnswer(op, 201, nil); len(vs) != 1 || vs[0].Rule != "responses" {
		t.Errorf("201: %v", vs)
	}
}

// Schemas compile when first used; this compiles every one of the cut.
func TestEverySchemaCompiles(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	var locs []string
	for _, op := range c.Operations {
		for _, p := range op.params {
			locs = append(locs, p.schema)
		}
		for _, l := range op.responses {
			if l != "" {
				locs = append(locs, l)
			}
		}
		if op.body != "" {
			locs = append(locs, op.body)
		}
	}
	for _, h := range c.Webhooks() {
		locs = append(locs, location(webhooksURL, "webhooks", h))
	}
	for _, l := range locs {
		if _, err := c.schema(l); err != nil {
			t.Error(err)
		}
	}
	if len(c.Webhooks()) != 21 {
		t.Errorf("%d webhooks, want 21", len(c.Webhooks()))
	}
}

func TestURITemplate(t *testing.T) {
	t.Parallel()
	for s, ok := range map[string]bool{
		"https://api.github.com/users/octocat/following{/other_user}":    true,
		"https://api.github.com/repos/o/r/compare/{base}...{head}":       true,
		"https://api.github.com/notifications{?since,all,participating}": true,
		"https://api.github.com/repos/o/r/contents/{+path}":              true,
		"https://x/{a":    false,
		"https://x/a}":    false,
		"https://x/{{a}}": false,
		"https://x/{a b}": false,
	} {
		if err := uriTemplate(s); (err == nil) != ok {
			t.Errorf("%s: %v, want ok %v", s, err, ok)
		}
	}
}
